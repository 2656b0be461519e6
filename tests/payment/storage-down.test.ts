import { InvocationContext, type Timer } from '@azure/functions';
import { syncRetryTimer } from '../../functions/payment';
import { findPayment } from '../../functions/payment/payments';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, planInIdentity, signIn } from '../helpers/identity';
import { deadUrl, deliver, paymentIntentObject, pointIdentityAt, stripeEvent } from './helpers';

/**
 * Table Storage down while a plan sync fails: the webhook still answers 200 and says
 * `retryStored: false` (the 24-hour failed-sync record could not be written), and the retry timer,
 * which works from SQL, still brings identity up to date. The fault is real: the host's Azurite is
 * stopped, so every Table call meets a closed port.
 */
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ env: { PAYMENT_SYNC_TIMEOUT_MS: '800' } });
});
afterAll(() => host.stop());
afterEach(() => {
  jest.useRealTimers();
  pointIdentityAt(undefined);
});

const timer: Timer = { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: '', next: '', lastUpdated: '' } };

test('identity down and Table Storage down: 200 with retryStored false, the sync kept in SQL, and the timer finishes it', async () => {
  const user = await signIn(host, 'no-storage@example.com');
  await host.azurite!.stop();

  pointIdentityAt(await deadUrl());
  const event = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_no_storage', { userId: user.user.id, planType: 'pro', amount: 2900 }));
  const res = await deliver(host, event);
  expect(res.status).toBe(200);
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
  const status = await host.fetch('/payment/user-status', { headers: bearer(user.accessToken) });
  expect(status.status).toBe(200);
  expect(await status.json()).toMatchObject({
    plan: 'free',
    sync: { state: 'failed', plan: 'pro', paymentIntentId: 'pi_no_storage', attempts: 1, nextAttemptAt: res.body.sync.nextAttemptAt },
    failedSyncRecord: null,
  });

  // The retry timer, when the attempt is due, pushes the plan: Storage is still down, and it does not matter.
  jest.useFakeTimers({
    doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'],
  });
  jest.setSystemTime(new Date(res.body.sync.nextAttemptAt).getTime() + 1);
  await syncRetryTimer.handler(timer, new InvocationContext({ invocationId: 'storage-down', functionName: syncRetryTimer.name }));
  jest.useRealTimers();
  expect(await findPayment('pi_no_storage')).toMatchObject({ status: 'succeeded', sync: { state: 'synced', plan: 'pro', attempts: 1 } });
  expect(await planInIdentity(host, user)).toBe('pro');
  // Every Table call first waits out the Storage SDK's retries of a refused connection: a longer allowance than a test's default.
}, 180_000);
