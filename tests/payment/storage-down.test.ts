import { InvocationContext, type Timer } from '@azure/functions';
import { syncRetryTimer } from '../../functions/payment';
import { findPayment } from '../../functions/payment/payments';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, planInIdentity, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { loggedDuring } from '../helpers/logs';
import { deadUrl, deliver, paymentIntentObject, paymentOn, pointIdentityAt, stripeEvent } from './helpers';

/**
 * Table Storage down while a plan sync fails: the webhook still answers 200 and says
 * `retryStored: false` (the 24-hour failed-sync record could not be written), and the retry timer,
 * which works from SQL, still brings identity up to date; each missing record is logged for its
 * user; a record that could not be read is logged, and the operators' list says the records are
 * out of reach (`failedSyncRecordsAvailable: false`) rather than showing none.
 * A sync that never failed does not look for a failed-sync record at all. The fault is real:
 * the host's Azurite is stopped, so every Table call meets a closed port.
 */
let host: TestHost;
let failing: SignedIn;
let clean: SignedIn;
let admin: SignedIn;
beforeAll(async () => {
  // Retries an hour apart: the host's own sync-retry timer runs on its schedule in real time, and a
  // retry due within the test (30 s by default) would finish the sync before the test reads it unsynced.
  host = await startTestHost({ env: { PAYMENT_SYNC_TIMEOUT_MS: '800', LOG_LEVEL: 'warn', PAYMENT_SYNC_RETRY_BASE_SECONDS: '3600' } });
  failing = await signIn(host, 'no-storage@example.com');
  clean = await signIn(host, 'clean-sync@example.com');
  admin = await signInAdmin(host);
  await host.azurite!.stop();
});
afterAll(() => host.stop());
afterEach(() => {
  jest.useRealTimers();
  pointIdentityAt(undefined);
});

const timer: Timer = { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: '', next: '', lastUpdated: '' } };

test('identity down and Table Storage down: 200 with retryStored false, the sync kept in SQL, and the timer finishes it', async () => {
  const user = failing;
  pointIdentityAt(await deadUrl());
  const event = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_no_storage', { userId: user.user.id, planType: 'pro', amount: 2900 }));
  const { result: res, lines } = await loggedDuring(() => deliver(host, event));
  expect(res.status).toBe(200);
  // SQL has the failure; the log says the 24-hour copy is missing, and for whom.
  expect(lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'could not store the failed-sync record', userId: user.user.id }));
  // The idle marker of plan-sync work could not be set either: said, and the event still applied.
  expect(lines).toContainEqual(
    expect.objectContaining({
      level: 'warn',
      msg: 'could not mark plan-sync work in Table Storage; the retry timer reads SQL while Storage is down',
      error: expect.any(String),
    }),
  );
  expect(res.body).toMatchObject({ received: true, duplicate: false, action: 'applied', paymentIntentId: 'pi_no_storage' });
  expect(res.body.sync).toEqual({
    success: false,
    error: 'Identity service unavailable',
    details: expect.stringMatching(/ECONNREFUSED/),
    userId: user.user.id,
    retryStored: false,
    state: 'failed',
    nextAttemptAt: expect.any(String),
  });

  // SQL holds the failed sync and its next attempt; the status route says so without the record.
  pointIdentityAt(undefined);
  const { result: status, lines: statusLines } = await loggedDuring(() => host.fetch('/payment/user-status', { headers: bearer(user.accessToken) }));
  expect(status.status).toBe(200);
  expect(await status.json()).toMatchObject({
    plan: 'free',
    sync: { state: 'failed', plan: 'pro', paymentIntentId: 'pi_no_storage', attempts: 1, nextAttemptAt: res.body.sync.nextAttemptAt },
    failedSyncRecord: null,
  });
  // Not "no record": the record could not be read, and the log says so.
  expect(statusLines).toContainEqual(
    expect.objectContaining({
      level: 'warn',
      msg: 'could not read the failed-sync record',
      error: expect.objectContaining({ message: expect.stringMatching(/ECONNREFUSED/) }),
    }),
  );
  // The operators' list says the records are out of reach instead of showing none.
  const unsynced = await host.fetch('/payment/admin/unsynced', { headers: bearer(admin.accessToken) });
  expect(unsynced.status).toBe(200);
  expect(await unsynced.json()).toMatchObject({
    failedSyncRecordsAvailable: false,
    payments: [expect.objectContaining({ paymentIntentId: 'pi_no_storage', failedSyncRecord: null })],
  });

  // The retry timer, when the attempt is due, pushes the plan: Storage is still down, and it does not matter.
  jest.useFakeTimers({
    doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'],
  });
  jest.setSystemTime(new Date(res.body.sync.nextAttemptAt).getTime() + 1);
  const retried = await loggedDuring(() =>
    syncRetryTimer.handler(timer, new InvocationContext({ invocationId: 'storage-down', functionName: syncRetryTimer.name })),
  );
  jest.useRealTimers();
  // The record it would delete is out of reach: a warning, and the sync still counts.
  expect(retried.lines).toContainEqual(
    expect.objectContaining({ level: 'warn', msg: 'could not delete the failed-sync record; it expires on its own', userId: user.user.id }),
  );
  expect(await findPayment(paymentOn(host).db, 'pi_no_storage')).toMatchObject({ status: 'succeeded', sync: { state: 'synced', plan: 'pro', attempts: 1 } });
  expect(await planInIdentity(host, user)).toBe('pro');
  // Every Table call first waits out the Storage SDK's retries of a refused connection: a longer allowance than a test's default.
}, 180_000);

test('a sync that never failed does not ask Table Storage for a failed-sync record: with Storage down it succeeds and warns of none', async () => {
  const event = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_clean_sync', { userId: clean.user.id, planType: 'pro', amount: 2900 }));
  const { result: res, lines } = await loggedDuring(() => deliver(host, event));
  expect(res.body).toMatchObject({ action: 'applied', sync: { success: true, plan: 'pro', paymentIntentId: 'pi_clean_sync' } });
  expect(lines.filter((line) => /failed-sync/.test(line.msg))).toEqual([]);
  expect(await planInIdentity(host, clean)).toBe('pro');
});
