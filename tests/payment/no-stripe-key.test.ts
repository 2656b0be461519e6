/**
 * Payment right after a first `azd up`: the app runs in Azure (an Azure host name, so no local
 * Stripe server), and STRIPE_SECRET_KEY is a Key Vault reference whose secret nobody has stored yet,
 * so the app received the reference text. One missing optional secret must not stop the service:
 * plans, user status and the webhook answer, creating a payment intent answers 503 naming the key
 * (and writes nothing), health says `degraded` and why. Over real HTTP through the dev host.
 */
import type { TestHost } from '../helpers/host';
import { bearer, signIn, type SignedIn } from '../helpers/identity';
import { deliver, paymentIntentObject, startPaymentInAzure, stripeEvent } from './helpers';

const STRIPE_KEY_REFERENCE = '@Microsoft.KeyVault(SecretUri=https://kv-report-x7.vault.azure.net/secrets/stripe-secret-key/)';

let host: TestHost;
let user: SignedIn;
beforeAll(async () => {
  host = await startPaymentInAzure({ STRIPE_SECRET_KEY: STRIPE_KEY_REFERENCE });
  user = await signIn(host, 'first-customer@example.com');
});
afterAll(() => host.stop());

test('health answers 200 degraded, naming the unresolved key; every other dependency is checked and healthy', async () => {
  const response = await host.fetch('/payment/health');
  expect(response.status).toBe(200);
  const body = (await response.json()) as any;
  expect(body).toMatchObject({
    service: 'payment',
    status: 'degraded',
    problems: [
      'stripe: STRIPE_SECRET_KEY is an unresolved Key Vault reference (store the stripe-secret-key secret: docs/deploy.md): payments cannot be created',
    ],
  });
  expect(Object.keys(body.dependencies).sort()).toEqual(['identity', 'sql', 'stripe', 'tableStorage']);
  for (const name of ['identity', 'sql', 'tableStorage']) expect(body.dependencies[name]).toMatchObject({ ok: true });
  expect(body.dependencies.stripe).toMatchObject({ ok: false, optional: true });
});

test('health?skip=sql (the availability tests) leaves the database alone', async () => {
  const response = await host.fetch('/payment/health?skip=sql');
  expect(response.status).toBe(200);
  const body = (await response.json()) as any;
  expect(Object.keys(body.dependencies).sort()).toEqual(['identity', 'stripe', 'tableStorage']);
  expect((await host.fetch('/payment/health?skip=stripe')).status).toBe(400);
});

test('plans and user status answer', async () => {
  const plans = await host.fetch('/payment/plans');
  expect(plans.status).toBe(200);
  expect(((await plans.json()) as any).plans.map((p: any) => p.id)).toEqual(['free', 'pro', 'enterprise']);
  const status = await host.fetch('/payment/user-status', { headers: bearer(user.accessToken) });
  expect(status.status).toBe(200);
  expect(await status.json()).toMatchObject({ userId: user.user.id, plan: 'free' });
});

test('creating a payment intent answers 503 STRIPE_NOT_CONFIGURED naming STRIPE_SECRET_KEY, and records nothing', async () => {
  const response = await host.fetch('/payment/create-payment-intent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(user.accessToken) },
    body: JSON.stringify({ amount: 2900, planType: 'pro', userId: user.user.id }),
  });
  expect(response.status).toBe(503);
  const body = (await response.json()) as any;
  expect(body).toMatchObject({ code: 'STRIPE_NOT_CONFIGURED', message: expect.stringContaining('STRIPE_SECRET_KEY is an unresolved Key Vault reference') });
  const status = (await (await host.fetch('/payment/user-status', { headers: bearer(user.accessToken) })).json()) as any;
  expect(status.payments).toEqual([]);
  expect(status.sync).toEqual({ state: 'none' });
});

test('the webhook answers: a signed event is processed, an unsigned one refused', async () => {
  const event = stripeEvent(
    'payment_intent.payment_failed',
    paymentIntentObject('pi_no_key_1', { userId: user.user.id, planType: 'pro', amount: 2900, status: 'requires_payment_method' }),
  );
  const signed = await deliver(host, event);
  expect(signed.status).toBe(200);
  const unsigned = await deliver(host, event, { header: null });
  expect(unsigned.status).toBe(400);
  expect(unsigned.body.code).toMatch(/SIGNATURE/);
});
