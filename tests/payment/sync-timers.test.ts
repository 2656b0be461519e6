// The two payment timers' work, as the timers run it: the retry timer syncs every due user once,
// four pushes to identity at a time, and writes one line saying how many it retried and how many
// succeeded; the cleanup timer deletes expired failed-sync records and says how many; while no sync
// is owed, the retry timer writes the backlog line from the Table Storage marker, manual reviews
// included, so the alert on them keeps firing while SQL sleeps.
import { InvocationContext, type Timer } from '@azure/functions';
import { syncRetryTimer } from '../../functions/payment';
import { SYNC_BACKLOG_MESSAGE } from '../../functions/payment/backlog';
import { findPayment, usersWithDueSyncs } from '../../functions/payment/payments';
import { inlineSyncGraceMs } from '../../functions/payment/plan-sync';
import { cleanUpExpiredRecords, retryDueSyncs } from '../../functions/payment/sync-timers';
import { startTestHost, type TestHost } from '../helpers/host';
import { signIn } from '../helpers/identity';
import { loggedAtInfo, recordingLogger } from '../helpers/logs';
import { checkout, deliver, insertPaidPayment, paymentIntentObject, paymentOn, startIdentityFront, stripeEvent } from './helpers';

let host: TestHost;
let front: Awaited<ReturnType<typeof startIdentityFront>>;
// Near the real time: payment's service token is minted for the real clock, identity checks it on this one.
let at = Date.now();
const clock = { now: () => new Date(at) };

beforeAll(async () => {
  front = await startIdentityFront(() => host.url);
  host = await startTestHost({ clock, env: { SERVICES: 'identity,payment', IDENTITY_URL: front.url } });
});
afterAll(async () => {
  await host.stop();
  await front.stop();
});
afterEach(() => front.reset());
/** payment's database on the host. */
const db = () => paymentOn(host).db;

/** A succeeded payment of `userId` whose pro plan identity has not received, due for a retry since a minute ago. */
const owedPayment = (id: string, userId: string, syncState: 'pending' | 'manual_review' = 'pending') =>
  insertPaidPayment(host, { id, userId, at: new Date(at - 60_000).toISOString(), syncState });

async function usersOwed(count: number, name: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const userId = (await signIn(host, `${name}-${i}@example.com`)).user.id;
    await owedPayment(`pi_${name}_${i}`, userId);
    ids.push(userId);
  }
  return ids;
}

const retryLines = (lines: { message: string; fields: object }[]) => lines.filter((line) => line.message === 'plan sync retries ran');

test('the retry timer syncs each due user once, four pushes at a time, and says how many it retried and how many succeeded', async () => {
  const userIds = await usersOwed(6, 'due');
  // Each push is held long enough for every push the timer starts at once to be in flight together.
  front.state.duringPush = () => new Promise((resolve) => setTimeout(resolve, 400));
  front.state.mostPushing = 0;
  const { log, lines } = recordingLogger();
  const results = await retryDueSyncs(paymentOn(host, log), new Date(at));

  expect(results.map((r) => r.userId).sort()).toEqual([...userIds].sort());
  expect(results.filter((r) => !r.success)).toEqual([]);
  expect(front.state.mostPushing).toBe(4);
  expect(retryLines(lines)).toEqual([{ level: 'info', message: 'plan sync retries ran', fields: { users: 6, succeeded: 6 } }]);
  for (let i = 0; i < 6; i++) expect((await findPayment(db(), `pi_due_${i}`))!.sync.state).toBe('synced');
});

test('with identity failing the line counts none succeeded; with nothing due the timer retries nobody and writes no line', async () => {
  const userIds = await usersOwed(2, 'failing');
  front.state.mode = 'failing';
  const failing = recordingLogger();
  const results = await retryDueSyncs(paymentOn(host, failing.log), new Date(at));
  expect(results.map((r) => [r.userId, r.success]).sort()).toEqual(userIds.map((id) => [id, false]).sort());
  expect(retryLines(failing.lines)).toEqual([{ level: 'info', message: 'plan sync retries ran', fields: { users: 2, succeeded: 0 } }]);

  // Their next attempts are in the future now.
  const idle = recordingLogger();
  expect(await retryDueSyncs(paymentOn(host, idle.log), new Date(at))).toEqual([]);
  expect(retryLines(idle.lines)).toEqual([]);

  // The failed syncs left a record each in Table Storage; past their lifetime the cleanup deletes them and says so.
  const cleanup = recordingLogger();
  const deleted = await cleanUpExpiredRecords(paymentOn(host, cleanup.log), new Date(at + 2 * 86_400_000));
  expect(deleted).toBeGreaterThanOrEqual(2);
  expect(cleanup.lines).toEqual([{ level: 'info', message: 'expired failed-sync records deleted', fields: { deleted } }]);
  const nothingLeft = recordingLogger();
  expect(await cleanUpExpiredRecords(paymentOn(host, nothingLeft.log), new Date(at + 2 * 86_400_000))).toBe(0);
  expect(nothingLeft.lines).toEqual([]);
});

