import { currentTime } from '../../shared/platform';
import { syncUser, type SyncResult } from '../../functions/payment/plan-sync';
import { acquireSyncLease, findPayment, releaseSyncLease } from '../../functions/payment/payments';
import { retryDueSyncs } from '../../functions/payment/sync-timers';
import { startTestHost, type TestHost } from '../helpers/host';
import { loggedDuring, recordingLogger } from '../helpers/logs';
import { planInIdentity, signIn } from '../helpers/identity';
import { deliver, insertPaidPayment, paymentIntentObject, paymentOn, startIdentityFront, stripeEvent } from './helpers';

/**
 * The plan sync's promises about other instances, driven the way they happen: one sync per user at
 * a time (another instance's lease is waited for, for as long as a lease lasts, then the sync is
 * left to the timer), a lease lost during a push stops the sync, a payment recorded during a push is
 * pushed next (at most three pushes in one sync), and what each outcome logs. Identity is the dev
 * host's, behind a front whose `duringPush` plays the other instance; the host runs on the test's
 * clock, so a lease's lifetime passes without waiting for it.
 */
const TIMEOUT_MS = 800;
/** One push's timeout and 5 s: how long a sync's lease lasts, and how long a sync waits for another's. */
const LEASE_MS = TIMEOUT_MS + 5000;

let host: TestHost;
let front: Awaited<ReturnType<typeof startIdentityFront>>;
let at = Date.now();
const clock = { now: () => new Date(at) };

beforeAll(async () => {
  front = await startIdentityFront(() => host.url);
  host = await startTestHost({ clock, env: { IDENTITY_URL: front.url, PAYMENT_SYNC_TIMEOUT_MS: String(TIMEOUT_MS) } });
});
afterAll(async () => {
  await host.stop();
  await front.stop();
});
afterEach(() => front.reset());
/** payment's database on the host. */
const db = () => paymentOn(host).db;

/** A succeeded payment another instance's webhook recorded a second after the last: its plan is owed to identity. */
async function recordedPayment(id: string, userId: string, plan: 'pro' | 'enterprise') {
  at += 1000;
  await insertPaidPayment(host, { id, userId, plan, at: currentTime().toISOString() });
}

/** A promise's state a little later: whether it settled while real time passed and the test's clock did not. */
async function settledAfter(promise: Promise<unknown>, ms = 150): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, ms));
  return settled;
}

const deferred = (userId: string, details: string): SyncResult => ({
  success: false,
  error: 'Sync deferred',
  details,
  userId,
  retryStored: true,
  state: 'deferred',
});

/** A user owed a pro plan whose lease another instance holds for `ttlMs`, and a sync of theirs started behind it (still waiting). */
async function syncBehindAnotherInstance(email: string, paymentId: string, ttlMs: number) {
  const user = await signIn(host, email);
  const userId = user.user.id;
  await recordedPayment(paymentId, userId, 'pro');
  expect(await acquireSyncLease(db(), userId, 'other-instance', currentTime(), ttlMs)).toBe(true);
  const { log, lines } = recordingLogger();
  const sync = syncUser(paymentOn(host, log), userId);
  expect(await settledAfter(sync)).toBe(false);
  return { user, userId, sync, lines };
}

test("a sync waits while another instance holds the user's lease, then pushes once it is released", async () => {
  const { user, userId, sync, lines } = await syncBehindAnotherInstance('lease-wait@example.com', 'pi_lease_wait', 60_000);
  expect(front.state.planUpdates).toHaveLength(0);

  await releaseSyncLease(db(), userId, 'other-instance');
  expect(await sync).toEqual({ success: true, userId, plan: 'pro', paymentIntentId: 'pi_lease_wait' });
  expect(front.state.planUpdates).toHaveLength(1);
  expect(await planInIdentity(host, user)).toBe('pro');
  expect(lines).toEqual([
    { level: 'info', message: 'plan synced to identity', fields: { userId, plan: 'pro', paymentIntentId: 'pi_lease_wait', attempts: 1 } },
  ]);
});

test("a sync gives up after a lease's lifetime of waiting, not a millisecond sooner, and pushes nothing", async () => {
  const { userId, sync, lines } = await syncBehindAnotherInstance('lease-busy@example.com', 'pi_lease_busy', 3_600_000);
  at += LEASE_MS;
  expect(await settledAfter(sync)).toBe(false);
  at += 1;
  expect(await sync).toEqual(deferred(userId, 'another instance is syncing this user; the retry timer will finish'));

  expect(front.state.planUpdates).toHaveLength(0);
  expect((await findPayment(db(), 'pi_lease_busy'))!.sync).toMatchObject({ state: 'pending', attempts: 0 });
  expect(lines).toEqual([]);
  // The other instance's lease is untouched by the sync that gave up.
  expect(await acquireSyncLease(db(), userId, 'third-instance', currentTime(), 1000)).toBe(false);
  await releaseSyncLease(db(), userId, 'other-instance');
});

