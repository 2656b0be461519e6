/**
 * Telemetry against a local stand-in for Application Insights' ingestion endpoint: the connection
 * string's IngestionEndpoint points at an HTTPS server here that takes what the Azure Monitor
 * exporter sends (POST /v2.1/track, a gzipped JSON array of envelopes) and answers as the service
 * does. The exporter speaks only HTTPS, so the server has a self-signed certificate for 127.0.0.1
 * (tests/fixtures/tls) that the host process trusts through NODE_EXTRA_CA_CERTS. `npm start` runs
 * as its own process; one user journey over real HTTP, then Ctrl-C (which flushes the exporter)
 * and the envelopes are read back.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runJourney } from '../../scripts/journey';
import { latestCode } from '../../tools/outbox';
import { startHostProcess } from '../e2e/process';
import { INGESTION_CA, startIngestion, type Envelope, type Ingestion } from '../helpers/ingestion';

jest.setTimeout(120_000);

const IKEY = '11111111-2222-4333-8444-555555555555';
let ingestion: Ingestion;
let dir: string;

beforeAll(async () => {
  ingestion = await startIngestion();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'telemetry-'));
});

afterAll(async () => {
  await ingestion.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a payment journey is one operation across payment and identity (requests, dependencies, traces), the report one across orchestrator and visual, and no secret or code is recorded', async () => {
  const host = await startHostProcess(dir, {
    LOG_LEVEL: 'info',
    APPLICATIONINSIGHTS_CONNECTION_STRING: `InstrumentationKey=${IKEY};IngestionEndpoint=${ingestion.url}/;LiveEndpoint=${ingestion.url}/`,
    NODE_EXTRA_CA_CERTS: INGESTION_CA,
    // The exporter's own usage statistics go to a fixed Microsoft endpoint: not from a test.
    APPLICATION_INSIGHTS_NO_STATSBEAT: 'true',
    APPLICATIONINSIGHTS_SDKSTATS_DISABLED: 'true',
  });
  let journey: Awaited<ReturnType<typeof runJourney>>;
  try {
    journey = await runJourney({ baseUrl: host.origin, dataDir: path.join(dir, '.data'), email: 'traced@example.com', company: 'Traceable Works' });
  } finally {
    // Ctrl-C: the host stops and the exporter sends what it still holds.
    await host.stop();
  }
  const settings = JSON.parse(fs.readFileSync(path.join(dir, 'local.settings.json'), 'utf8')).Values as Record<string, string>;
  const secrets = [
    latestCode(path.join(dir, '.data'), 'traced@example.com'),
    journey.user.accessToken,
    journey.user.refreshToken,
    journey.refreshed.accessToken,
    journey.refreshed.refreshToken,
    journey.subscription.clientSecret!,
    settings.AUTH_ADMIN_TOKEN,
    settings.STRIPE_WEBHOOK_SECRET,
    settings.SERVICE_TOKEN_SECRET,
    settings.OTP_HMAC_KEY,
    settings.VISUAL_API_TOKEN,
    ...(JSON.parse(settings.JWT_SIGNING_KEYS) as { d: string }[]).map((k) => k.d),
  ];
  expect(secrets.every(Boolean)).toBe(true);

  const all = ingestion.envelopes;
  expect(ingestion.paths.every((p) => p === 'POST /v2.1/track')).toBe(true);
  expect(all.every((e) => e.iKey === IKEY)).toBe(true);
  const requests = all.filter((e) => e.data.baseType === 'RequestData');
  const dependencies = all.filter((e) => e.data.baseType === 'RemoteDependencyData');
  const traces = all.filter((e) => e.data.baseType === 'MessageData');
  const op = (e: Envelope) => e.tags['ai.operation.id'];
  const parent = (e: Envelope) => e.tags['ai.operation.parentId'];

  // The webhook Stripe delivered with the paid invoice: payment's request, its PUT to identity, identity's request, all one operation.
  const webhooks = requests.filter((r) => r.data.baseData.name === 'POST /payment/webhook');
  const push = dependencies.find(
    (d) =>
      webhooks.some((w) => op(w) === op(d)) && d.data.baseData.type === 'Http' && /^PUT \/identity\/admin\/users\/[^/]+\/plan$/.test(d.data.baseData.name!),
  )!;
  expect(push).toBeDefined();
  const webhook = webhooks.find((w) => op(w) === op(push))!;
  const operation = op(webhook);
  expect(parent(push)).toBe(webhook.data.baseData.id);
  expect(push.data.baseData.resultCode).toBe('200');
  const planRequest = requests.find((r) => r.data.baseData.name === 'PUT /identity/admin/users/{userId}/plan')!;
  expect(op(planRequest)).toBe(operation);
  expect(parent(planRequest)).toBe(push.data.baseData.id);
  expect(planRequest.data.baseData.properties).toMatchObject({ 'platform.service': 'identity', 'faas.name': 'identity-user-plan' });
  // SQL on both sides of the call, as dependencies of the same operation.
  const sql = dependencies.filter((d) => op(d) === operation && d.data.baseData.type === 'SQL');
  expect(sql.length).toBeGreaterThan(2);
  expect(sql.map((d) => d.data.baseData.data).join('\n')).toMatch(/update "users" set "plan" = \?/);
  // The structured log line of the sync, a trace of the same operation with its fields as customDimensions.
  const synced = traces.find((t) => t.data.baseData.message === 'plan synced to identity')!;
  expect(synced).toBeDefined();
  expect(op(synced)).toBe(operation);
  expect(synced.data.baseData.properties).toMatchObject({
    service: 'payment',
    userId: journey.user.user.id,
    plan: 'pro',
    paymentIntentId: journey.intent.paymentIntentId,
  });

  // Subscribing: payment validated the token at identity, in the same operation.
  const create = requests.find((r) => r.data.baseData.name === 'POST /payment/subscriptions')!;
  const validate = requests.find((r) => r.data.baseData.name === 'GET /identity/auth/validate' && op(r) === op(create));
  expect(validate).toBeDefined();
  expect(traces.find((t) => t.data.baseData.message === 'subscription created')).toMatchObject({
    tags: expect.objectContaining({ 'ai.operation.id': op(create) }),
  });
  // Storage calls are dependencies too (Azurite's blob, queue and table endpoints).
  expect(dependencies.some((d) => d.data.baseData.type === 'Http' && /devstoreaccount1/.test(d.data.baseData.name!))).toBe(true);

  // The report: the queue-triggered run and the visual service's renders are one operation.
  const run = requests.find((r) => r.data.baseData.name === 'orchestrator-run-execution')!;
  expect(run).toBeDefined();
  const renders = requests.filter((r) => r.data.baseData.name?.startsWith('POST /visual/') && op(r) === op(run));
  expect(renders.length).toBeGreaterThan(0);
  expect(traces.find((t) => t.data.baseData.message === 'execution run finished')).toMatchObject({
    tags: expect.objectContaining({ 'ai.operation.id': op(run) }),
  });

  // Nothing recorded carries a secret, a token or the sign-in code; URLs go without their query strings.
  const text = JSON.stringify(all);
  for (const secret of secrets) expect(text).not.toMatch(new RegExp(`(^|[^0-9A-Za-z])${secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^0-9A-Za-z]|$)`));
  for (const e of [...requests, ...dependencies]) expect(e.data.baseData.url ?? e.data.baseData.data ?? '').not.toMatch(/^https?:\/\/[^ ]*\?/);
});
