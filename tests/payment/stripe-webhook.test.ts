/**
 * `npm run stripe:webhook` end to end, here: the local Stripe server stands in for Stripe (driven by
 * the official client), the Key Vault fake for Key Vault, and the dev host runs payment with the
 * placeholder secret a fresh deployment has. Register, pay, receive the signed event; run again
 * (nothing changes); repair drifted events; rotate with overlap; and the health route before and after.
 */
import type { TokenCredential } from '@azure/identity';
import Stripe from 'stripe';
import { HANDLED_EVENT_TYPES, stripeApiVersion } from '../../functions/payment/event-types';
import { WEBHOOK_SECRET_PLACEHOLDER_PREFIX } from '../../functions/payment/webhook-secret';
import { KeyVaultSecrets, SECRET } from '../../scripts/secrets';
import { MANAGED_BY, runWebhookCommand, stripeClient } from '../../scripts/stripe-webhook';
import { currentPlatform } from '../../shared/platform';
import { createLogger } from '../../shared/logging';
import { startStripeEmulator, type StripeEmulator } from '../../tools/stripe-emulator/server';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, type SignedIn } from '../helpers/identity';
import { startKeyVaultServer } from '../infra/key-vault-server';

const TOKEN = 'entra-token-for-tests';
const credential: TokenCredential = { getToken: async () => ({ token: TOKEN, expiresOnTimestamp: Date.now() + 3600_000 }) };
const PLACEHOLDER = `${WEBHOOK_SECRET_PLACEHOLDER_PREFIX}deployment_starts_with_this_0123456789`;

let stripeServer: StripeEmulator;
let keyVault: Awaited<ReturnType<typeof startKeyVaultServer>>;
let vault: KeyVaultSecrets;
let host: TestHost;
let stripe: Stripe;
let webhookUrl: string;
let buyer: SignedIn;

beforeAll(async () => {
  // Stripe itself: no endpoint registered until the command makes one.
  stripeServer = await startStripeEmulator({ log: createLogger({ test: 'stripe' }) });
  keyVault = await startKeyVaultServer(TOKEN);
  vault = new KeyVaultSecrets(keyVault.uri, credential);
  await vault.set(SECRET.stripeWebhookSecret, PLACEHOLDER, { placeholder: 'true' });
  host = await startTestHost({ env: { SERVICES: 'identity,payment', STRIPE_API_BASE: stripeServer.url, STRIPE_WEBHOOK_SECRET: PLACEHOLDER } });
  webhookUrl = `${host.serviceUrls.payment}/webhook`;
  stripe = stripeClient('sk_test_operator_key_0123456789', stripeServer.url);
  buyer = await signIn(host, 'buyer@webhook.example');
});
afterAll(async () => {
  await host.stop();
  await stripeServer.stop();
  await keyVault.stop();
});

/** What the payment app does when restarted: it reads the secret Key Vault holds now. */
function restartPayment() {
  currentPlatform().reconfigure({ STRIPE_WEBHOOK_SECRET: keyVault.latest(SECRET.stripeWebhookSecret)!.value });
}

const health = async () => {
  const response = await host.fetch('/payment/health');
  const body = (await response.json()) as any;
  return { status: response.status, health: body.status, stripe: body.dependencies.stripe };
};

/** Buys pro with a test card; returns the local Stripe server's account of each delivery (one line per endpoint). */
async function pay(): Promise<string[]> {
  const created = await host.fetch('/payment/create-payment-intent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(buyer.accessToken) },
    body: JSON.stringify({ amount: 2900, planType: 'pro', userId: buyer.user.id }),
  });
  expect(created.status).toBe(200);
  const { paymentIntentId } = (await created.json()) as { paymentIntentId: string };
  const confirmed = await stripe.paymentIntents.confirm(paymentIntentId, { payment_method: 'pm_card_visa' });
  return decodeURIComponent(confirmed.lastResponse.headers['emulator-webhook-delivery']).split('\n');
}

const run = (options: { rotate?: boolean; finishRotation?: boolean } = {}) => runWebhookCommand(stripe, vault, { url: webhookUrl, ...options });
const ourEndpoints = async () => (await stripe.webhookEndpoints.list({ limit: 100 })).data.filter((e) => e.url === webhookUrl);

test('before the command, payment health is not ready because of the placeholder, and a payment reaches no webhook', async () => {
  // Degraded, not down: everything but Stripe's webhooks works, and health names what is missing.
  expect(await health()).toMatchObject({
    status: 200,
    health: 'degraded',
    stripe: { ok: false, optional: true, error: expect.stringMatching(/^not ready: STRIPE_WEBHOOK_SECRET is the placeholder npm run secrets created/) },
  });
  expect(await pay()).toEqual([
    expect.stringMatching(/^payment_intent\.succeeded evt_\S+ not delivered \(no enabled webhook endpoint subscribes to payment_intent\.succeeded\)$/),
  ]);
});

