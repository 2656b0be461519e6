import { startTestHost, type TestHost } from '../helpers/host';
import { planInIdentity, signIn } from '../helpers/identity';
import { db } from '../../shared/sql/db';
import { findPayment } from '../../functions/payment/payments';
import { chargeObject, checkout, deliver, paymentIntentObject, paymentOn, startIdentityFront, stripeEvent } from './helpers';

/**
 * Stripe delivers at least once and in any order. Identity is the real one; a counting front in
 * between shows how many plan updates actually reached it.
 */
let host: TestHost;
let front: Awaited<ReturnType<typeof startIdentityFront>>;
beforeAll(async () => {
  front = await startIdentityFront(() => host.url);
  host = await startTestHost({ env: { IDENTITY_URL: front.url } });
});
afterAll(async () => {
  await host.stop();
  await front.stop();
});

const plansPushed = (userId: string) => front.state.planUpdates.filter((u) => u.userId === userId).map((u) => u.body.plan);
const eventRows = async (paymentIntentId: string) =>
  (await (db() as any).selectFrom('payment_webhook_events').select('id').where('payment_intent_id', '=', paymentIntentId).execute()).length;

test('the same event delivered 5 times (concurrently too) updates identity once; repeats answer 200 duplicate', async () => {
  const user = await signIn(host, 'dup@example.com');
  const event = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_dup', { userId: user.user.id, planType: 'pro', amount: 2900 }));
  const first = await deliver(host, event);
  expect(first.body).toMatchObject({ duplicate: false, action: 'applied', sync: { success: true } });
  const repeats = await Promise.all([1, 2, 3, 4].map(() => deliver(host, event)));
  for (const r of repeats) {
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ received: true, eventId: event.id, duplicate: true, action: 'duplicate' });
    expect(r.body.sync).toBeUndefined();
  }
  expect(plansPushed(user.user.id)).toEqual(['pro']);
  expect(await eventRows('pi_dup')).toBe(1);
  expect(await planInIdentity(host, user)).toBe('pro');
});

test('out of order: an older purchase delivered after a newer one never overwrites the newer plan', async () => {
  const user = await signIn(host, 'order@example.com');
  const userId = user.user.id;
  const t = Math.floor(Date.now() / 1000);
  const older = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_old_pro', { userId, planType: 'pro', amount: 2900 }), { created: t - 600 });
  const newer = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_new_ent', { userId, planType: 'enterprise', amount: 9900 }), {
    created: t - 60,
  });
  expect((await deliver(host, newer)).body.sync).toMatchObject({ success: true, plan: 'enterprise' });
  const late = await deliver(host, older);
  expect(late.status).toBe(200);
  expect(late.body).toMatchObject({ duplicate: false, action: 'applied', sync: { success: true, upToDate: true } });
  expect(plansPushed(userId)).toEqual(['enterprise']);
  expect(await planInIdentity(host, user)).toBe('enterprise');
  expect(await findPayment(paymentOn(host).db, 'pi_old_pro')).toMatchObject({ status: 'succeeded', sync: { state: 'superseded' } });
  // And five more deliveries of both, interleaved, change nothing.
  for (let i = 0; i < 5; i++) {
    await deliver(host, i % 2 ? older : newer);
  }
  expect(plansPushed(userId)).toEqual(['enterprise']);
});

test('a refund of a payment never recorded here is acknowledged as unknown_payment and changes nothing', async () => {
  const event = stripeEvent('charge.refunded', chargeObject('pi_never_recorded', 2900, 2900));
  const pushesBefore = front.state.planUpdates.length;
  const res = await deliver(host, event);
  expect(res.status).toBe(200);
  // No sync: there is no user to push a plan for.
  expect(res.body).toEqual({
    received: true,
    eventId: event.id,
    type: 'charge.refunded',
    duplicate: false,
    action: 'unknown_payment',
    paymentIntentId: 'pi_never_recorded',
  });
  expect(await findPayment(paymentOn(host).db, 'pi_never_recorded')).toBeUndefined();
  expect(front.state.planUpdates.length).toBe(pushesBefore);
  // The event is recorded as seen: Stripe's redelivery is a duplicate.
  expect(await eventRows('pi_never_recorded')).toBe(1);
  expect((await deliver(host, event)).body).toMatchObject({ duplicate: true, action: 'duplicate' });
});

