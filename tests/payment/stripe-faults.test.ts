import { appSettings } from '../helpers/context';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestHost, type TestHost } from '../helpers/host';
import { expectErrorAnswer } from '../helpers/errors';
import { bearer, signIn } from '../helpers/identity';

import { loggedDuring } from '../helpers/logs';
import { deadUrl } from './helpers';

/**
 * Stripe failing while a payment intent is created: unreachable, overloaded (500) or throttling
 * (429) is 503 STRIPE_UNAVAILABLE, refusing the request (400) is 502 STRIPE_ERROR; either way nothing
 * is recorded and the line operators read says what Stripe said, never the key. Stripe's API is a
 * loopback server answering as Stripe answers errors (`{ error: { type, code, message } }`);
 * "unreachable" is an address nobody listens on.
 */
let host: TestHost;
let stripeApi: http.Server;
let answer: { status: number; error: { type: string; code?: string; message: string } };
beforeAll(async () => {
  stripeApi = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res
        .writeHead(answer.status, { 'content-type': 'application/json', 'request-id': 'req_test', 'stripe-should-retry': 'false' })
        .end(JSON.stringify({ error: answer.error })),
    );
  });
  await new Promise<void>((resolve) => stripeApi.listen(0, '127.0.0.1', resolve));
  host = await startTestHost({ env: { LOG_LEVEL: 'warn', STRIPE_API_BASE: `http://127.0.0.1:${(stripeApi.address() as AddressInfo).port}` } });
});
afterAll(async () => {
  await host.stop();
  await new Promise<void>((resolve) => stripeApi.close(() => resolve()));
});

async function createIntent(email: string) {
  const user = await signIn(host, email);
  const { result, lines, text } = await loggedDuring(() =>
    host.fetch('/payment/create-payment-intent', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(user.accessToken) },
      body: JSON.stringify({ amount: 2900, planType: 'pro', userId: user.user.id }),
    }),
  );
  const status = (await (await host.fetch('/payment/user-status', { headers: bearer(user.accessToken) })).json()) as { payments: unknown[] };
  return { response: result, lines, text, recorded: status.payments };
}

test('Stripe refusing the request: 502 STRIPE_ERROR, nothing recorded, an error line with what Stripe said', async () => {
  answer = { status: 400, error: { type: 'invalid_request_error', code: 'amount_too_small', message: 'Amount must be at least $0.50 usd' } };
  const { response, lines, text, recorded } = await createIntent('stripe-refuses@example.com');
  const body = await expectErrorAnswer(response, 502, 'STRIPE_ERROR');
  expect(body.message).toBe('The payment processor refused the request');
  expect(recorded).toEqual([]);
  expect(lines.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([
    expect.objectContaining({
      level: 'error',
      msg: 'stripe refused: creating a payment intent',
      type: 'StripeInvalidRequestError',
      stripeCode: 'amount_too_small',
      message: 'Amount must be at least $0.50 usd',
    }),
  ]);
  expect(text).not.toContain(appSettings().STRIPE_SECRET_KEY || 'sk_test_offline_emulator');
});

test.each([
  { name: 'overloaded (500)', status: 500, type: 'api_error', message: 'An unknown error occurred' },
  { name: 'throttling (429)', status: 429, type: 'invalid_request_error', message: 'Too many requests hit the API too quickly' },
])('Stripe $name: 503 STRIPE_UNAVAILABLE, nothing recorded, a warning with what Stripe said', async ({ status, type, message }) => {
  answer = { status, error: { type, message } };
  const { response, lines, recorded } = await createIntent(`stripe-${status}@example.com`);
  const body = await expectErrorAnswer(response, 503, 'STRIPE_UNAVAILABLE');
  expect(body.message).toBe('The payment processor is unavailable; try again shortly');
  expect(recorded).toEqual([]);
  expect(lines.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([
    expect.objectContaining({ level: 'warn', msg: 'stripe unavailable: creating a payment intent', error: message }),
  ]);
});

test('Stripe unreachable: 503 STRIPE_UNAVAILABLE after the client retries, nothing recorded', async () => {
  const before = appSettings().STRIPE_API_BASE;
  host.platform.reconfigure({ STRIPE_API_BASE: new URL(await deadUrl()).origin });
  try {
    const { response, lines, recorded } = await createIntent('stripe-unreachable@example.com');
    await expectErrorAnswer(response, 503, 'STRIPE_UNAVAILABLE');
    expect(recorded).toEqual([]);
    expect(lines.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'stripe unavailable: creating a payment intent', error: expect.stringMatching(/connection to Stripe/i) }),
    ]);
  } finally {
    host.platform.reconfigure({ STRIPE_API_BASE: before });
  }
});
