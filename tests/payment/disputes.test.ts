import type Stripe from 'stripe';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, planInIdentity, signIn, type SignedIn } from '../helpers/identity';
import { loggedDuring } from '../helpers/logs';
import { findPayment } from '../../functions/payment/payments';
import { paymentOn } from './helpers';

/**
 * Chargebacks over HTTP on the local Stripe (issue 50): a dispute suspends the plan of the payment
 * it is against at once (the same ordered sync, an error line for the operators); closed won, the
 * plan comes back while the payment still stands; lost, the user stays on free.
 */
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());

async function buy(user: SignedIn, planType: 'pro' | 'enterprise', amount: number, paymentMethod = 'pm_card_visa') {
  const res = await host.fetch('/payment/create-payment-intent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(user.accessToken) },
    body: JSON.stringify({ amount, planType, userId: user.user.id }),
  });
  expect(res.status).toBe(200);
  const { paymentIntentId } = (await res.json()) as { paymentIntentId: string };
  const confirmed = await paymentOn(host).stripe.paymentIntents.confirm(paymentIntentId, { payment_method: paymentMethod });
  expect(confirmed.status).toBe('succeeded');
  return { pi: paymentIntentId, charge: String(confirmed.latest_charge) };
}

const stripe = () => paymentOn(host).stripe;
const openDispute = (charge: string) => stripe().rawRequest('POST', `/v1/test_helpers/charges/${charge}/dispute`, {}) as Promise<Stripe.Dispute>;
const closeDispute = (id: string, status: 'won' | 'lost') =>
  stripe().rawRequest('POST', `/v1/test_helpers/disputes/${id}/close`, { status }) as Promise<Stripe.Dispute>;

test('a dispute suspends the plan at once, with an error line for the operators; won, the plan is restored', async () => {
  const user = await signIn(host, 'dispute-won@example.com');
  const { pi, charge } = await buy(user, 'pro', 2900);
  expect(await planInIdentity(host, user)).toBe('pro');

  const { result: dispute, lines } = await loggedDuring(() => openDispute(charge));
  expect(await planInIdentity(host, user)).toBe('free');
  expect(lines).toContainEqual(
    expect.objectContaining({
      level: 'error',
      category: 'dispute',
      paymentIntentId: pi,
      userId: user.user.id,
      disputeId: dispute.id,
      msg: expect.stringMatching(/^DISPUTE: .*suspended/),
    }),
  );
  expect(await findPayment(paymentOn(host).db, pi)).toMatchObject({
    status: 'succeeded',
    dispute: { status: 'open' },
    sync: { state: 'synced', plan: 'free' },
  });

  await closeDispute(dispute.id, 'won');
  expect(await planInIdentity(host, user)).toBe('pro');
  expect(await findPayment(paymentOn(host).db, pi)).toMatchObject({ dispute: { status: 'won' }, sync: { state: 'synced', plan: 'pro' } });
});

test('a dispute lost: the user stays on free', async () => {
  const user = await signIn(host, 'dispute-lost@example.com');
  const { pi, charge } = await buy(user, 'enterprise', 9900);
  const dispute = await openDispute(charge);
  expect(await planInIdentity(host, user)).toBe('free');
  await closeDispute(dispute.id, 'lost');
  expect(await planInIdentity(host, user)).toBe('free');
  expect(await findPayment(paymentOn(host).db, pi)).toMatchObject({ dispute: { status: 'lost' }, sync: { plan: 'free' } });
});

test('the test card pm_card_createDispute: paid, then disputed at once, so the plan is suspended', async () => {
  const user = await signIn(host, 'dispute-card@example.com');
  const { pi } = await buy(user, 'pro', 2900, 'pm_card_createDispute');
  expect(await planInIdentity(host, user)).toBe('free');
  expect(await findPayment(paymentOn(host).db, pi)).toMatchObject({ status: 'succeeded', dispute: { status: 'open' } });
});

test('a dispute of a payment a newer one superseded changes no plan; each event is recorded once', async () => {
  const user = await signIn(host, 'dispute-superseded@example.com');
  const a = await buy(user, 'pro', 2900);
  const b = await buy(user, 'enterprise', 9900);
  const dispute = await openDispute(a.charge);
  expect(await planInIdentity(host, user)).toBe('enterprise');
  await closeDispute(dispute.id, 'won');
  expect(await planInIdentity(host, user)).toBe('enterprise');
  expect(await findPayment(paymentOn(host).db, a.pi)).toMatchObject({ dispute: { status: 'won' } });
  expect(await findPayment(paymentOn(host).db, b.pi)).toMatchObject({ dispute: { status: null }, sync: { state: 'synced', plan: 'enterprise' } });
  const events = await paymentOn(host)
    .db.selectFrom('payment_webhook_events')
    .select(['type'])
    .where('payment_intent_id', '=', a.pi)
    .orderBy('received_at')
    .execute();
  expect(events.map((e) => e.type)).toEqual(['payment_intent.succeeded', 'charge.dispute.created', 'charge.dispute.closed']);
});
