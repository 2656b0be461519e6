import { appSettings } from '../helpers/context';

import { startTestHost, type TestHost } from '../helpers/host';
import { db } from '../../shared/sql/db';
import { readFailedSync } from '../../functions/payment/failed-sync-records';
import { deadUrl, deliver, paymentIntentObject, paymentOn, pointIdentityAt, stripeEvent } from './helpers';
import { expectError } from '../helpers/errors';

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
  // No identity call may happen for a refused event; a dead identity makes any attempt visible as a failed sync.
  pointIdentityAt(await deadUrl());
});
afterAll(async () => {
  pointIdentityAt(undefined);
  await host.stop();
});
afterEach(() => jest.useRealTimers());

const count = async (tableName: 'payment_payments' | 'payment_webhook_events') =>
  Number(
    (
      await (db() as any)
        .selectFrom(tableName)
        .select((eb: any) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

async function expectNothingWritten(userId: string) {
  expect(await count('payment_payments')).toBe(0);
  expect(await count('payment_webhook_events')).toBe(0);
  expect(await readFailedSync(paymentOn(host), userId, host.platform.clock.now())).toBeUndefined();
}

const succeeded = (userId: string) =>
  stripeEvent('payment_intent.succeeded', paymentIntentObject(`pi_sig_${userId}`, { userId, planType: 'pro', amount: 2900 }));

test('a wrong signing secret is refused with 400 and writes nothing', async () => {
  const res = await deliver(host, succeeded('u-secret'), { secret: 'whsec_not_the_endpoint_secret_at_all' });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ error: 'Bad request', code: 'WEBHOOK_SIGNATURE_INVALID' });
  expect(typeof res.body.timestamp).toBe('string');
  await expectNothingWritten('u-secret');
});

test('a missing Stripe-Signature header is refused with 400', async () => {
  const res = await deliver(host, succeeded('u-missing'), { header: null });
  expectError(res, 400, 'WEBHOOK_SIGNATURE_MISSING');
  expect(res.body.message).toMatch(/Stripe-Signature header is missing/);
  await expectNothingWritten('u-missing');
});

test('a garbage signature header is refused with 400', async () => {
  const res = await deliver(host, succeeded('u-garbage'), { header: 't=abc,v1=zzz' });
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('WEBHOOK_SIGNATURE_INVALID');
  await expectNothingWritten('u-garbage');
});

test('a signature older than 300 s is refused (stale timestamp)', async () => {
  const now = Math.floor(Date.now() / 1000);
  const stale = await deliver(host, succeeded('u-stale'), { timestamp: now - 301 });
  expectError(stale, 400, 'WEBHOOK_SIGNATURE_INVALID');
  expect(stale.body.message).toMatch(/tolerance/i);
  await expectNothingWritten('u-stale');
});

test('an event replayed after the clock moved past the tolerance is refused (fake clock)', async () => {
  const event = succeeded('u-clock');
  const signedAt = new Date('2026-11-22T10:00:00Z');
  jest.useFakeTimers({
    doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'],
  });
  jest.setSystemTime(signedAt);
  const header = new (require('stripe'))('sk_test_x').webhooks.generateTestHeaderString({
    payload: JSON.stringify(event),
    secret: appSettings().STRIPE_WEBHOOK_SECRET,
  });
  jest.setSystemTime(new Date(signedAt.getTime() + 301_000));
  const res = await deliver(host, event, { header });
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('WEBHOOK_SIGNATURE_INVALID');
  await expectNothingWritten('u-clock');
});

test('a tampered body (amount changed after signing) is refused with 400 and writes nothing', async () => {
  const event = succeeded('u-tamper');
  const tampered = JSON.stringify({ ...event, data: { object: { ...event.data.object, amount: 1 } } });
  const res = await deliver(host, event, { body: tampered });
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('WEBHOOK_SIGNATURE_INVALID');
  await expectNothingWritten('u-tamper');
});

test('a body re-serialised with different whitespace is refused: the signature covers the raw bytes', async () => {
  const event = succeeded('u-bytes');
  const res = await deliver(host, event, { body: JSON.stringify(event, null, 2) });
  expectError(res, 400, 'WEBHOOK_SIGNATURE_INVALID');
  await expectNothingWritten('u-bytes');
});

test('an oversize body is refused with 413 before any verification', async () => {
  const res = await host.fetch('/payment/webhook', { method: 'POST', headers: { 'stripe-signature': 't=1,v1=00' }, body: 'x'.repeat(300 * 1024) });
  expect(res.status).toBe(413);
  expect(((await res.json()) as any).code).toBe('PAYLOAD_TOO_LARGE');
  await expectNothingWritten('u-big');
});

test('a correctly signed event of a type the service does not handle is acknowledged and only deduplicated', async () => {
  const event = stripeEvent('customer.created', { id: 'cus_1', object: 'customer' });
  const res = await deliver(host, event);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ received: true, eventId: event.id, type: 'customer.created', duplicate: false, action: 'ignored_type' });
  expect(res.body.sync).toBeUndefined();
  expect(await count('payment_payments')).toBe(0);
  expect(await count('payment_webhook_events')).toBe(1);
});

test('a correctly signed body that is not an event is a 400 naming the field', async () => {
  const event = { id: 'evt_bad', type: 'payment_intent.succeeded', created: 'yesterday', data: { object: { id: 'pi_x' } } };
  const res = await deliver(host, event);
  expect(res.status).toBe(400);
  expectError(res, 400, 'VALIDATION_FAILED');
  // The message names the event's field, as the details do.
  expect(res.body.message).toMatch(/^Invalid event: created /);
});

test('a signature 290 s old, inside the tolerance, is accepted and recorded', async () => {
  const event = succeeded('u-inside');
  const res = await deliver(host, event, { timestamp: Math.floor(Date.now() / 1000) - 290 });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ received: true, duplicate: false, action: 'applied' });
  expect(await count('payment_payments')).toBe(1);
});
