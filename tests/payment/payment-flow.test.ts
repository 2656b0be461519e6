import Stripe from 'stripe';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, planInIdentity, signIn, type SignedIn } from '../helpers/identity';
import { findPayment } from '../../functions/payment/payments';
import { expectErrorAnswer } from '../helpers/errors';
import { paymentOn } from './helpers';

/** The whole purchase over HTTP: login at identity, create the intent, pay on the local Stripe, signed webhook, plan in identity. */
let host: TestHost;
let alice: SignedIn;
let bob: SignedIn;
beforeAll(async () => {
  host = await startTestHost();
  alice = await signIn(host, 'alice@example.com');
  bob = await signIn(host, 'bob@example.com');
});
afterAll(() => host.stop());

const createIntent = (user: SignedIn | undefined, body: unknown, headers: Record<string, string> = {}) =>
  host.fetch('/payment/create-payment-intent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(user ? bearer(user.accessToken) : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

test('happy path: create intent, confirm on Stripe, signed payment_intent.succeeded, plan is pro in identity', async () => {
  const res = await createIntent(alice, { amount: 2900, planType: 'pro', userId: alice.user.id });
  expect(res.status).toBe(200);
  const body = (await res.json()) as any;
  expect(body).toEqual({
    clientSecret: expect.stringMatching(/^pi_.+_secret_/),
    paymentIntentId: expect.stringMatching(/^pi_/),
    amount: 2900,
    currency: 'usd',
    planType: 'pro',
  });

  const pending = await findPayment(paymentOn(host).db, body.paymentIntentId);
  expect(pending).toMatchObject({
    userId: alice.user.id,
    planType: 'pro',
    amount: 2900,
    status: 'pending',
    priceVersion: '2026-01',
    sync: { state: 'not_required' },
  });
  const intent = await paymentOn(host).stripe.paymentIntents.retrieve(body.paymentIntentId);
  expect(intent.metadata).toEqual({ userId: alice.user.id, planType: 'pro', priceVersion: '2026-01' });
  expect(intent.allowed_payment_method_types).toEqual(['card']);
  // What the customer and support see on Stripe's dashboard and receipt.
  expect(intent.description).toBe('Pro plan');

  // The browser confirms with the client secret; the local Stripe delivers the signed event to our webhook.
  const confirmed = await paymentOn(host).stripe.paymentIntents.confirm(body.paymentIntentId, { payment_method: 'pm_card_visa' });
  expect(confirmed.status).toBe('succeeded');
  const delivery = decodeURIComponent(confirmed.lastResponse.headers['emulator-webhook-delivery']);
  expect(delivery).toMatch(/^payment_intent\.succeeded evt_\S+ -> 200 /);
  expect(JSON.parse(delivery.replace(/^.*? -> 200 /, ''))).toMatchObject({ received: true, action: 'applied', sync: { success: true, plan: 'pro' } });

  expect(await planInIdentity(host, alice)).toBe('pro');
  expect(await findPayment(paymentOn(host).db, body.paymentIntentId)).toMatchObject({ status: 'succeeded', sync: { state: 'synced', plan: 'pro' } });
  const status = (await (await host.fetch('/payment/user-status', { headers: bearer(alice.accessToken) })).json()) as any;
  expect(status).toMatchObject({
    userId: alice.user.id,
    email: 'alice@example.com',
    plan: 'pro',
    status: 'active',
    planSource: 'identity',
    sync: { state: 'synced', plan: 'pro' },
    failedSyncRecord: null,
  });
  expect(status.payments[0]).toMatchObject({ paymentIntentId: body.paymentIntentId, status: 'succeeded', amount: 2900, syncState: 'synced' });
});

test('a declined card records the payment as failed and leaves the plan alone', async () => {
  const body = (await (await createIntent(bob, { amount: 9900, planType: 'enterprise', userId: bob.user.id })).json()) as any;
  const error = await paymentOn(host)
    .stripe.paymentIntents.confirm(body.paymentIntentId, { payment_method: 'pm_card_chargeDeclined' })
    .catch((e) => e);
  expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
  expect(await findPayment(paymentOn(host).db, body.paymentIntentId)).toMatchObject({
    status: 'failed',
    failureMessage: 'Your card was declined.',
    sync: { state: 'not_required' },
  });
  expect(await planInIdentity(host, bob)).toBe('free');
});

test('the same Idempotency-Key returns the same PaymentIntent; without one each call is a new intent', async () => {
  const headers = { 'idempotency-key': 'checkout-attempt-0001' };
  // Each answer is checked whole: two failures would otherwise agree on an undefined id.
  const created = async (extra?: Record<string, string>) => {
    const res = await createIntent(bob, { amount: 2900, planType: 'pro', userId: bob.user.id }, extra);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.paymentIntentId).toMatch(/^pi_/);
    return body;
  };
  const a = await created(headers);
  const b = await created(headers);
  expect(b.paymentIntentId).toBe(a.paymentIntentId);
  expect(b.clientSecret).toBe(a.clientSecret);
  const c = await created();
  expect(c.paymentIntentId).not.toBe(a.paymentIntentId);
});