test('a full refund returns the user to free through the same sync path', async () => {
  const user = await signIn(host, 'refund@example.com');
  const userId = user.user.id;
  const t = Math.floor(Date.now() / 1000);
  await deliver(
    host,
    stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_refund', { userId, planType: 'pro', amount: 2900 }), { created: t - 100 }),
  );
  expect(await planInIdentity(host, user)).toBe('pro');
  const partial = await deliver(host, stripeEvent('charge.refunded', chargeObject('pi_refund', 2900, 1000), { created: t - 50 }));
  expect(partial.body).toMatchObject({ action: 'partial_refund' });
  expect(await planInIdentity(host, user)).toBe('pro');
  const full = await deliver(host, stripeEvent('charge.refunded', chargeObject('pi_refund', 2900, 2900), { created: t - 10 }));
  expect(full.body).toMatchObject({ action: 'applied', sync: { success: true, plan: 'free' } });
  expect(plansPushed(userId)).toEqual(['pro', 'free']);
  expect(await planInIdentity(host, user)).toBe('free');
  expect(await findPayment(paymentOn(host).db, 'pi_refund')).toMatchObject({ status: 'refunded', sync: { state: 'synced', plan: 'free' } });
});

test('a refund delivered before its purchase: the late success event cannot resurrect the plan', async () => {
  const user = await signIn(host, 'refund-first@example.com');
  const userId = user.user.id;
  const t = Math.floor(Date.now() / 1000);
  const pi = await checkout(host, user, 'pro', 2900);
  const success = stripeEvent('payment_intent.succeeded', paymentIntentObject(pi, { userId, planType: 'pro', amount: 2900 }), { created: t - 100 });
  const refund = await deliver(host, stripeEvent('charge.refunded', chargeObject(pi, 2900, 2900), { created: t - 10 }));
  expect(refund.body.sync).toMatchObject({ success: true, plan: 'free' });
  const late = await deliver(host, success);
  expect(late.body).toMatchObject({ action: 'stale' });
  expect(plansPushed(userId)).toEqual(['free']);
  expect(await planInIdentity(host, user)).toBe('free');
  expect(await findPayment(paymentOn(host).db, pi)).toMatchObject({ status: 'refunded' });
});

test('payment_intent.payment_failed is recorded; a later success on the same intent still upgrades', async () => {
  const user = await signIn(host, 'retry-card@example.com');
  const userId = user.user.id;
  const t = Math.floor(Date.now() / 1000);
  const failedIntent = {
    ...paymentIntentObject('pi_retry', { userId, planType: 'pro', amount: 2900, status: 'requires_payment_method' }),
    last_payment_error: { message: 'Your card was declined.' },
  };
  const failed = await deliver(host, stripeEvent('payment_intent.payment_failed', failedIntent, { created: t - 30 }));
  expect(failed.body).toMatchObject({ action: 'applied' });
  expect(failed.body.sync).toBeUndefined();
  expect(await findPayment(paymentOn(host).db, 'pi_retry')).toMatchObject({
    status: 'failed',
    failureMessage: 'Your card was declined.',
    sync: { state: 'not_required' },
  });
  await deliver(host, stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_retry', { userId, planType: 'pro', amount: 2900 }), { created: t - 5 }));
  expect(await planInIdentity(host, user)).toBe('pro');
});

test('a signed event that contradicts the payment record is not synced and goes to manual review', async () => {
  const user = await signIn(host, 'mismatch@example.com');
  const paymentIntentId = await checkout(host, user, 'pro', 2900);
  const forged = paymentIntentObject(paymentIntentId, { userId: user.user.id, planType: 'enterprise', amount: 2900 });
  const res = { user, paymentIntentId, response: await deliver(host, stripeEvent('payment_intent.succeeded', forged)) };
  expect(res.response.status).toBe(200);
  expect(res.response.body).toMatchObject({ action: 'contradicts_record' });
  expect(res.response.body.sync).toBeUndefined();
  expect(await findPayment(paymentOn(host).db, res.paymentIntentId)).toMatchObject({
    status: 'succeeded',
    sync: { state: 'manual_review', error: expect.stringContaining('metadata.planType') },
  });
  expect(await planInIdentity(host, res.user)).toBe('free');
});

test('an event without usable metadata is acknowledged and not attributed to anyone', async () => {
  const res = await deliver(
    host,
    stripeEvent('payment_intent.succeeded', { id: 'pi_nometa', object: 'payment_intent', amount: 2900, currency: 'usd', metadata: {} }),
  );
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ action: 'unattributable' });
  expect(await findPayment(paymentOn(host).db, 'pi_nometa')).toBeUndefined();
});
