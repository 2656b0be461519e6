/**
 * The local Stripe server's webhook endpoint API, driven by the official client as
 * `npm run stripe:webhook` drives Stripe, and its deliveries: only to enabled endpoints subscribed
 * to the event's type, each signed with that endpoint's own secret.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Stripe from 'stripe';
import { generateDevSecrets } from '../../devhost/settings';
import { HANDLED_EVENT_TYPES } from '../../functions/payment/event-types';
import { createLogger } from '../../shared/logging';
import { MAX_ENDPOINTS } from '../../tools/stripe-emulator/webhook-endpoints';
import { startStripeEmulator, type StripeEmulator } from '../../tools/stripe-emulator/server';
import { waitFor } from '../helpers/wait';

let emulator: StripeEmulator;
let receiver: http.Server;
let base: string;
const received: { path: string; body: string; signature: string }[] = [];
let stripe: Stripe;

beforeAll(async () => {
  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    received.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString(), signature: String(req.headers['stripe-signature']) });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
  }
  receiver = http.createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  emulator = await startStripeEmulator({ log: createLogger({ test: 'emulator' }) });
  const url = new URL(emulator.url);
  stripe = new Stripe('sk_test_endpoints', { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
});
afterAll(async () => {
  await emulator.stop();
  await new Promise<void>((r) => receiver.close(() => r()));
});
beforeEach(async () => {
  received.length = 0;
  for await (const endpoint of stripe.webhookEndpoints.list({ limit: 100 })) await stripe.webhookEndpoints.del(endpoint.id);
});

const payWith = async (method = 'pm_card_visa') => {
  const pi = await stripe.paymentIntents.create({ amount: 2900, currency: 'usd', metadata: { userId: 'u1', planType: 'pro' } });
  return stripe.paymentIntents.confirm(pi.id, { payment_method: method }).catch((e) => e);
};

test('create answers the endpoint with its signing secret, which no later answer carries', async () => {
  const created = await stripe.webhookEndpoints.create({
    url: `${base}/a`,
    enabled_events: ['payment_intent.succeeded'],
    api_version: '2026-10-28.endive',
    description: 'ours',
    metadata: { managed_by: 'x' },
  });
  expect(created).toMatchObject({
    object: 'webhook_endpoint',
    url: `${base}/a`,
    enabled_events: ['payment_intent.succeeded'],
    api_version: '2026-10-28.endive',
    status: 'enabled',
    description: 'ours',
    metadata: { managed_by: 'x' },
    livemode: false,
  });
  expect(created.id).toMatch(/^we_/);
  expect(created.secret).toMatch(/^whsec_\w{30,}$/);
  expect(await stripe.webhookEndpoints.retrieve(created.id)).not.toHaveProperty('secret');
  expect((await stripe.webhookEndpoints.list()).data[0]).not.toHaveProperty('secret');
});

test('list is newest first and pages with limit and starting_after, as the client auto-paginates', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await stripe.webhookEndpoints.create({ url: `${base}/p${i}`, enabled_events: ['*'] })).id);
  const page = await stripe.webhookEndpoints.list({ limit: 2 });
  expect(page.data.map((e) => e.id)).toEqual([ids[4], ids[3]]);
  expect(page.has_more).toBe(true);
  const next = await stripe.webhookEndpoints.list({ limit: 2, starting_after: ids[3] });
  expect(next.data.map((e) => e.id)).toEqual([ids[2], ids[1]]);
  const all: string[] = [];
  for await (const endpoint of stripe.webhookEndpoints.list({ limit: 2 })) all.push(endpoint.id);
  expect(all).toEqual([...ids].reverse());
});

test('update changes url, events, status, description and metadata; the API version cannot change', async () => {
  const created = await stripe.webhookEndpoints.create({ url: `${base}/u`, enabled_events: ['charge.refunded'], metadata: { a: '1', b: '2' } });
  const updated = await stripe.webhookEndpoints.update(created.id, {
    url: `${base}/u2`,
    enabled_events: ['payment_intent.succeeded', 'charge.refunded'],
    disabled: true,
    description: 'd',
    metadata: { b: '', c: '3' },
  });
  expect(updated).toMatchObject({
    url: `${base}/u2`,
    enabled_events: ['payment_intent.succeeded', 'charge.refunded'],
    status: 'disabled',
    description: 'd',
    metadata: { a: '1', c: '3' },
  });
  expect((await stripe.webhookEndpoints.update(created.id, { disabled: false })).status).toBe('enabled');
  const error = await stripe.webhookEndpoints.update(created.id, { api_version: '2020-08-27' } as never).catch((e) => e);
  expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
  expect(error).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'api_version', message: 'Received unknown parameter: api_version' });
});

test('bad parameters answer 400 naming them; delete answers deleted, then the id is unknown', async () => {
  await expect(stripe.webhookEndpoints.create({ url: 'not a url', enabled_events: ['*'] })).rejects.toMatchObject({ statusCode: 400, param: 'url' });
  await expect(stripe.webhookEndpoints.create({ url: `${base}/x`, enabled_events: [] as never })).rejects.toMatchObject({
    statusCode: 400,
    code: 'parameter_missing',
    param: 'enabled_events',
  });
  await expect(stripe.webhookEndpoints.create({ url: `${base}/x`, enabled_events: ['Not An Event'] as never })).rejects.toMatchObject({
    statusCode: 400,
    param: 'enabled_events',
  });
  await expect(stripe.webhookEndpoints.create({ url: `${base}/x`, enabled_events: ['*'], api_version: 'latest' as never })).rejects.toMatchObject({
    statusCode: 400,
    param: 'api_version',
  });
  const created = await stripe.webhookEndpoints.create({ url: `${base}/d`, enabled_events: ['*'] });
  expect(await stripe.webhookEndpoints.del(created.id)).toMatchObject({ id: created.id, object: 'webhook_endpoint', deleted: true });
  await expect(stripe.webhookEndpoints.retrieve(created.id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
  await expect(stripe.webhookEndpoints.del(created.id)).rejects.toMatchObject({ statusCode: 404 });
});

test(`an account holds at most ${MAX_ENDPOINTS} endpoints`, async () => {
  for (let i = 0; i < MAX_ENDPOINTS; i++) await stripe.webhookEndpoints.create({ url: `${base}/n${i}`, enabled_events: ['*'] });
  await expect(stripe.webhookEndpoints.create({ url: `${base}/over`, enabled_events: ['*'] })).rejects.toMatchObject({ statusCode: 400 });
});

test('an event goes only to enabled endpoints subscribed to its type, each signed with its own secret and rendered in its API version', async () => {
  const succeeded = await stripe.webhookEndpoints.create({
    url: `${base}/succeeded`,
    enabled_events: ['payment_intent.succeeded'],
    api_version: '2025-01-27.acacia',
  });
  const everything = await stripe.webhookEndpoints.create({ url: `${base}/all`, enabled_events: ['*'] });
  const refunds = await stripe.webhookEndpoints.create({ url: `${base}/refunds`, enabled_events: ['charge.refunded'] });
  const disabled = await stripe.webhookEndpoints.create({ url: `${base}/disabled`, enabled_events: ['*'] });
  await stripe.webhookEndpoints.update(disabled.id, { disabled: true });

  const confirmed = await payWith();
  expect(received.map((r) => r.path).sort()).toEqual(['/all', '/succeeded']);
  const delivery = decodeURIComponent(confirmed.lastResponse.headers['emulator-webhook-delivery']).split('\n');
  expect(delivery).toHaveLength(2);
  for (const line of delivery) expect(line).toMatch(/^payment_intent\.succeeded evt_\S+ -> 200 \{"received":true\}$/);

  const at = (p: string) => received.find((r) => r.path === p)!;
  const one = stripe.webhooks.constructEvent(at('/succeeded').body, at('/succeeded').signature, succeeded.secret!);
  const all = stripe.webhooks.constructEvent(at('/all').body, at('/all').signature, everything.secret!);
  expect(one.id).toBe(all.id);
  expect(one.api_version).toBe('2025-01-27.acacia');
  expect(all.api_version).toBe(Stripe.API_VERSION);
  expect((all as unknown as { pending_webhooks: number }).pending_webhooks).toBe(2);
  // Another endpoint's secret does not verify the delivery.
  expect(() => stripe.webhooks.constructEvent(at('/succeeded').body, at('/succeeded').signature, everything.secret!)).toThrow(
    Stripe.errors.StripeSignatureVerificationError,
  );
  expect(() => stripe.webhooks.constructEvent(at('/succeeded').body, at('/succeeded').signature, refunds.secret!)).toThrow();
});

test('with no endpoint for its type, an event is recorded but delivered nowhere', async () => {
  await stripe.webhookEndpoints.create({ url: `${base}/refunds`, enabled_events: ['charge.refunded'] });
  const confirmed = await payWith();
  expect(received).toEqual([]);
  expect(decodeURIComponent(confirmed.lastResponse.headers['emulator-webhook-delivery'])).toMatch(
    /not delivered \(no enabled webhook endpoint subscribes to payment_intent\.succeeded\)$/,
  );
});

test('npm run stripe:local starts the server for func start with the payment webhook registered, and cleans up on SIGTERM', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stripe-local-'));
  // The local.settings.json npm run func:prepare writes (a command never creates it).
  const sample = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'local.settings.sample.json'), 'utf8'));
  fs.writeFileSync(path.join(dir, 'local.settings.json'), JSON.stringify({ ...sample, Values: await generateDevSecrets(sample.Values) }));
  const script = path.resolve(__dirname, '..', '..', 'tools', 'stripe-emulator', 'cli.js');
  const child = spawn(process.execPath, [script, '--webhook', `${base}/payment/webhook`], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  try {
    const addressFile = path.join(dir, 'data', 'stripe-emulator.json');
    await waitFor(async () => fs.existsSync(addressFile) && /Press Ctrl-C/.test(output), 15_000, 'the local Stripe server');
    const { url } = JSON.parse(fs.readFileSync(addressFile, 'utf8')) as { url: string };
    const local = new URL(url);
    const client = new Stripe('sk_test_local', { host: local.hostname, port: Number(local.port), protocol: 'http', maxNetworkRetries: 0 });
    const [endpoint] = (await client.webhookEndpoints.list()).data;
    expect(endpoint).toMatchObject({
      url: `${base}/payment/webhook`,
      // Exactly the events the payment webhook handles (functions/payment/event-types.ts), whatever they become.
      enabled_events: [...HANDLED_EVENT_TYPES],
    });
    // It signs with STRIPE_WEBHOOK_SECRET of local.settings.json, as the payment app reads it.
    const settings = JSON.parse(fs.readFileSync(path.join(dir, 'local.settings.json'), 'utf8')).Values as Record<string, string>;
    const pi = await client.paymentIntents.create({ amount: 2900, currency: 'usd' });
    await client.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' });
    const delivered = received.find((r) => r.path === '/payment/webhook')!;
    expect(client.webhooks.constructEvent(delivered.body, delivered.signature, settings.STRIPE_WEBHOOK_SECRET).type).toBe('payment_intent.succeeded');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    expect(fs.existsSync(addressFile)).toBe(false);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