test('the server never trusts the client price: a wrong amount is 400 naming the expected amount', async () => {
  const res = await createIntent(alice, { amount: 100, planType: 'pro', userId: alice.user.id });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({
    error: 'Bad request',
    code: 'AMOUNT_MISMATCH',
    expectedAmount: 2900,
    currency: 'usd',
    message: expect.stringContaining('2900'),
    timestamp: expect.any(String),
  });
});

test('the free plan cannot be bought and unknown plans are named', async () => {
  const free = await createIntent(alice, { amount: 0, planType: 'free', userId: alice.user.id });
  expect((await expectErrorAnswer(free, 400, 'PLAN_NOT_PURCHASABLE')).message).toBe('The free plan cannot be purchased');
  const unknown = await createIntent(alice, { amount: 100, planType: 'platinum', userId: alice.user.id });
  expect(unknown.status).toBe(400);
  expect(await unknown.json()).toMatchObject({ code: 'UNKNOWN_PLAN', message: expect.stringContaining('platinum') });
});

test("someone else's userId is 403", async () => {
  const res = await createIntent(alice, { amount: 2900, planType: 'pro', userId: bob.user.id });
  expect((await expectErrorAnswer(res, 403, 'USER_MISMATCH')).message).toBe('userId must be the signed-in user');
});

test('no token, a garbage token and a logged-out session are 401', async () => {
  const none = await createIntent(undefined, { amount: 2900, planType: 'pro', userId: alice.user.id });
  expect(none.status).toBe(401);
  expect(((await none.json()) as any).code).toBe('AUTH_REQUIRED');
  const garbage = await createIntent(undefined, { amount: 2900, planType: 'pro', userId: alice.user.id }, { authorization: 'Bearer not.a.jwt' });
  expect(garbage.status).toBe(401);
  expect(((await garbage.json()) as any).code).toBe('AUTH_TOKEN_INVALID');

  const carol = await signIn(host, 'carol@example.com');
  const logout = await host.fetch('/identity/auth/logout', { method: 'POST', headers: bearer(carol.accessToken) });
  expect(logout.status).toBe(200);
  // The token's signature is still valid; identity's /auth/validate knows the session is gone.
  await expectErrorAnswer(await createIntent(carol, { amount: 2900, planType: 'pro', userId: carol.user.id }), 401, 'AUTH_SESSION_REVOKED');
  await expectErrorAnswer(await host.fetch('/payment/user-status', { headers: bearer(carol.accessToken) }), 401, 'AUTH_SESSION_REVOKED');
  await expectErrorAnswer(await host.fetch('/payment/user-status'), 401, 'AUTH_REQUIRED');
});

test.each([
  ['malformed JSON', '{"amount": 29', 'INVALID_JSON'],
  ['a string amount', { amount: '2900', planType: 'pro', userId: 'x' }, 'VALIDATION_FAILED'],
  ['a fractional amount', { amount: 29.5, planType: 'pro', userId: 'x' }, 'VALIDATION_FAILED'],
  ['a missing planType', { amount: 2900, userId: 'x' }, 'VALIDATION_FAILED'],
  ['an unknown field', { amount: 2900, planType: 'pro', userId: 'x', discount: 100 }, 'VALIDATION_FAILED'],
])('%s is a 400', async (_name, body, code) => {
  const res = await createIntent(alice, body);
  expect(res.status).toBe(400);
  const json = (await res.json()) as any;
  expect(json).toMatchObject({ error: 'Bad request', code, timestamp: expect.any(String) });
  expect(typeof json.message).toBe('string');
});

test('an oversize body is 413', async () => {
  const res = await createIntent(alice, JSON.stringify({ amount: 2900, planType: 'pro', userId: alice.user.id, pad: 'x'.repeat(10_000) }));
  await expectErrorAnswer(res, 413, 'PAYLOAD_TOO_LARGE');
});

test('a malformed Idempotency-Key is a 400', async () => {
  const res = await createIntent(alice, { amount: 2900, planType: 'pro', userId: alice.user.id }, { 'idempotency-key': 'short' });
  expect((await expectErrorAnswer(res, 400, 'INVALID_IDEMPOTENCY_KEY')).message).toBe('Idempotency-Key must be 8 to 200 printable ASCII characters');
});
