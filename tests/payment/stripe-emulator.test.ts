import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { createLogger } from '../../shared/logging';
import { startStripeEmulator, type StripeEmulator } from '../../tools/stripe-emulator/server';
import { parseStripeForm } from '../../tools/stripe-emulator/form';

/** The local Stripe API server, driven by the official client exactly as the service drives it. */
const SECRET = 'whsec_emulator_test_secret_0123456789';
let emulator: StripeEmulator;
let receiver: http.Server;
const received: { body: string; signature: string }[] = [];
let stripe: Stripe;

beforeAll(async () => {
  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    received.push({ body: Buffer.concat(chunks).toString(), signature: String(req.headers['stripe-signature']) });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
  }
  receiver = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/payment/webhook`;
  emulator = await startStripeEmulator({ endpoints: [{ url: hook, secret: SECRET }], log: createLogger({ test: 'emulator' }) });
  const url = new URL(emulator.url);
  stripe = new Stripe('sk_test_emulator_client', { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
});
afterAll(async () => {
  await emulator.stop();
  await new Promise<void>((r) => receiver.close(() => r()));
});
beforeEach(() => {
  received.length = 0;
});

const create = (extra: Partial<Stripe.PaymentIntentCreateParams> = {}, options?: Stripe.RequestOptions) =>
  stripe.paymentIntents.create(
    { amount: 2900, currency: 'usd', allowed_payment_method_types: ['card'], metadata: { userId: 'u1', planType: 'pro' }, ...extra },
    options,
  );

test('create returns a PaymentIntent in Stripe shape; retrieve returns the same object', async () => {
  const pi = await create();
  expect(pi).toMatchObject({
    object: 'payment_intent',
    amount: 2900,
    currency: 'usd',
    status: 'requires_payment_method',
    metadata: { userId: 'u1', planType: 'pro' },
    livemode: false,
  });
  expect(pi.id).toMatch(/^pi_/);
  expect(pi.client_secret).toMatch(new RegExp(`^${pi.id}_secret_`));
  const again = await stripe.paymentIntents.retrieve(pi.id);
  expect(again.id).toBe(pi.id);
  expect(again.client_secret).toBe(pi.client_secret);
});

test('confirm succeeds and delivers a payment_intent.succeeded the webhook can verify', async () => {
  const pi = await create();
  const confirmed = await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' });
  expect(confirmed).toMatchObject({ status: 'succeeded', amount_received: 2900 });
  expect(confirmed.latest_charge).toMatch(/^ch_/);
  expect(received).toHaveLength(1);
  const event = stripe.webhooks.constructEvent(received[0].body, received[0].signature, SECRET, 300);
  expect(event.type).toBe('payment_intent.succeeded');
  expect((event.data.object as Stripe.PaymentIntent).id).toBe(pi.id);
  expect((event.data.object as Stripe.PaymentIntent).metadata.userId).toBe('u1');
});

test('a declining card gives a StripeCardError and delivers payment_intent.payment_failed', async () => {
  const pi = await create();
  const error = await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_chargeDeclined' }).catch((e) => e);
  expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
  expect(error).toMatchObject({ statusCode: 402, code: 'card_declined', decline_code: 'generic_decline' });
  const event = stripe.webhooks.constructEvent(received[0].body, received[0].signature, SECRET);
  expect(event.type).toBe('payment_intent.payment_failed');
});

test('unknown ids answer 404 resource_missing in Stripe error format', async () => {
  const error = await stripe.paymentIntents.retrieve('pi_does_not_exist').catch((e) => e);
  expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
  expect(error).toMatchObject({ statusCode: 404, code: 'resource_missing', param: 'intent', message: "No such payment_intent: 'pi_does_not_exist'" });
});

test('invalid parameters answer 400 naming the param', async () => {
  const error = await create({ amount: 10 }).catch((e) => e);
  expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
  expect(error).toMatchObject({ statusCode: 400, code: 'amount_too_small', param: 'amount' });
});

test('a request without an API key answers 401', async () => {
  const res = await fetch(`${emulator.url}/v1/payment_intents/pi_x`);
  expect(res.status).toBe(401);
  expect(((await res.json()) as any).error.type).toBe('invalid_request_error');
});

test('Idempotency-Key: same parameters replay the first PaymentIntent, different parameters are an idempotency_error', async () => {
  const first = await create({}, { idempotencyKey: 'key-123' });
  const replay = await create({}, { idempotencyKey: 'key-123' });
  expect(replay.id).toBe(first.id);
  expect(replay.lastResponse.headers['idempotent-replayed']).toBe('true');
  const error = await create({ amount: 9900 }, { idempotencyKey: 'key-123' }).catch((e) => e);
  expect(error).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  const other = await create({}, { idempotencyKey: 'key-456' });
  expect(other.id).not.toBe(first.id);
});

test('cancel moves a PaymentIntent to canceled; a succeeded one cannot be canceled or confirmed again', async () => {
  const pi = await create();
  const canceled = await stripe.paymentIntents.cancel(pi.id, { cancellation_reason: 'requested_by_customer' });
  expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'requested_by_customer' });
  expect(typeof canceled.canceled_at).toBe('number');
  const paid = await create();
  await stripe.paymentIntents.confirm(paid.id, { payment_method: 'pm_card_visa' });
  const cancelError = await stripe.paymentIntents.cancel(paid.id).catch((e) => e);
  expect(cancelError).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
  const confirmError = await stripe.paymentIntents.confirm(paid.id, { payment_method: 'pm_card_visa' }).catch((e) => e);
  expect(confirmError).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
});

test('a full refund delivers charge.refunded with refunded true', async () => {
  const pi = await create();
  await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' });
  received.length = 0;
  const refund = await stripe.refunds.create({ payment_intent: pi.id });
  expect(refund).toMatchObject({ object: 'refund', amount: 2900, status: 'succeeded', payment_intent: pi.id });
  const event = stripe.webhooks.constructEvent(received[0].body, received[0].signature, SECRET);
  expect(event.type).toBe('charge.refunded');
  expect(event.data.object).toMatchObject({ payment_intent: pi.id, amount_refunded: 2900, refunded: true });
});

test('the form decoder reads nested keys and arrays as Stripe encodes them', () => {
  expect(parseStripeForm('amount=2900&metadata[userId]=u%201&allowed_payment_method_types[0]=card&expand[]=a&expand[]=b')).toEqual({
    amount: '2900',
    metadata: { userId: 'u 1' },
    allowed_payment_method_types: ['card'],
    expand: ['a', 'b'],
  });
  // Stripe's client writes arrays of objects with indices, and empty values to clear a field.
  expect(parseStripeForm('line_items[0][price]=p1&line_items[1][price]=p2&metadata[note]=')).toEqual({
    line_items: [{ price: 'p1' }, { price: 'p2' }],
    metadata: { note: '' },
  });
  // A repeated plain key keeps its last value; prototype keys never reach an object.
  expect(parseStripeForm('currency=eur&currency=usd')).toEqual({ currency: 'usd' });
  const parsed = parseStripeForm('__proto__[polluted]=yes&metadata[__proto__][x]=1&constructor[prototype][y]=2');
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  expect(parsed).not.toHaveProperty('__proto__.polluted');
});

test("a form past the decoder limits is Stripe's 400 invalid_request_error, not a 500", async () => {
  expect(() => parseStripeForm('a[b][c][d][e][f][g]=deep')).toThrow(expect.objectContaining({ status: 400, type: 'invalid_request_error' }));
  expect(() => parseStripeForm(Array.from({ length: 1001 }, (_, i) => `k${i}=v`).join('&'))).toThrow(expect.objectContaining({ status: 400 }));
  const response = await fetch(`${emulator.url}/v1/payment_intents`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk_test_emulator_client', 'content-type': 'application/x-www-form-urlencoded' },
    body: 'amount=2900&currency=usd&metadata[a][b][c][d][e][f]=deep',
  });
  expect(response.status).toBe(400);
  expect(await response.json()).toMatchObject({ error: { type: 'invalid_request_error', message: expect.stringMatching(/could not be read/) } });
});
