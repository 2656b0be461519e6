import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, planInIdentity, signIn, type SignedIn } from '../helpers/identity';
import { findPayment } from '../../functions/payment/payments';
import { paymentOn } from './helpers';

/**
 * Refunds of one-off payments over HTTP on the local Stripe (issue 50): only a full refund of the
 * payment that decides the plan moves it, to the plan of the payments still standing, else free.
 * A refund of a superseded payment, or a partial refund, changes no plan and is recorded.
 */
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

/** Buys a plan as a browser does: the intent from the API, confirmed on the local Stripe, which delivers the signed event. */
async function buy(user: SignedIn, planType: 'pro' | 'enterprise', amount: number): Promise<string> {
  const res = await host.fetch('/payment/create-payment-intent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(user.accessToken) },
    body: JSON.stringify({ amount, planType, userId: user.user.id }),
  });
  expect(res.status).toBe(200);
  const { paymentIntentId } = (await res.json()) as { paymentIntentId: string };
  const confirmed = await paymentOn(host).stripe.paymentIntents.confirm(paymentIntentId, { payment_method: 'pm_card_visa' });
  expect(confirmed.status).toBe('succeeded');
  expect(await planInIdentity(host, user)).toBe(planType);
  return paymentIntentId;
}

/** Events carry whole seconds: a refund the second after a purchase is a newer fact than it, as refunds are in life. */
async function nextSecond(): Promise<void> {
  const second = Math.floor(Date.now() / 1000);
  while (Math.floor(Date.now() / 1000) === second) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Refunds on the local Stripe (in full without an amount); it delivers the signed `charge.refunded` to the webhook. */
async function refund(paymentIntentId: string, amount?: number) {
  await nextSecond();
  const made = await paymentOn(host).stripe.refunds.create({ payment_intent: paymentIntentId, ...(amount ? { amount } : {}) });
  expect(made.status).toBe('succeeded');
  const delivery = decodeURIComponent(String(made.lastResponse.headers['emulator-webhook-delivery'] ?? ''));
  expect(delivery).toMatch(/^charge\.refunded evt_\S+ -> 200 /);
  return JSON.parse(delivery.replace(/^.*? -> 200 /, '')) as { action: string; sync?: { plan?: string } };
}

/** The refund's event, recorded against its payment as every event is. */
async function refundEvents(paymentIntentId: string) {
  return paymentOn(host)
    .db.selectFrom('payment_webhook_events')
    .select(['type'])
    .where('payment_intent_id', '=', paymentIntentId)
    .where('type', '=', 'charge.refunded')
    .execute();
}

test('a full refund of the payment deciding the plan, with nothing else standing: free', async () => {
  const user = await signIn(host, 'refund-only@example.com');
  const a = await buy(user, 'pro', 2900);
  expect(await refund(a)).toMatchObject({ action: 'applied', sync: { success: true, plan: 'free' } });
  expect(await planInIdentity(host, user)).toBe('free');
  expect(await findPayment(paymentOn(host).db, a)).toMatchObject({ status: 'refunded', refund: { amount: 2900 }, sync: { state: 'synced', plan: 'free' } });
  expect(await refundEvents(a)).toHaveLength(1);
});

test('buy Pro, upgrade to Enterprise, refund Pro (the superseded payment): Enterprise stays; the refund is recorded', async () => {
  const user = await signIn(host, 'refund-superseded@example.com');
  const a = await buy(user, 'pro', 2900);
  const b = await buy(user, 'enterprise', 9900);
  const answer = await refund(a);
  expect(answer).toMatchObject({ action: 'applied' });
  expect(answer.sync).toBeUndefined();
  expect(await planInIdentity(host, user)).toBe('enterprise');
  const refunded = await findPayment(paymentOn(host).db, a);
  expect(refunded).toMatchObject({ status: 'refunded', refund: { amount: 2900, at: expect.any(String) } });
  expect(await refundEvents(a)).toHaveLength(1);
  expect(await findPayment(paymentOn(host).db, b)).toMatchObject({ status: 'succeeded', sync: { state: 'synced', plan: 'enterprise' } });

  // Enterprise now decides alone: its full refund leaves nothing standing (the Pro payment was refunded).
  expect(await refund(b)).toMatchObject({ action: 'applied', sync: { success: true, plan: 'free' } });
  expect(await planInIdentity(host, user)).toBe('free');
});

test('buy Pro, upgrade to Enterprise, refund Enterprise (the deciding payment): back to Pro, which still stands', async () => {
  const user = await signIn(host, 'refund-deciding@example.com');
  await buy(user, 'pro', 2900);
  const b = await buy(user, 'enterprise', 9900);
  expect(await refund(b)).toMatchObject({ action: 'applied', sync: { success: true, plan: 'pro' } });
  expect(await planInIdentity(host, user)).toBe('pro');
  expect(await findPayment(paymentOn(host).db, b)).toMatchObject({ status: 'refunded', refund: { amount: 9900 }, sync: { state: 'synced', plan: 'pro' } });
});

test('a partial refund of the deciding payment changes no plan; its amount is recorded, and a later refund of the rest takes the plan back', async () => {
  const user = await signIn(host, 'refund-partial@example.com');
  const a = await buy(user, 'pro', 2900);
  const answer = await refund(a, 1000);
  expect(answer).toMatchObject({ action: 'partial_refund' });
  expect(answer.sync).toBeUndefined();
  expect(await planInIdentity(host, user)).toBe('pro');
  expect(await findPayment(paymentOn(host).db, a)).toMatchObject({
    status: 'succeeded',
    refund: { amount: 1000, at: expect.any(String) },
    sync: { state: 'synced', plan: 'pro' },
  });
  expect(await refundEvents(a)).toHaveLength(1);

  expect(await refund(a, 1900)).toMatchObject({ action: 'applied', sync: { success: true, plan: 'free' } });
  expect(await planInIdentity(host, user)).toBe('free');
  expect(await findPayment(paymentOn(host).db, a)).toMatchObject({ status: 'refunded', refund: { amount: 2900 } });
});
