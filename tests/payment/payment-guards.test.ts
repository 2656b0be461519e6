import { config } from '../../shared/config';
import { acquireSyncLease, findPayment, renewSyncLease, unsyncedPayments } from '../../functions/payment/payments';
import { readFailedSync } from '../../functions/payment/failed-sync-records';
import { startTestHost, type TestHost } from '../helpers/host';
import { planInIdentity, signIn } from '../helpers/identity';
import { deliver, paymentIntentObject, stripeEvent } from './helpers';

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

describe('a signed success event for a PaymentIntent this service never created', () => {
  test("that paid less than the plan's price goes to manual review: logged, listed for admins, plan unchanged", async () => {
    const user = await signIn(host, 'one-cent@example.com');
    const event = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_one_cent', { userId: user.user.id, planType: 'enterprise', amount: 1 }));
    const res = await deliver(host, event);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, duplicate: false, action: 'manual_review' });
    expect(res.body.sync).toBeUndefined();
    expect(await planInIdentity(host, user)).toBe('free');
    expect(await findPayment('pi_one_cent')).toMatchObject({
      status: 'succeeded',
      amount: 1,
      sync: { state: 'manual_review', plan: 'enterprise', error: expect.stringContaining('costs 9900 usd') },
    });
    expect((await unsyncedPayments()).map((p) => p.id)).toContain('pi_one_cent');
  });

  test('in another currency goes to manual review too', async () => {
    const user = await signIn(host, 'wrong-currency@example.com');
    const res = await deliver(
      host,
      stripeEvent(
        'payment_intent.succeeded',
        paymentIntentObject('pi_wrong_currency', { userId: user.user.id, planType: 'pro', amount: 2900, currency: 'jpy' }),
      ),
    );
    expect(res.body).toMatchObject({ action: 'manual_review' });
    expect(await planInIdentity(host, user)).toBe('free');
  });

  test("that paid exactly the plan's price grants it", async () => {
    const user = await signIn(host, 'exact@example.com');
    const res = await deliver(
      host,
      stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_exact', { userId: user.user.id, planType: 'pro', amount: 2900 })),
    );
    expect(res.body).toMatchObject({ action: 'applied', sync: { success: true, plan: 'pro' } });
    expect(await planInIdentity(host, user)).toBe('pro');
  });
});

describe('plan syncs are ordered by request time', () => {
  test('a push identity refuses as older than the update it applied is superseded, not a failure', async () => {
    const user = await signIn(host, 'raced@example.com');
    // Another push, requested later than this one will be, already set enterprise.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const put = await host.fetch(`/identity/admin/users/${user.user.id}/plan`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${config().AUTH_ADMIN_TOKEN}`, 'x-service': 'payment-service', 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'enterprise', status: 'active', updatedBy: 'payment-service', timestamp: later }),
    });
    expect(put.status).toBe(200);
    const res = await deliver(
      host,
      stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_raced', { userId: user.user.id, planType: 'pro', amount: 2900 })),
    );
    expect(res.body).toMatchObject({ action: 'applied', sync: { success: true, superseded: true, plan: 'enterprise' } });
    expect(await findPayment('pi_raced')).toMatchObject({ sync: { state: 'superseded' } });
    expect(await readFailedSync(user.user.id)).toBeUndefined();
    expect(await planInIdentity(host, user)).toBe('enterprise');
  });

  test('the sync lease is renewed by its holder and lost once another instance took it over', async () => {
    const start = new Date();
    expect(await acquireSyncLease('lease-user', 'instance-a', start, 1_000)).toBe(true);
    expect(await renewSyncLease('lease-user', 'instance-a', start, 60_000)).toBe(true);
    // Renewed: still held two seconds later, past the first lifetime.
    expect(await acquireSyncLease('lease-user', 'instance-b', new Date(start.getTime() + 2_000), 1_000)).toBe(false);
    expect(await acquireSyncLease('lease-user', 'instance-b', new Date(start.getTime() + 61_000), 1_000)).toBe(true);
    expect(await renewSyncLease('lease-user', 'instance-a', new Date(start.getTime() + 61_000), 60_000)).toBe(false);
  });
});