test.each(['recorded at checkout', 'never recorded here'])(
  'a sync the webhook is pushing is left to it (a payment %s): the timer running meanwhile does not take it until the grace has passed',
  async (kind) => {
    const user = await signIn(host, `grace-${kind.split(' ')[0]}@example.com`);
    const id = kind === 'recorded at checkout' ? await checkout(host, user, 'pro', 2900) : `pi_grace_${user.user.id}`;
    let pushing!: () => void;
    const inFlight = new Promise<void>((resolve) => (pushing = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Identity has applied the plan; the webhook's own push has not returned yet.
    front.state.duringPush = () => {
      pushing();
      return held;
    };
    const event = stripeEvent('payment_intent.succeeded', paymentIntentObject(id, { userId: user.user.id, planType: 'pro', amount: 2900 }));
    const delivery = deliver(host, event, { timestamp: Math.floor(at / 1000) });
    // A webhook that answers without pushing fails here rather than leaving the test waiting.
    expect(await Promise.race([inFlight.then(() => 'pushing'), delivery.then(() => 'answered')])).toBe('pushing');

    try {
      const meanwhile = await retryDueSyncs(paymentOn(host, recordingLogger().log), new Date(at));
      expect(meanwhile.map((result) => result.userId)).not.toContain(user.user.id);
      // The grace is the webhook's: the timer may take the sync from the instant it ends (a webhook that died mid-push), not before.
      expect(await usersWithDueSyncs(db(), new Date(at + inlineSyncGraceMs(host.platform.config) - 1))).not.toContain(user.user.id);
      expect(await usersWithDueSyncs(db(), new Date(at + inlineSyncGraceMs(host.platform.config)))).toContain(user.user.id);
    } finally {
      release();
    }
    expect((await delivery).body).toMatchObject({ action: 'applied', sync: { success: true, userId: user.user.id, plan: 'pro' } });
    expect(front.state.planUpdates.filter((update) => update.userId === user.user.id)).toHaveLength(1);
    expect((await findPayment(db(), id))!.sync.state).toBe('synced');
  },
);

test('while no sync is owed the timer leaves SQL alone and writes the backlog line from the marker, manual reviews counted', async () => {
  // Everything owed so far is settled: the retries of the test above are pushed once identity is back.
  at += 86_400_000;
  await retryDueSyncs(paymentOn(host, recordingLogger().log), new Date(at));
  const user = await signIn(host, 'review@example.com');
  await owedPayment('pi_review', user.user.id, 'manual_review');
  const timer: Timer = { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: '', next: '', lastUpdated: '' } };
  const run = () => loggedAtInfo(host, () => syncRetryTimer.handler(timer, new InvocationContext({ invocationId: 'idle', functionName: syncRetryTimer.name })));
  const backlog = (lines: Record<string, any>[]) =>
    lines
      .filter((line) => line.msg === SYNC_BACKLOG_MESSAGE)
      .map(({ syncsPending, oldestPendingSeconds, manualReview }) => ({ syncsPending, oldestPendingSeconds, manualReview }));

  // The first run counts in SQL and marks the work idle; the second reads the marker only.
  expect(backlog(await run())).toEqual([{ syncsPending: 0, oldestPendingSeconds: 0, manualReview: 1 }]);
  // A payment written behind the marker's back is not seen while it is idle: SQL was not asked.
  await owedPayment('pi_unseen', user.user.id, 'manual_review');
  expect(backlog(await run())).toEqual([{ syncsPending: 0, oldestPendingSeconds: 0, manualReview: 1 }]);
});
