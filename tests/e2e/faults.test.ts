import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TableClient } from '@azure/data-tables';
import Stripe from 'stripe';
import { freePort, startAzurite, type AzuriteHandle } from '../../devhost/azurite';
import { api } from '../helpers/api';
import { signInAt } from '../helpers/identity';
import { waitFor } from '../helpers/wait';
import { ACME } from '../orchestrator/helpers';
import { startHostProcess, type HostProcess } from './process';

/**
 * The journey with faults, with the services deployed apart as in Azure: identity in one host
 * process, payment and orchestrator in another, one storage account (Azurite) and one database.
 * Identity goes away during the webhook and comes back; the visual service is unreachable throughout.
 */
let dir: string;
let azurite: AzuriteHandle;
let identity: HostProcess | undefined;
let workers: HostProcess;
let identityPort: number;

const dataDir = () => path.join(dir, '.data');
const startIdentity = () => startHostProcess(dir, { SERVICES: 'identity', PORT: String(identityPort), AzureWebJobsStorage: azurite.connectionString });

const signIn = (email: string) => signInAt(identity!.urls.identity, dataDir(), email);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journey-faults-'));
  azurite = await startAzurite();
  identityPort = await freePort();
  const deadPort = await freePort();
  identity = await startIdentity();
  workers = await startHostProcess(dir, {
    SERVICES: 'payment,orchestrator',
    AzureWebJobsStorage: azurite.connectionString,
    IDENTITY_URL: identity.urls.identity,
    VISUAL_URL: `http://127.0.0.1:${deadPort}/visual`,
    PAYMENT_SYNC_RETRY_SCHEDULE: '*/1 * * * * *',
    PAYMENT_SYNC_RETRY_BASE_SECONDS: '1',
    PAYMENT_SYNC_RETRY_MAX_DELAY_SECONDS: '2',
  });
});
afterAll(async () => {
  await workers?.stop();
  await identity?.stop();
  await azurite?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('identity down during the webhook: the payment stands, the failed sync is stored, and the retry timer syncs the plan once identity is back', async () => {
  const user = await signIn('unlucky@example.com');
  const plans = await api(`${workers.urls.payment}/plans`);
  expect(plans.status).toBe(200);
  const pro = plans.body.plans.find((p: any) => p.id === 'pro');
  const intent = await api(`${workers.urls.payment}/create-payment-intent`, {
    method: 'POST',
    token: user.accessToken,
    body: { amount: pro.price, planType: 'pro', userId: user.user.id },
  });
  expect(intent.status).toBe(200);

  await identity!.stop();
  identity = undefined;

  const stripeUrl = new URL(JSON.parse(fs.readFileSync(path.join(dataDir(), 'stripe-emulator.json'), 'utf8')).url);
  const stripe = new Stripe('sk_test_offline_emulator', { host: stripeUrl.hostname, port: Number(stripeUrl.port), protocol: 'http', telemetry: false });
  const confirmed = await stripe.paymentIntents.confirm(intent.body.paymentIntentId, { payment_method: 'pm_card_visa' });
  expect(confirmed.status).toBe('succeeded');
  const delivery = decodeURIComponent(String(confirmed.lastResponse.headers['emulator-webhook-delivery']));
  expect(delivery).toMatch(/^payment_intent\.succeeded evt_\S+ -> 200 /);
  expect(JSON.parse(delivery.replace(/^.*? -> 200 /, ''))).toMatchObject({ sync: { success: false, userId: user.user.id, retryStored: true } });

  // The failed-sync record, keyed exactly auth_sync_failed:<userId>, in Table Storage.
  const records = TableClient.fromConnectionString(azurite.connectionString, 'paymentfailedsyncs', { allowInsecureConnection: true });
  const record = await records.getEntity<{ value: string }>('auth_sync_failed', `auth_sync_failed:${user.user.id}`);
  const value = JSON.parse(record.value);
  expect(value).toEqual({ userId: user.user.id, planType: 'pro', error: expect.any(String), timestamp: expect.any(String), retryCount: expect.any(Number) });

  // The payment stays successful while identity is away.
  const during = await api(`${workers.urls.payment}/user-status`, { token: user.accessToken });
  expect(during.status).toBe(200);
  expect(during.body.payments[0]).toMatchObject({ paymentIntentId: intent.body.paymentIntentId, status: 'succeeded' });
  expect(['pending', 'failed']).toContain(during.body.sync.state);
  // The retry timer (every second here) may already have failed again: the record counts the
  // retries made when it was written, 0 for the webhook's own failure, never more than SQL's since.
  expect(Number.isInteger(value.retryCount) && value.retryCount >= 0).toBe(true);
  expect(value.retryCount).toBeLessThanOrEqual(during.body.sync.attempts - 1);

  // Identity comes back on the same address; the payment service's retry timer finishes the job.
  identity = await startIdentity();
  const validated = await waitFor(
    async () => {
      const v = await api(`${identity!.urls.identity}/auth/validate`, { token: user.accessToken });
      return v.body.user?.plan === 'pro' && v.body;
    },
    60_000,
    'the plan to reach identity',
  );
  expect(validated.user).toMatchObject({ plan: 'pro', status: 'active' });
  const after = await waitFor(
    async () => {
      const s = await api(`${workers.urls.payment}/user-status`, { token: user.accessToken });
      return s.body.sync?.state === 'synced' && s.body;
    },
    60_000,
    'payment to record the sync',
  );
  expect(after).toMatchObject({ plan: 'pro', sync: { state: 'synced' } });
});

test('visual service down: the report completes without visuals and the dashboard says why', async () => {
  identity ??= await startIdentity();
  const user = await signIn('reporter@example.com');
  const order = await api(`${workers.urls.orchestrator}/api/reports`, {
    method: 'POST',
    token: user.accessToken,
    body: { ...ACME, company_name: 'Northwind Bakeries' },
  });
  expect(order.status).toBe(202);
  const report = await waitFor(
    async () => {
      const r = await api(`${workers.urls.orchestrator}/api/reports/${order.body.trackingId}`, { token: user.accessToken });
      return r.body.status !== 'processing' && r.body;
    },
    60_000,
    'the report to finish',
  );
  expect(report).toMatchObject({ status: 'completed', visuals: { status: 'skipped', error: expect.any(String) } });
  expect(report.downloadLinks.length).toBeGreaterThan(0);
  expect(report.downloadLinks[0]).toMatchObject({ kind: 'pdf', url: expect.stringMatching(/^http/) });
  const pdf = Buffer.from(await (await fetch(report.downloadLinks[0].url)).arrayBuffer());
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  expect(pdf.toString('latin1')).not.toMatch(/\/Subtype \/Image/);

  const admin = await signIn('admin@example.com');
  const status = await api(`${workers.urls.orchestrator}/api/admin/status/${order.body.trackingId}`, { token: admin.accessToken });
  expect(status.status).toBe(200);
  const pdfStep = status.body.data.logs.find((l: any) => l.step_name === 'PDF_ENHANCEMENT' && l.status === 'completed');
  expect(JSON.parse(pdfStep.metadata)).toMatchObject({ visuals_status: 'skipped', visuals_error: expect.any(String) });
  const executions = await api(`${workers.urls.orchestrator}/api/admin/dashboard/executions?limit=10`, { token: admin.accessToken });
  expect(executions.body.executions.recent.find((e: any) => e.tracking_id === order.body.trackingId)).toMatchObject({
    processing_status: 'completed',
    health_status: 'DEGRADED',
  });
});
