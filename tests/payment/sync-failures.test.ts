import { appSettings } from '../helpers/context';
import { InvocationContext, type Timer } from '@azure/functions';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, planInIdentity, signIn } from '../helpers/identity';
import { table } from '../../shared/storage';

import { payment, syncRetryTimer, failedSyncCleanupTimer } from '../../functions/payment';
import { FAILED_SYNC_PARTITION, failedSyncKey, readFailedSync, storeFailedSync } from '../../functions/payment/failed-sync-records';
import { findPayment } from '../../functions/payment/payments';
import { replayUnsynced } from '../../functions/payment/replay';
import { cleanUpExpiredRecords } from '../../functions/payment/sync-timers';
import { loggedDuring } from '../helpers/logs';
import {
  deadUrl,
  deliver,
  FRONT_ANSWERS,
  paymentIntentObject,
  paymentOn,
  pointIdentityAt,
  startIdentityFront,
  stripeEvent,
  type IdentityMode,
} from './helpers';

/**
 * Identity failing in each way (unavailable, 401, 404, 400, and the platform in front of it answering
 * 429 or 500): the payment still succeeds, the failed-sync record is in Table Storage under its exact
 * key (auth_sync_failed:<userId>), and the retry timer finishes the job once identity is back.
 * Identity is the real one of the dev host; a loopback front in between answers as FRONT_ANSWERS
 * says or hangs on demand, and "down" points {auth_url} at a port nobody listens on.
 */
let host: TestHost;
let front: Awaited<ReturnType<typeof startIdentityFront>>;
const FAKE_CLOCK: Parameters<typeof jest.useFakeTimers>[0] = {
  doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'],
};

beforeAll(async () => {
  front = await startIdentityFront(() => host.url);
  host = await startTestHost({
    env: { LOG_LEVEL: 'warn', IDENTITY_URL: front.url, PAYMENT_SYNC_TIMEOUT_MS: '800', PAYMENT_SYNC_MAX_ATTEMPTS: '3', PAYMENT_SYNC_RETRY_BASE_SECONDS: '30' },
  });
});
afterAll(async () => {
  await host.stop();
  await front.stop();
});
afterEach(() => {
  jest.useRealTimers();
  host.platform.random = Math.random;
  front.reset();
  pointIdentityAt(front.url);
});

const timer: Timer = { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: '', next: '', lastUpdated: '' } };
const runTimer = (fn: typeof syncRetryTimer) => fn.handler(timer, new InvocationContext({ invocationId: 'test', functionName: fn.name }));

async function rawRecord(userId: string) {
  const client = await table(appSettings().PAYMENT_FAILED_SYNC_TABLE);
  try {
    return await client.getEntity<{ value: string; expiresAt: Date }>(FAILED_SYNC_PARTITION, failedSyncKey(userId));
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return undefined;
    throw error;
  }
}

/** A pattern matching `text` and nothing else. */
const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

const scenarios: { name: string; mode: IdentityMode | 'down'; error: string; details: RegExp; logged: RegExp }[] = [
  {
    name: 'identity down (connection refused)',
    mode: 'down',
    error: 'Identity service unavailable',
    details: /^ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:\d+$/,
    logged: /"level":"warn".*"msg":"plan sync to identity failed; will retry"/,
  },
  {
    name: 'identity answering 401 (service token refused)',
    mode: 'unauthorized',
    error: 'Identity rejected the service token',
    details: /Invalid service token/,
    logged: /"level":"error".*"category":"security".*"msg":"SECURITY INCIDENT/,
  },
  {
    name: 'identity answering 404 (user unknown)',
    mode: 'not_found',
    error: 'User not found in identity',
    details: /User not found/,
    logged: /"level":"error".*"category":"inconsistency".*"msg":"INCONSISTENCY/,
  },
  {
    name: 'identity hanging past the timeout',
    mode: 'hang',
    error: 'Identity service unavailable',
    details: /no answer within 800 ms/,
    logged: /no answer within 800 ms.*"msg":"plan sync to identity failed; will retry"/,
  },
  {
    name: 'identity refusing the update as invalid (400)',
    mode: 'invalid',
    error: 'Identity answered 400',
    details: exactly(FRONT_ANSWERS.invalid.body),
    logged: /"level":"warn".*"failure":"rejected","status":400.*"msg":"plan sync to identity failed; will retry"/,
  },
  {
    name: 'the platform in front of identity throttling (429, an answer of exactly the 300 characters kept)',
    mode: 'throttled',
    error: 'Identity answered 429',
    details: exactly(FRONT_ANSWERS.throttled.body),
    logged: /"level":"warn".*"failure":"unavailable","status":429.*"msg":"plan sync to identity failed; will retry"/,
  },
  {
    name: 'the platform in front of identity failing (500, its HTML page cut to 300 characters)',
    mode: 'failing',
    error: 'Identity answered 500',
    details: exactly(`${FRONT_ANSWERS.failing.body.slice(0, 300)}...`),
    logged: /"level":"warn".*"failure":"unavailable","status":500.*"msg":"plan sync to identity failed; will retry"/,
  },
];