test('the first run creates the endpoint with the handled events and the pinned API version, and stores its secret in Key Vault', async () => {
  const result = await run();
  expect(result).toMatchObject({ changed: true, secretStored: true });
  const [endpoint] = await ourEndpoints();
  expect(endpoint).toMatchObject({
    id: result.endpointId,
    url: webhookUrl,
    status: 'enabled',
    api_version: stripeApiVersion(),
    metadata: { managed_by: MANAGED_BY },
  });
  expect([...endpoint.enabled_events].sort()).toEqual([...HANDLED_EVENT_TYPES].sort());
  const stored = keyVault.latest(SECRET.stripeWebhookSecret)!;
  expect(stored.value).toMatch(/^whsec_/);
  expect(stored.value).not.toContain(WEBHOOK_SECRET_PLACEHOLDER_PREFIX);
  expect(stored.tags).toMatchObject({ endpoint: endpoint.id, 'set-by': 'npm run stripe:webhook' });
  expect(result.lines.join('\n')).toContain(`Created webhook endpoint ${endpoint.id} for ${webhookUrl}`);
  expect(result.lines.join('\n')).toContain('it replaces the placeholder');
  // Never the secret in what it prints.
  expect(result.lines.join('\n')).not.toContain(stored.value);

  restartPayment();
  expect(await health()).toMatchObject({ status: 200, health: 'healthy', stripe: { ok: true } });
  const [delivery] = await pay();
  expect(delivery).toMatch(/^payment_intent\.succeeded evt_\S+ -> 200 /);
  expect(JSON.parse(delivery.replace(/^.*? -> 200 /, ''))).toMatchObject({ received: true, action: 'applied', sync: { success: true, plan: 'pro' } });
});

test('a second run changes nothing and says so', async () => {
  const before = keyVault.versionCount(SECRET.stripeWebhookSecret);
  const [endpoint] = await ourEndpoints();
  const result = await run();
  expect(result).toMatchObject({ changed: false, secretStored: false, endpointId: endpoint.id });
  expect(result.lines[0]).toBe(
    `Nothing to change: webhook endpoint ${endpoint.id} for ${webhookUrl} is enabled with ${HANDLED_EVENT_TYPES.length} events (${HANDLED_EVENT_TYPES.join(', ')}), and Key Vault holds its signing secret.`,
  );
  expect(keyVault.versionCount(SECRET.stripeWebhookSecret)).toBe(before);
  expect(await ourEndpoints()).toHaveLength(1);
});

test('drifted enabled events are put back, and a disabled endpoint is enabled again', async () => {
  const [endpoint] = await ourEndpoints();
  await stripe.webhookEndpoints.update(endpoint.id, { enabled_events: ['payment_intent.succeeded', 'customer.created'], disabled: true });
  const result = await run();
  expect(result.changed).toBe(true);
  expect(result.lines).toEqual(
    expect.arrayContaining([
      `Updated the enabled events of ${endpoint.id}; added ${HANDLED_EVENT_TYPES.filter((t) => t !== 'payment_intent.succeeded').join(', ')}; removed customer.created.`,
      `Enabled ${endpoint.id} again (it was disabled).`,
    ]),
  );
  const after = await stripe.webhookEndpoints.retrieve(endpoint.id);
  expect(after.status).toBe('enabled');
  expect([...after.enabled_events].sort()).toEqual([...HANDLED_EVENT_TYPES].sort());
  expect((await run()).changed).toBe(false);
});

test('--rotate overlaps two endpoints so no event is refused by both; --finish-rotation deletes the previous one', async () => {
  const [previous] = await ourEndpoints();
  const rotated = await run({ rotate: true });
  expect(rotated.changed).toBe(true);
  expect(keyVault.latest(SECRET.stripeWebhookSecret)!.tags).toMatchObject({ endpoint: rotated.endpointId, 'previous-endpoint': previous.id });
  expect(rotated.secretStored).toBe(true);
  expect(rotated.lines.join('\n')).toMatch(/Key Vault references are refreshed[\s\S]*--finish-rotation/);
  await expect(run({ rotate: true })).rejects.toThrow(/A rotation is in progress/);

  // Before payment restarts it still verifies the previous endpoint's deliveries; the new one's are refused (Stripe retries them).
  const beforeRestart = await pay();
  expect(beforeRestart).toHaveLength(2);
  expect(beforeRestart.filter((d) => / -> 200 /.test(d))).toHaveLength(1);
  expect(beforeRestart.filter((d) => / -> 400 /.test(d))).toHaveLength(1);

  // After the restart it verifies the new endpoint's; the same event from both is applied once.
  restartPayment();
  const afterRestart = await pay();
  const accepted = afterRestart.filter((d) => / -> 200 /.test(d));
  expect(accepted).toHaveLength(1);
  expect(JSON.parse(accepted[0].replace(/^.*? -> 200 /, ''))).toMatchObject({ action: 'applied' });
  expect((await run()).lines.join('\n')).toContain(`A rotation is in progress (previous endpoint ${previous.id})`);

  const finished = await run({ finishRotation: true });
  expect(finished.lines).toEqual([`Deleted the previous webhook endpoint ${previous.id}; only ${rotated.endpointId} delivers now.`]);
  expect((await ourEndpoints()).map((e) => e.id)).toEqual([rotated.endpointId]);
  expect(keyVault.latest(SECRET.stripeWebhookSecret)!.tags['previous-endpoint']).toBeUndefined();
  const [single] = await pay();
  expect(single).toMatch(/ -> 200 /);
  expect(await run({ finishRotation: true })).toMatchObject({ changed: false, lines: [`No rotation in progress for ${webhookUrl}: nothing to finish.`] });
});

