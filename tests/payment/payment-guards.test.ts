import { appSettings } from '../helpers/context';

import { acquireSyncLease, findPayment, renewSyncLease, unsyncedPayments } from '../../functions/payment/payments';
import { readFailedSync } from '../../functions/payment/failed-sync-records';
import { startTestHost, type TestHost } from '../helpers/host';
import { planInIdentity, signIn } from '../helpers/identity';
import { loggedDuring } from '../helpers/logs';
import { deliver, paymentIntentObject, paymentOn, stripeEvent } from './helpers';

let host: TestHost;
/** payment's database on the host. */
const db = () => paymentOn(host).db;
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
    expect(await findPayment(db(), 'pi_one_cent')).toMatchObject({
      status: 'succeeded',
      amount: 1,
      sync: { state: 'manual_review', plan: 'enterprise', error: expect.stringContaining('costs 9900 usd') },
    });
    expect((await unsyncedPayments(db())).map((p) => p.id)).toContain('pi_one_cent');
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
  const putPlan = (userId: string, body: object, authorization = `Bearer ${appSettings().AUTH_ADMIN_TOKEN}`, service = true) =>
    host.fetch(`/identity/admin/users/${userId}/plan`, {
      method: 'PUT',
      headers: { authorization, ...(service ? { 'x-service': 'payment-service' } : {}), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  test('a paid plan identity refuses as older than the update it applied is kept for a person: manual review, listed, alerted', async () => {
    const user = await signIn(host, 'raced@example.com');
    // Another update, requested later than this push will be (within the clock skew identity allows), already set enterprise.
    const later = new Date(Date.now() + 4 * 60_000).toISOString();
    expect((await putPlan(user.user.id, { plan: 'enterprise', status: 'active', updatedBy: 'payment-service', timestamp: later })).status).toBe(200);
    const { result: res, lines } = await loggedDuring(() =>
      deliver(host, stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_raced', { userId: user.user.id, planType: 'pro', amount: 2900 }))),
    );
    expect(res.body).toMatchObject({ action: 'applied', sync: { success: false, state: 'manual_review', userId: user.user.id } });
    // The alert says what a person must do; no retry can help, so it comes at the first attempt.
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'MANUAL REVIEW: a paid plan was refused by identity as older than its current plan; an operator approves the payment (its plan is pushed now) or rejects it (the current plan stays)',
        userId: user.user.id,
        paymentIntentId: 'pi_raced',
        attempts: 1,
        category: 'manual_review',
      }),
    );
    expect(res.body.sync.details).toContain('the paid plan pro was not applied');
    expect(await findPayment(db(), 'pi_raced')).toMatchObject({
      sync: { state: 'manual_review', plan: 'pro', error: expect.stringContaining('identity holds enterprise') },
    });
    expect((await unsyncedPayments(db())).map((p) => p.id)).toContain('pi_raced');
    expect(await readFailedSync(paymentOn(host), user.user.id, host.platform.clock.now())).toMatchObject({ planType: 'pro' });
    expect(await planInIdentity(host, user)).toBe('enterprise');
  });

  test('a push identity refuses when it already holds the paid plan is synced', async () => {
    const user = await signIn(host, 'raced-same@example.com');
    const later = new Date(Date.now() + 4 * 60_000).toISOString();
    expect((await putPlan(user.user.id, { plan: 'pro', status: 'active', updatedBy: 'payment-service', timestamp: later })).status).toBe(200);
    const res = await deliver(
      host,
      stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_raced_same', { userId: user.user.id, planType: 'pro', amount: 2900 })),
    );
    expect(res.body).toMatchObject({ action: 'applied', sync: { success: true, plan: 'pro' } });
    expect(await findPayment(db(), 'pi_raced_same')).toMatchObject({ sync: { state: 'synced' } });
    expect((await unsyncedPayments(db())).map((p) => p.id)).not.toContain('pi_raced_same');
  });

  test('a timestamp more than 5 minutes ahead is refused on the plan route, for an admin and for the service token alike; later payments still apply', async () => {
    const user = await signIn(host, 'far-future@example.com');
    const admin = await signIn(host, 'admin@example.com');
    const future = { plan: 'free', timestamp: '9999-12-31T23:59:59.999Z' };
    for (const res of [await putPlan(user.user.id, future, `Bearer ${admin.accessToken}`, false), await putPlan(user.user.id, future)]) {
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'PLAN_TIMESTAMP_IN_FUTURE', field: 'timestamp', maxSkewSeconds: 300 });
    }
    const res = await deliver(
      host,
      stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_after_future', { userId: user.user.id, planType: 'pro', amount: 2900 })),
    );
    expect(res.body).toMatchObject({ action: 'applied', sync: { success: true, plan: 'pro' } });
    expect(await planInIdentity(host, user)).toBe('pro');
  });

  test('the sync lease is renewed by its holder and lost once another instance took it over', async () => {
    const start = new Date();
    expect(await acquireSyncLease(db(), 'lease-user', 'instance-a', start, 1_000)).toBe(true);
    expect(await renewSyncLease(db(), 'lease-user', 'instance-a', start, 60_000)).toBe(true);
    // Renewed: still held two seconds later, past the first lifetime.
    expect(await acquireSyncLease(db(), 'lease-user', 'instance-b', new Date(start.getTime() + 2_000), 1_000)).toBe(false);
    expect(await acquireSyncLease(db(), 'lease-user', 'instance-b', new Date(start.getTime() + 61_000), 1_000)).toBe(true);
    expect(await renewSyncLease(db(), 'lease-user', 'instance-a', new Date(start.getTime() + 61_000), 60_000)).toBe(false);
  });
});
