import { startTestHost, type TestHost } from '../helpers/host';
import { planInIdentity, signIn } from '../helpers/identity';
import { findPayment } from '../../functions/payment/payments';
import { loggedDuring } from '../helpers/logs';
import { chargeObject, checkout, deliver, paymentIntentObject, paymentOn, stripeEvent } from './helpers';

/**
 * What each signed event does to the payment record, the webhook's answer (whole, not a part of it)
 * and the lines operators are alerted by: events of the same rank, a success older than the failure
 * it follows, an event contradicting the record on every field, events nobody can be credited with.
 */
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ env: { LOG_LEVEL: 'warn' } });
});
afterAll(() => host.stop());

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const answer = (event: { id: string; type: string }, fields: object) => ({ received: true, eventId: event.id, type: event.type, duplicate: false, ...fields });

test('a second failure is stale whatever its time; a success older than the failure still upgrades (a later stage wins)', async () => {
  const user = await signIn(host, 'ranks@example.com');
  const userId = user.user.id;
  const pi = await checkout(host, user, 'pro', 2900);
  const t = Math.floor(Date.now() / 1000);
  const failed = (created: number, message: string | null) =>
    stripeEvent(
      'payment_intent.payment_failed',
      {
        ...paymentIntentObject(pi, { userId, planType: 'pro', amount: 2900, status: 'requires_payment_method' }),
        last_payment_error: message ? { message } : null,
      },
      { created },
    );

  const first = failed(t - 30, 'Your card was declined.');
  expect((await deliver(host, first)).body).toEqual(answer(first, { action: 'applied', paymentIntentId: pi }));
  expect(await findPayment(paymentOn(host).db, pi)).toMatchObject({ status: 'failed', statusAt: iso(t - 30), failureMessage: 'Your card was declined.' });

  for (const repeat of [failed(t - 10, 'Insufficient funds.'), failed(t - 50, null)]) {
    expect((await deliver(host, repeat)).body).toEqual(answer(repeat, { action: 'stale', paymentIntentId: pi }));
  }
  expect(await findPayment(paymentOn(host).db, pi)).toMatchObject({ status: 'failed', statusAt: iso(t - 30), failureMessage: 'Your card was declined.' });

  const success = stripeEvent('payment_intent.succeeded', paymentIntentObject(pi, { userId, planType: 'pro', amount: 2900 }), { created: t - 60 });
  const upgraded = await deliver(host, success);
  expect(upgraded.body).toEqual(answer(success, { action: 'applied', paymentIntentId: pi, sync: { success: true, userId, plan: 'pro', paymentIntentId: pi } }));
  expect(await findPayment(paymentOn(host).db, pi)).toMatchObject({
    status: 'succeeded',
    statusAt: iso(t - 60),
    failureMessage: null,
    sync: { state: 'synced', plan: 'pro' },
  });
  expect(await planInIdentity(host, user)).toBe('pro');
});

test('a failure of a payment not recorded here is recorded as such: "payment failed" when Stripe gives no message, its price version, nothing to sync', async () => {
  const user = await signIn(host, 'unrecorded-failure@example.com');
  const t = Math.floor(Date.now() / 1000);
  const event = stripeEvent(
    'payment_intent.payment_failed',
    paymentIntentObject('pi_unrecorded_failure', { userId: user.user.id, planType: 'enterprise', amount: 9900, status: 'requires_payment_method' }),
    { created: t - 5 },
  );
  expect((await deliver(host, event)).body).toEqual(answer(event, { action: 'applied', paymentIntentId: 'pi_unrecorded_failure' }));
  expect(await findPayment(paymentOn(host).db, 'pi_unrecorded_failure')).toMatchObject({
    userId: user.user.id,
    planType: 'enterprise',
    priceVersion: '2026-01',
    status: 'failed',
    statusAt: iso(t - 5),
    failureMessage: 'payment failed',
    sync: { state: 'not_required', plan: null, nextAttemptAt: null, error: null },
  });
});