test('an endpoint whose secret Key Vault lacks (a run that died before storing it) is replaced by one it holds', async () => {
  const [current] = await ourEndpoints();
  // The run died after Stripe created this one: Key Vault still holds the previous endpoint's secret.
  const orphan = await stripe.webhookEndpoints.create({ url: webhookUrl, enabled_events: [...HANDLED_EVENT_TYPES], metadata: { managed_by: MANAGED_BY } });
  const result = await run();
  expect(result.lines).toContain(`Deleted webhook endpoint ${orphan.id}: an earlier run created it for the same URL but its secret is not in Key Vault.`);
  expect((await ourEndpoints()).map((e) => e.id)).toEqual([current.id]);

  // Key Vault back to the placeholder (a new vault): the endpoint is replaced, since its secret cannot be read again.
  await vault.set(SECRET.stripeWebhookSecret, PLACEHOLDER, { placeholder: 'true' });
  const replaced = await run();
  expect(replaced.endpointId).not.toBe(current.id);
  expect(replaced.lines.join('\n')).toContain(`Deleted webhook endpoint ${current.id} for the same URL: its signing secret is not in Key Vault`);
  expect((await ourEndpoints()).map((e) => e.id)).toEqual([replaced.endpointId]);
  restartPayment();
  expect((await pay())[0]).toMatch(/ -> 200 /);
});

test('every event type the endpoint subscribes to is one the webhook acts on', async () => {
  // A type outside the list is acknowledged and ignored; each listed type reaches the payment logic.
  const { deliver, stripeEvent, paymentIntentObject, chargeObject } = await import('./helpers');
  const ignored = await deliver(host, stripeEvent('customer.created', { id: 'cus_1' }));
  expect(ignored.body.action).toBe('ignored_type');
  const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86_400;
  const subscriptionDetails = { subscription: 'sub_types_1', metadata: { userId: buyer.user.id, planType: 'pro' } };
  const invoice = {
    id: 'in_types_1',
    object: 'invoice',
    customer: 'cus_types_1',
    customer_email: buyer.user.email,
    status: 'paid',
    amount_paid: 2900,
    currency: 'usd',
    billing_reason: 'subscription_create',
    period_end: periodEnd,
    lines: { object: 'list', data: [{ period: { start: periodEnd - 30 * 86_400, end: periodEnd } }] },
    parent: { type: 'subscription_details', subscription_details: subscriptionDetails },
  };
  const subscription = {
    id: 'sub_types_1',
    object: 'subscription',
    customer: 'cus_types_1',
    status: 'active',
    cancel_at_period_end: false,
    cancel_at: null,
    items: { object: 'list', data: [{ current_period_end: periodEnd }] },
    metadata: subscriptionDetails.metadata,
  };
  const objects: Record<string, Record<string, unknown>> = {
    'payment_intent.succeeded': paymentIntentObject('pi_types_1', { userId: buyer.user.id, planType: 'pro', amount: 2900 }),
    'payment_intent.payment_failed': paymentIntentObject('pi_types_2', {
      userId: buyer.user.id,
      planType: 'pro',
      amount: 2900,
      status: 'requires_payment_method',
    }),
    'charge.refunded': chargeObject('pi_types_1', 2900, 2900),
    'charge.dispute.created': {
      id: 'dp_types_1',
      object: 'dispute',
      charge: 'ch_pi_types_1',
      payment_intent: 'pi_types_1',
      status: 'needs_response',
      reason: 'fraudulent',
    },
    'charge.dispute.closed': {
      id: 'dp_types_1',
      object: 'dispute',
      charge: 'ch_pi_types_1',
      payment_intent: 'pi_types_1',
      status: 'lost',
      reason: 'fraudulent',
    },
    'invoice.paid': invoice,
    'invoice.payment_failed': { ...invoice, id: 'in_types_2', status: 'open', amount_paid: 0, billing_reason: 'subscription_cycle' },
    'customer.subscription.updated': subscription,
    'customer.subscription.deleted': { ...subscription, status: 'canceled' },
  };
  for (const type of HANDLED_EVENT_TYPES) {
    const answer = await deliver(host, stripeEvent(type, objects[type]));
    expect({ type, status: answer.status, ignored: answer.body.action === 'ignored_type' }).toEqual({ type, status: 200, ignored: false });
  }
});
