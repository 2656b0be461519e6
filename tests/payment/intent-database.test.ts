import { findPayment } from '../../functions/payment/payments';
import { startTestHost, withDatabaseClosed, type TestHost } from '../helpers/host';
import { expectErrorAnswer } from '../helpers/errors';
import { bearer, signIn } from '../helpers/identity';
import { paymentOn } from './helpers';

/**
 * A payment is recorded as pending before its client secret is returned (docs/payment.md): a client
 * never holds an intent it could pay that we have no record of. The fault is real: the host's
 * database connection is closed after the caller's session was confirmed (payment keeps identity's
 * answer for SESSION_CHECK_CACHE_SECONDS on the host's clock, which stands still here, so the
 * request reaches the insert however slow the machine), then opened again.
 */
let host: TestHost;
beforeAll(async () => {
  const at = Date.now();
  host = await startTestHost({ clock: { now: () => new Date(at) } });
});
afterAll(() => host.stop());

test('a closed database: 500 and no client secret; the retry with the same Idempotency-Key gets the same intent, now recorded', async () => {
  const user = await signIn(host, 'intent-db-down@example.com');
  const create = () =>
    host.fetch('/payment/create-payment-intent', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'checkout-intent-db-down', ...bearer(user.accessToken) },
      body: JSON.stringify({ amount: 2900, planType: 'pro', userId: user.user.id }),
    });
  // Payment asks identity about the session once, and keeps the answer.
  expect((await host.fetch('/payment/user-status', { headers: bearer(user.accessToken) })).status).toBe(200);

  const body = await withDatabaseClosed(host, async () => expectErrorAnswer(await create(), 500, 'INTERNAL'));
  expect(body).not.toHaveProperty('clientSecret');

  const retried = await create();
  expect(retried.status).toBe(200);
  const intent = (await retried.json()) as { paymentIntentId: string; clientSecret: string };
  expect(intent.clientSecret).toMatch(/^pi_.+_secret_/);
  expect(await findPayment(paymentOn(host).db, intent.paymentIntentId)).toMatchObject({ userId: user.user.id, planType: 'pro', status: 'pending' });
});