test.each(scenarios)(
  '$name: payment succeeds, failed-sync record stored, timer retries successfully once identity is back',
  async ({ mode, error, details, logged }) => {
    const user = await signIn(host, `sync-${mode}@example.com`);
    const userId = user.user.id;
    if (mode === 'down') pointIdentityAt(await deadUrl());
    else front.state.mode = mode;

    const started = Date.now();
    const event = stripeEvent('payment_intent.succeeded', paymentIntentObject(`pi_${mode}_1`, { userId, planType: 'pro', amount: 2900 }));
    const { result: res, text, lines } = await loggedDuring(() => deliver(host, event));
    expect(res.status).toBe(200);
    expect(res.body.sync).toEqual({
      success: false,
      error,
      details: expect.stringMatching(details),
      userId,
      retryStored: true,
      state: 'failed',
      nextAttemptAt: expect.any(String),
    });
    expect(text).toMatch(logged);
    // The sync's line names the event that caused it, besides the user and the payment.
    expect(lines.find((line) => line.syncState === 'failed')).toMatchObject({ eventId: event.id, userId, paymentIntentId: `pi_${mode}_1` });
    expect(text).not.toContain(appSettings().AUTH_ADMIN_TOKEN);
    // One failure is retried, not yet a case for a person.
    expect(text).not.toContain('MANUAL REVIEW');

    const payment1 = await findPayment(paymentOn(host).db, `pi_${mode}_1`);
    expect(payment1).toMatchObject({ status: 'succeeded', userId, planType: 'pro', sync: { state: 'failed', plan: 'pro', attempts: 1 } });

    const entity = await rawRecord(userId);
    expect(entity).toBeDefined();
    expect(entity!.partitionKey).toBe('auth_sync_failed');
    expect(entity!.rowKey).toBe(`auth_sync_failed:${userId}`);
    const value = JSON.parse(entity!.value);
    expect(Object.keys(value).sort()).toEqual(['error', 'planType', 'retryCount', 'timestamp', 'userId']);
    expect(value).toEqual({ userId, planType: 'pro', error, timestamp: expect.any(String), retryCount: 0 });
    expect(new Date(value.timestamp).toISOString()).toBe(value.timestamp);
    expect(new Date(value.timestamp).getTime()).toBeGreaterThanOrEqual(started - 1000);
    expect(new Date(entity!.expiresAt).getTime() - new Date(value.timestamp).getTime()).toBe(86_400_000);
    expect(await planInIdentity(host, user)).toBe('free');

    // Identity comes back; the retry is due at the latest base * 2^0 = 30 s later (full jitter).
    front.state.mode = 'forward';
    pointIdentityAt(front.url);
    jest.useFakeTimers(FAKE_CLOCK);
    jest.setSystemTime(Date.now() + 31_000);
    await runTimer(syncRetryTimer);
    jest.useRealTimers();

    expect(await planInIdentity(host, user)).toBe('pro');
    expect(await findPayment(paymentOn(host).db, `pi_${mode}_1`)).toMatchObject({ status: 'succeeded', sync: { state: 'synced', attempts: 1, error: null } });
    expect(await rawRecord(userId)).toBeUndefined();
    const status = (await (await host.fetch('/payment/user-status', { headers: bearer(user.accessToken) })).json()) as any;
    expect(status).toMatchObject({
      userId,
      plan: 'pro',
      planSource: 'identity',
      sync: { state: 'synced', plan: 'pro', paymentIntentId: `pi_${mode}_1` },
      failedSyncRecord: null,
    });
  },
);

test('the PUT carries the service token, X-Service and the body fields (plan, its period end and source, status active, updatedBy, timestamp)', async () => {
  const user = await signIn(host, 'headers@example.com');
  front.state.planUpdates.length = 0;
  const res = await deliver(
    host,
    stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_headers', { userId: user.user.id, planType: 'enterprise', amount: 9900 })),
  );
  expect(res.body.sync).toEqual({ success: true, userId: user.user.id, plan: 'enterprise', paymentIntentId: 'pi_headers' });
  expect(front.state.planUpdates).toHaveLength(1);
  const [put] = front.state.planUpdates;
  expect(put.headers.authorization).toBe(`Bearer ${appSettings().AUTH_ADMIN_TOKEN}`);
  expect(put.headers['x-service']).toBe(appSettings().PAYMENT_SERVICE_ID);
  expect(put.headers['content-type']).toBe('application/json');
  expect(put.body).toEqual({
    plan: 'enterprise',
    periodEnd: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    source: 'one_off',
    status: 'active',
    updatedBy: appSettings().PAYMENT_SERVICE_ID,
    timestamp: expect.any(String),
  });
  expect(await planInIdentity(host, user)).toBe('enterprise');
});

