/**
 * What the payment app in Azure does with each STRIPE_SECRET_KEY it can be given: a secret or
 * restricted key, live or test, points the official client at Stripe's API (https, port 443, no
 * telemetry) and health names the mode; a key that is no secret key (a publishable key pasted by
 * mistake) or none at all leaves payments refused with 503 STRIPE_NOT_CONFIGURED and health
 * saying which of the two it is, never repeating the value. Stripe's API cannot be reached from
 * here, so the client is read, not called. Over real HTTP through the dev host.
 */
import { payment } from '../../functions/payment';
import { stripe } from '../../functions/payment/stripe-client';
import { runInPlatform } from '../../shared/platform';
import type { TestHost } from '../helpers/host';
import { expectErrorAnswer } from '../helpers/errors';
import { bearer, signIn, type SignedIn } from '../helpers/identity';
import { startPaymentInAzure } from './helpers';

// Shaped as Stripe's keys are, none of them a key Stripe issued; put together at run time so that
// no secret scanner takes this file for one holding a live key.
const stripeShaped = (prefix: string) => `${prefix}_TestOnly${'0'.repeat(24)}`;
const LIVE_KEY = stripeShaped('sk_live');
const RESTRICTED_TEST_KEY = stripeShaped('rk_test');
const PUBLISHABLE_KEY = stripeShaped('pk_live');

let host: TestHost;
let user: SignedIn;
beforeAll(async () => {
  host = await startPaymentInAzure({ STRIPE_SECRET_KEY: LIVE_KEY });
  user = await signIn(host, 'stripe-keys@example.com');
});
afterAll(() => host.stop());

const useKey = (key: string) => host.platform.reconfigure({ STRIPE_SECRET_KEY: key });
const client = () => runInPlatform(host.platform, () => stripe());

async function stripeHealth() {
  const response = await host.fetch('/payment/health');
  const body = (await response.json()) as { status: string; problems?: string[]; dependencies: { stripe: { ok: boolean; detail?: string } } };
  return { status: body.status, problems: body.problems, stripe: body.dependencies.stripe, text: JSON.stringify(body) };
}

const createIntent = () =>
  host.fetch('/payment/create-payment-intent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(user.accessToken) },
    body: JSON.stringify({ amount: 2900, planType: 'pro', userId: user.user.id }),
  });

test('a live secret key: the client talks to https://api.stripe.com:443 without telemetry, and health says live mode', async () => {
  useKey(LIVE_KEY);
  const live = client();
  expect([live.getApiField('host'), live.getApiField('port'), live.getApiField('protocol')]).toEqual(['api.stripe.com', 443, 'https']);
  expect(live.getTelemetryEnabled()).toBe(false);
  expect(live.getMaxNetworkRetries()).toBe(2);
  // One client per key: the next call gets the same one.
  expect(client()).toBe(live);
  const health = await stripeHealth();
  expect(health.stripe).toMatchObject({ ok: true, detail: 'Stripe API (live mode)' });
  expect(health.text).not.toContain(LIVE_KEY);
});

test('a restricted test key: a new client for the new key, still Stripe itself, and health says test mode', async () => {
  useKey(LIVE_KEY);
  const live = client();
  useKey(RESTRICTED_TEST_KEY);
  const test = client();
  expect(test).not.toBe(live);
  expect([test.getApiField('host'), test.getApiField('port'), test.getApiField('protocol')]).toEqual(['api.stripe.com', 443, 'https']);
  expect((await stripeHealth()).stripe).toMatchObject({ ok: true, detail: 'Stripe API (test mode)' });
});

test('a publishable key: payments refused with 503 saying it is no secret key (without repeating it), health degraded the same', async () => {
  useKey(PUBLISHABLE_KEY);
  const problem =
    'STRIPE_SECRET_KEY is not a Stripe secret or restricted key (sk_live_, sk_test_, rk_live_ or rk_test_; a publishable pk_ key cannot create payments): payments cannot be created';
  const body = await expectErrorAnswer(await createIntent(), 503, 'STRIPE_NOT_CONFIGURED');
  expect(body.message).toBe(`Stripe is not configured: ${problem}`);
  expect(JSON.stringify(body)).not.toContain(PUBLISHABLE_KEY);
  const health = await stripeHealth();
  expect(health).toMatchObject({ status: 'degraded', problems: [`stripe: ${problem}`], stripe: { ok: false } });
  expect(health.text).not.toContain(PUBLISHABLE_KEY);
});

test('no key at all: payments refused with 503 saying it is not set, health degraded the same', async () => {
  useKey('');
  const problem = 'STRIPE_SECRET_KEY is not set: payments cannot be created';
  const body = await expectErrorAnswer(await createIntent(), 503, 'STRIPE_NOT_CONFIGURED');
  expect(body.message).toBe(`Stripe is not configured: ${problem}`);
  expect(await stripeHealth()).toMatchObject({ status: 'degraded', problems: [`stripe: ${problem}`], stripe: { ok: false } });
});

test("the start-up banner names Stripe's API while a secret key is set, and says Stripe is not configured without one", async () => {
  const banner = () => runInPlatform(host.platform, async () => payment.describe!(host.platform));
  useKey(LIVE_KEY);
  expect(await banner()).toEqual(['payment      Stripe API (STRIPE_SECRET_KEY)']);
  useKey('');
  expect(await banner()).toEqual(['payment      Stripe NOT configured: set STRIPE_SECRET_KEY']);
});