test('a sync whose lease another instance took during a push stops there and leaves the newer payment to that instance', async () => {
  const user = await signIn(host, 'lease-lost@example.com');
  const userId = user.user.id;
  await recordedPayment('pi_lease_first', userId, 'pro');
  front.state.duringPush = async () => {
    front.state.duringPush = undefined;
    await recordedPayment('pi_lease_newer', userId, 'enterprise');
    // This push outlived its lease; another instance took the lease over.
    at += LEASE_MS + 1;
    expect(await acquireSyncLease(db(), userId, 'other-instance', currentTime(), 60_000)).toBe(true);
  };

  const result = await syncUser(paymentOn(host, recordingLogger().log), userId);
  expect(result).toEqual(deferred(userId, 'the sync lease was lost to another instance; it finishes the sync'));
  expect(front.state.planUpdates.map((put) => put.body.plan)).toEqual(['pro']);
  expect((await findPayment(db(), 'pi_lease_first'))!.sync.state).toBe('synced');
  expect((await findPayment(db(), 'pi_lease_newer'))!.sync).toMatchObject({ state: 'pending', attempts: 0 });
  // The lease stays with the instance that took it.
  expect(await acquireSyncLease(db(), userId, 'third-instance', currentTime(), 1000)).toBe(false);
  await releaseSyncLease(db(), userId, 'other-instance');
});

test('payments recorded during pushes are pushed in the same sync, at most three pushes; the rest is left to the timer', async () => {
  const user = await signIn(host, 'lease-rounds@example.com');
  const userId = user.user.id;
  const plans = ['pro', 'enterprise', 'pro', 'enterprise', 'pro', 'enterprise'] as const;
  let recorded = 0;
  await recordedPayment(`pi_round_${recorded}`, userId, plans[recorded]);
  front.state.duringPush = async () => {
    if (recorded + 1 < plans.length) await recordedPayment(`pi_round_${++recorded}`, userId, plans[recorded]);
  };

  const { log, lines } = recordingLogger();
  const result = await syncUser(paymentOn(host, log), userId);
  expect(result).toEqual({ success: true, userId, plan: 'pro', paymentIntentId: 'pi_round_2' });
  expect(front.state.planUpdates.map((put) => put.body.plan)).toEqual(['pro', 'enterprise', 'pro']);
  expect(lines.map((line) => line.fields.paymentIntentId)).toEqual(['pi_round_0', 'pi_round_1', 'pi_round_2']);
  expect(await planInIdentity(host, user)).toBe('pro');
  expect((await findPayment(db(), 'pi_round_3'))!.sync.state).toBe('pending');
});

test('a webhook whose sync another instance holds answers deferred; the timer takes the payment only after twice the timeout and 5 s', async () => {
  const user = await signIn(host, 'grace@example.com');
  const userId = user.user.id;
  expect(await acquireSyncLease(db(), userId, 'other-instance', currentTime(), 3_600_000)).toBe(true);
  const delivery = deliver(host, stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_grace', { userId, planType: 'pro', amount: 2900 })));
  expect(await settledAfter(delivery)).toBe(false);
  // The webhook's sync waits a lease's lifetime on the host's clock from the moment it starts to
  // wait, which on a busy machine can come after this line: the clock moves on until it gives up.
  do at += LEASE_MS + 1;
  while (!(await settledAfter(delivery)));
  const res = await delivery;
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ action: 'applied', sync: deferred(userId, 'another instance is syncing this user; the retry timer will finish') });

  const recorded = (await findPayment(db(), 'pi_grace'))!;
  expect(recorded.sync.state).toBe('pending');
  const due = Date.parse(recorded.sync.nextAttemptAt!);
  expect(due - Date.parse(recorded.createdAt)).toBe(2 * TIMEOUT_MS + 5000);

  await releaseSyncLease(db(), userId, 'other-instance');
  // (The timer also finishes what the tests above left to it: only this user's results are read.)
  const retried = async () => (await retryDueSyncs(paymentOn(host, recordingLogger().log), currentTime())).filter((result) => result.userId === userId);
  at = due - 1;
  expect(await retried()).toEqual([]);
  expect(front.state.planUpdates.filter((put) => put.userId === userId)).toHaveLength(0);
  at = due;
  expect(await retried()).toEqual([{ success: true, userId, plan: 'pro', paymentIntentId: 'pi_grace' }]);
  expect(await planInIdentity(host, user)).toBe('pro');
});

test('identity refusing a push as stale without saying what it holds: the paid plan goes to a person, with that said', async () => {
  const user = await signIn(host, 'stale-unknown@example.com');
  const userId = user.user.id;
  front.state.mode = 'conflict';
  const { result: res, lines } = await loggedDuring(() =>
    deliver(host, stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_stale_unknown', { userId, planType: 'pro', amount: 2900 }))),
  );
  expect(lines).toContainEqual(expect.objectContaining({ level: 'error', category: 'manual_review', paymentIntentId: 'pi_stale_unknown' }));
  expect(res.body.sync).toEqual({
    success: false,
    error: 'Identity applied a newer plan update',
    details: 'identity holds another plan from a plan update requested after this payment; the paid plan pro was not applied',
    userId,
    retryStored: true,
    state: 'manual_review',
    nextAttemptAt: null,
  });
  expect(await planInIdentity(host, user)).toBe('free');
});