test('backoff grows with full jitter, retryCount counts up, the cap sends the payment to manual review, which replay leaves alone and an approval finishes', async () => {
  const user = await signIn(host, 'backoff@example.com');
  const userId = user.user.id;
  front.state.mode = 'unauthorized';
  // Jitter from a known source: every draw is 0.75 of the ceiling, so each delay is exact.
  host.platform.random = () => 0.75;
  jest.useFakeTimers(FAKE_CLOCK);
  let now = Date.now();
  jest.setSystemTime(now);
  await deliver(host, stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_backoff', { userId, planType: 'pro', amount: 2900 })));

  // The ceiling doubles per failure (base 30 s: 30 s, then 60 s), so the delay does too.
  for (const [attempt, delay] of [
    [2, 0.75 * 30_000],
    [3, 0.75 * 60_000],
  ]) {
    const before = await findPayment(paymentOn(host).db, 'pi_backoff');
    expect(before!.sync).toMatchObject({ state: 'failed', attempts: attempt - 1 });
    expect(new Date(before!.sync.nextAttemptAt!).getTime() - now).toBe(delay);
    // Not yet due a millisecond before the retry time: nothing happens.
    jest.setSystemTime(now + delay - 1);
    const putsBefore = front.state.planUpdates.length;
    await runTimer(syncRetryTimer);
    expect(front.state.planUpdates.length).toBe(putsBefore);
    expect((await findPayment(paymentOn(host).db, 'pi_backoff'))!.sync.attempts).toBe(attempt - 1);
    // Due at the retry time: one more push, refused again.
    now += delay;
    jest.setSystemTime(now);
    const { lines } = await loggedDuring(() => runTimer(syncRetryTimer));
    expect(front.state.planUpdates.length).toBe(putsBefore + 1);
    const after = await findPayment(paymentOn(host).db, 'pi_backoff');
    expect(after!.sync.attempts).toBe(attempt);
    expect(JSON.parse((await rawRecord(userId))!.value).retryCount).toBe(attempt - 1);
    // The last allowed attempt (PAYMENT_SYNC_MAX_ATTEMPTS 3) hands the payment to a person, once, with an alert line.
    const review = lines.filter((line) => String(line.msg).startsWith('MANUAL REVIEW'));
    expect(review).toEqual(
      attempt < 3
        ? []
        : [
            expect.objectContaining({
              level: 'error',
              msg: 'MANUAL REVIEW: plan sync retries exhausted; an operator approves the payment (its plan is pushed again) or rejects it',
              userId,
              paymentIntentId: 'pi_backoff',
              attempts: 3,
              category: 'manual_review',
            }),
          ],
    );
  }
  const capped = await findPayment(paymentOn(host).db, 'pi_backoff');
  expect(capped!.sync).toMatchObject({ state: 'manual_review', attempts: 3, nextAttemptAt: null });
  expect(capped!.sync.error).toMatch(/Identity rejected the service token/);

  // Manual review is not retried by the timer, however much later.
  const puts = front.state.planUpdates.length;
  jest.setSystemTime(now + 7 * 86_400_000);
  await runTimer(syncRetryTimer);
  expect(front.state.planUpdates.length).toBe(puts);
  jest.useRealTimers();

  // After the token is rotated (identity accepts again), the replay command leaves it alone: it
  // lists only what the retry loop owes, and counts the payment as one waiting for a decision.
  front.state.mode = 'forward';
  const listed = await replayUnsynced(paymentOn(host), { apply: false });
  expect(listed.unsynced.map((p) => p.id)).not.toContain('pi_backoff');
  expect(listed.manualReview).toBeGreaterThanOrEqual(1);
  const replayed = await replayUnsynced(paymentOn(host), { apply: true });
  expect(replayed.results.map((r) => r.userId)).not.toContain(userId);
  expect(await planInIdentity(host, user)).toBe('free');
  expect((await findPayment(paymentOn(host).db, 'pi_backoff'))!.sync.state).toBe('manual_review');
  // An operator's approval pushes the plan and clears the failed-sync record.
  const admin = await signIn(host, 'admin@example.com');
  const approved = await host.fetch('/payment/admin/payments/pi_backoff/approve', {
    method: 'POST',
    headers: { ...bearer(admin.accessToken), 'content-type': 'application/json' },
    body: JSON.stringify({ reason: 'service token rotated' }),
  });
  expect(approved.status).toBe(200);
  expect(((await approved.json()) as any).sync).toEqual({ success: true, userId, plan: 'pro', paymentIntentId: 'pi_backoff' });
  expect(await planInIdentity(host, user)).toBe('pro');
  expect(await rawRecord(userId)).toBeUndefined();
  expect((await findPayment(paymentOn(host).db, 'pi_backoff'))!.sync.state).toBe('synced');
});

test("a newer purchase that syncs supersedes an older failed one and clears the user's failed-sync record", async () => {
  const user = await signIn(host, 'supersede@example.com');
  const userId = user.user.id;
  const t = Math.floor(Date.now() / 1000);
  front.state.mode = 'not_found';
  await deliver(
    host,
    stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_sup_old', { userId, planType: 'pro', amount: 2900 }), { created: t - 60 }),
  );
  expect(await rawRecord(userId)).toBeDefined();
  front.state.mode = 'forward';
  const newer = await deliver(
    host,
    stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_sup_new', { userId, planType: 'enterprise', amount: 9900 }), { created: t - 5 }),
  );
  expect(newer.body.sync).toMatchObject({ success: true, plan: 'enterprise' });
  expect(await findPayment(paymentOn(host).db, 'pi_sup_old')).toMatchObject({ sync: { state: 'superseded' } });
  expect(await rawRecord(userId)).toBeUndefined();
  expect(await planInIdentity(host, user)).toBe('enterprise');
});

test('expired failed-sync records are ignored on read and deleted by the cleanup timer; live ones stay', async () => {
  const base = new Date('2026-11-22T08:00:00.000Z');
  await storeFailedSync(
    paymentOn(host),
    { userId: 'expiring-user', planType: 'pro', error: 'Identity service unavailable', timestamp: base.toISOString(), retryCount: 0 },
    base,
  );
  const later = new Date(base.getTime() + 3_600_000);
  await storeFailedSync(
    paymentOn(host),
    { userId: 'fresh-user', planType: 'enterprise', error: 'Identity service unavailable', timestamp: later.toISOString(), retryCount: 0 },
    later,
  );

  // A record lives 24 hours: read a millisecond before, gone from the millisecond it expires.
  const expiry = base.getTime() + 86_400_000;
  expect(await readFailedSync(paymentOn(host), 'expiring-user', new Date(expiry - 1))).toMatchObject({ userId: 'expiring-user', planType: 'pro' });
  expect(await readFailedSync(paymentOn(host), 'expiring-user', new Date(expiry))).toBeUndefined();
  const expiredAt = new Date(expiry + 1000);
  expect(await rawRecord('expiring-user')).toBeDefined();

  expect(await cleanUpExpiredRecords(paymentOn(host), expiredAt)).toBe(1);
  expect(await rawRecord('expiring-user')).toBeUndefined();
  expect(await rawRecord('fresh-user')).toBeDefined();

  // The registered timer function runs the same cleanup against the current (fake) time.
  jest.useFakeTimers(FAKE_CLOCK);
  jest.setSystemTime(new Date(later.getTime() + 86_400_000 + 1000));
  await runTimer(failedSyncCleanupTimer);
  jest.useRealTimers();
  expect(await rawRecord('fresh-user')).toBeUndefined();
});

test('cleanup deletes more than one batch of 100 expired records', async () => {
  const base = new Date('2026-11-20T00:00:00.000Z');
  await Promise.all(
    Array.from({ length: 130 }, (_, i) =>
      storeFailedSync(paymentOn(host), { userId: `bulk-${i}`, planType: 'pro', error: 'x', timestamp: base.toISOString(), retryCount: 0 }, base),
    ),
  );
  expect(await cleanUpExpiredRecords(paymentOn(host), new Date(base.getTime() + 86_401_000))).toBe(130);
  expect(await rawRecord('bulk-0')).toBeUndefined();
  expect(await rawRecord('bulk-129')).toBeUndefined();
});

test('both timers are registered with the payment service on NCRONTAB schedules', () => {
  const timers = payment.functions.filter((f) => f.kind === 'timer');
  expect(timers.map((t) => [t.name, (t as typeof syncRetryTimer).schedule])).toEqual([
    ['payment-sync-retry', '%PAYMENT_SYNC_RETRY_SCHEDULE%'],
    ['payment-failed-sync-cleanup', '0 */15 * * * *'],
  ]);
});