test('an event contradicting the record on every field: each difference named, the plan not changed, an inconsistency line', async () => {
  const user = await signIn(host, 'contradicted@example.com');
  const pi = await checkout(host, user, 'pro', 2900);
  const forged = stripeEvent(
    'payment_intent.succeeded',
    paymentIntentObject(pi, { userId: 'someone-else', planType: 'enterprise', amount: 9900, currency: 'eur' }),
  );
  const { result, lines } = await loggedDuring(() => deliver(host, forged));
  expect(result.body).toEqual(answer(forged, { action: 'contradicts_record', paymentIntentId: pi }));
  const problems = [`metadata.userId someone-else != ${user.user.id}`, 'metadata.planType enterprise != pro', 'amount 9900 != 2900', 'currency eur != usd'];
  expect(await findPayment(paymentOn(host).db, pi)).toMatchObject({
    status: 'succeeded',
    sync: { state: 'manual_review', plan: 'pro', error: `event contradicts the payment record: ${problems.join('; ')}` },
  });
  expect(lines.filter((line) => line.level === 'error')).toEqual([
    expect.objectContaining({
      msg: 'INCONSISTENCY: signed event contradicts the payment record; plan not changed, needs manual review',
      paymentIntentId: pi,
      problems,
      category: 'inconsistency',
    }),
  ]);
  expect(await planInIdentity(host, user)).toBe('free');
});

test('events nobody can be credited with: acknowledged, nothing recorded, each with its line', async () => {
  const user = await signIn(host, 'uncredited@example.com');
  const free = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_free_plan', { userId: user.user.id, planType: 'free', amount: 0 }));
  const refund = stripeEvent('charge.refunded', chargeObject('pi_never_seen', 2900, 2900));
  const { result, lines } = await loggedDuring(async () => [await deliver(host, free), await deliver(host, refund)]);
  expect(result.map((r) => r.body)).toEqual([
    answer(free, { action: 'unattributable', paymentIntentId: 'pi_free_plan' }),
    answer(refund, { action: 'unknown_payment', paymentIntentId: 'pi_never_seen' }),
  ]);
  expect(await findPayment(paymentOn(host).db, 'pi_free_plan')).toBeUndefined();
  expect(await findPayment(paymentOn(host).db, 'pi_never_seen')).toBeUndefined();
  expect(lines).toEqual([
    expect.objectContaining({
      level: 'error',
      msg: 'signed payment event without a usable userId/planType in its metadata; needs manual review',
      paymentIntentId: 'pi_free_plan',
      category: 'manual_review',
    }),
    expect.objectContaining({
      level: 'warn',
      msg: 'refund for a payment this service never recorded; acknowledged without action',
      paymentIntentId: 'pi_never_seen',
    }),
  ]);
});

test("an unrecorded payment that did not pay its plan's price: a manual-review line with what was paid, no sync scheduled", async () => {
  const user = await signIn(host, 'underpaid@example.com');
  const event = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_underpaid', { userId: user.user.id, planType: 'pro', amount: 100 }));
  const { result, lines } = await loggedDuring(() => deliver(host, event));
  expect(result.body).toEqual(answer(event, { action: 'manual_review', paymentIntentId: 'pi_underpaid' }));
  expect(lines).toEqual([
    expect.objectContaining({
      level: 'error',
      msg: "MANUAL REVIEW: a payment this service never created does not match its plan's price; plan not changed",
      paymentIntentId: 'pi_underpaid',
      userId: user.user.id,
      planType: 'pro',
      amount: 100,
      currency: 'usd',
      category: 'manual_review',
    }),
  ]);
  expect(await findPayment(paymentOn(host).db, 'pi_underpaid')).toMatchObject({ sync: { state: 'manual_review', plan: 'pro', nextAttemptAt: null } });
});
