/**
 * The Azure Functions entry point as the Node worker loads it (a fresh process per case, through
 * the worker's API: app.* registers for real): what it registers, that start-up loads no service
 * code, and how a service whose secret is an unresolved Key Vault reference is stopped alone.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startAzurite, type AzuriteHandle } from '../../devhost/azurite';
import { PROJECT_ROOT } from '../../devhost/paths';
import { generateDevSecrets } from '../../devhost/settings';
import FUNCTION_INDEX from '../../functions/function-index.json';
import { INGESTION_CA, startIngestion } from '../helpers/ingestion';

interface Report {
  functions: { name: string; trigger: Record<string, any> }[];
  hooks: Record<string, number>;
  capabilities: Record<string, string>;
  loadedAtStart: string[];
  loadedAfter: string[];
  packagesAtStart: string[];
  packagesAfter: string[];
  vendoredFromNodeModules: string[];
  results: { name: string; status?: number; body?: any; error?: string; routesLoaded: string[]; packages: string[]; vendoredFromNodeModules?: string[] }[];
}

let dir: string;
let secrets: Record<string, string>;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'entry-'));
  const sample = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'local.settings.sample.json'), 'utf8'));
  secrets = await generateDevSecrets(sample.Values);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function loadEntry(
  env: Record<string, string>,
  invocations: { name: string; path: string; traceParent?: string }[] = [],
): Promise<{ report: Report; stderr: string }> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(__dirname, 'entry-worker.js'), JSON.stringify(invocations)], {
    env: { PATH: process.env.PATH, ...secrets, DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'info', AzureWebJobsStorage: 'UseDevelopmentStorage=true', ...env },
  });
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`no result:\n${stdout}\n${stderr}`);
  return { report: JSON.parse(line.slice('RESULT '.length)), stderr };
}

const indexed = (services: string[]) => services.flatMap((s) => (FUNCTION_INDEX as Record<string, { name: string }[]>)[s].map((f) => f.name)).sort();

test.each(['identity', 'payment', 'orchestrator', 'visual'])(
  'a cold %s answers its first health call from its health module alone, and loads its routes soon after (or with a call that needs them)',
  async (service) => {
    const { report } = await loadEntry({ SERVICES: service }, [
      { name: `${service}-health`, path: `${service}/health` },
      { name: 'wait', path: '600' },
    ]);
    // No Azurite, identity or Stripe server runs here: some answer 503, from their health module alone all the same.
    expect(report.results[0]).toMatchObject({ status: expect.any(Number), body: { service }, routesLoaded: [] });
    expect(report.results[1].routesLoaded).toEqual([service]);
  },
);

test('a call right after the first health call loads the service then and is answered', async () => {
  const { report } = await loadEntry({ SERVICES: 'payment' }, [
    { name: 'payment-health', path: 'payment/health' },
    { name: 'payment-plans', path: 'payment/plans' },
  ]);
  expect(report.results[0].routesLoaded).toEqual([]);
  expect(report.results[1]).toMatchObject({
    status: 200,
    body: { plans: expect.arrayContaining([expect.objectContaining({ id: 'pro' })]) },
    routesLoaded: ['payment'],
  });
});

test("with SERVICES=payment it registers exactly payment's functions, loads no service code at start-up, and the first invocation loads payment alone", async () => {
  const { report } = await loadEntry({ SERVICES: 'payment' }, [{ name: 'payment-plans', path: 'payment/plans' }]);
  expect(report.functions.map((f) => f.name).sort()).toEqual(indexed(['payment']));
  expect(report.loadedAtStart).toEqual([]);
  expect(report.results[0]).toMatchObject({ status: 200, body: { plans: expect.arrayContaining([expect.objectContaining({ id: 'pro' })]) } });
  expect(report.loadedAfter).toEqual(['payment']);
});

// What a cold start pays for: the entry point loads the Functions library alone, and a service's
// first request loads the libraries its health checks use, not those of routes it was not asked for;
// the Storage probes are single requests without the Storage SDKs (shared/storage-rest.ts).
describe('cold starts', () => {
  let azurite: AzuriteHandle;
  beforeAll(async () => {
    azurite = await startAzurite();
  });
  afterAll(() => azurite.stop());

  test.each([
    // On SQLite the health's `select 1` runs on the connection alone (shared/sql/db.ts pingSqlite): no query builder.
    [
      'identity',
      [
        'kysely',
        '@azure/storage-blob',
        '@azure/data-tables',
        '@azure/communication-email',
        'nodemailer',
        'undici',
        'stripe',
        'pdfkit',
        '@myriaddreamin/typst-ts-node-compiler',
        'fontkit',
        'jose',
        'ajv',
      ],
    ],
    [
      'payment',
      // Its Table probe is one request without the SDK (shared/storage-rest.ts).
      [
        'kysely',
        '@azure/storage-blob',
        '@azure/data-tables',
        'nodemailer',
        'pdfkit',
        '@myriaddreamin/typst-ts-node-compiler',
        'fontkit',
        'openai',
        'stripe',
        'jose',
        'ajv',
        'undici',
      ],
    ],
    // Its health takes a query (`schema=check`, `skip=sql`), but a plain call has none to validate: ajv waits, and jose for the admin check.
    [
      'orchestrator',
      [
        'kysely',
        '@azure/storage-blob',
        '@azure/data-tables',
        'pdfkit',
        '@myriaddreamin/typst-ts-node-compiler',
        'fontkit',
        'pptxgenjs',
        'openai',
        'nodemailer',
        'stripe',
        '@napi-rs/canvas',
        'jose',
        'ajv',
      ],
    ],
    [
      'visual',
      [
        '@azure/storage-blob',
        '@azure/data-tables',
        'kysely',
        'quickchart-js',
        'cross-fetch',
        'nodemailer',
        'stripe',
        'pdfkit',
        '@myriaddreamin/typst-ts-node-compiler',
        'fontkit',
        'jose',
        'ajv',
      ],
    ],
  ])('a cold %s loads only what its first health call needs', async (service, notLoaded) => {
    const { report } = await loadEntry({ SERVICES: service, AzureWebJobsStorage: azurite.connectionString }, [
      { name: `${service}-health`, path: `${service}/health` },
    ]);
    // Payment's health asks identity and the Stripe server, neither running here: it answers 503, with the same libraries loaded.
    expect(report.results[0]).toMatchObject({ status: service === 'payment' ? 503 : 200, body: { service } });
    expect(report.packagesAtStart).toEqual(['@azure/functions', '@azure/functions-extensions-base', 'cookie']);
    expect(report.packagesAfter.filter((name) => notLoaded.includes(name))).toEqual([]);
    // What it does load of the libraries we bundle (shared/vendor.ts) comes from the bundles.
    expect(report.vendoredFromNodeModules).toEqual([]);
  });

  test("with Application Insights configured, the first answer does not wait for the OpenTelemetry SDK, which loads right after it and records that invocation's SQL as the host operation's child; the exporter loads with the first batch sent", async () => {
    const ingestion = await startIngestion();
    try {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const hostSpan = '00f067aa0ba902b7';
      const { report } = await loadEntry(
        {
          SERVICES: 'identity',
          AzureWebJobsStorage: azurite.connectionString,
          APPLICATIONINSIGHTS_CONNECTION_STRING: `InstrumentationKey=00000000-0000-4000-8000-000000000000;IngestionEndpoint=${ingestion.url}/`,
          NODE_EXTRA_CA_CERTS: INGESTION_CA,
        },
        [
          { name: 'identity-health', path: 'identity/health', traceParent: `00-${traceId}-${hostSpan}-01` },
          { name: 'wait', path: '100' },
          { name: 'terminate', path: '' },
        ],
      );
      expect(report.results[0].status).toBe(200);
      expect(report.results[0].packages).not.toContain('@opentelemetry/sdk-trace-base');
      expect(report.results[1].packages).toEqual(expect.arrayContaining(['@opentelemetry/sdk-trace-base', '@opentelemetry/sdk-logs']));
      expect(report.results[1].packages).not.toContain('@azure/monitor-opentelemetry-exporter');
      // (The exporter, loaded by the flush at shutdown, brings its own OpenTelemetry copies from node_modules.)
      expect(report.results[1].vendoredFromNodeModules).toEqual([]);
      // The health call's `select 1`, run before the SDK loaded, is recorded in the host's operation, under the host's span.
      const sql = ingestion.envelopes.filter((e) => e.data.baseType === 'RemoteDependencyData' && /select 1/i.test(e.data.baseData.data ?? ''));
      expect(sql).toHaveLength(1);
      expect(sql[0].tags).toMatchObject({ 'ai.operation.id': traceId, 'ai.operation.parentId': hostSpan });
    } finally {
      await ingestion.close();
    }
  });
});

test('with every service it registers every indexed function as the host expects them, no appStart work, and appTerminate', async () => {
  const { report } = await loadEntry({ SERVICES: 'identity,payment,orchestrator,visual' });
  expect(report.functions.map((f) => f.name).sort()).toEqual(indexed(['identity', 'payment', 'orchestrator', 'visual']));
  for (const { trigger } of report.functions.filter((f) => f.trigger.type === 'httpTrigger')) {
    expect(trigger.authLevel).toBe('anonymous');
    expect(trigger.route.split('/')[0]).toMatch(/^(identity|payment|orchestrator|visual|quickchart)$/);
    expect(trigger.route.toLowerCase().startsWith('admin')).toBe(false);
  }
  // Without PLATFORM_STORAGE (locally) the data account is AzureWebJobsStorage's: the trigger reads it there.
  expect(report.functions.filter((f) => f.trigger.type === 'queueTrigger').map((f) => f.trigger)).toEqual([
    expect.objectContaining({ queueName: '%ORCHESTRATOR_QUEUE%', connection: 'AzureWebJobsStorage' }),
  ]);
  expect(report.functions.find((f) => f.name === 'payment-sync-retry')!.trigger).toMatchObject({
    type: 'timerTrigger',
    schedule: '%PAYMENT_SYNC_RETRY_SCHEDULE%',
  });
  expect(report.hooks).toMatchObject({ appStart: 0, appTerminate: 1 });
  expect(report.loadedAtStart).toEqual([]);
  // Without a connection string no telemetry is set up, and the host keeps forwarding logs.
  expect(report.capabilities.WorkerOpenTelemetryEnabled).toBeUndefined();
});

test("in Azure the report queue trigger reads the data account (connection PLATFORM_STORAGE), not the app's own AzureWebJobsStorage", async () => {
  // As app-settings.bicep sets them: the host's own account, and the data account with the trigger's identity-based connection.
  const { report } = await loadEntry({
    SERVICES: 'orchestrator',
    AzureWebJobsStorage: '',
    AzureWebJobsStorage__accountName: 'sthorchabc',
    PLATFORM_STORAGE__accountName: 'stabc',
    PLATFORM_STORAGE__queueServiceUri: 'https://stabc.queue.core.windows.net/',
    PLATFORM_STORAGE__credential: 'managedidentity',
  });
  expect(report.functions.filter((f) => f.trigger.type === 'queueTrigger').map((f) => f.trigger)).toEqual([
    expect.objectContaining({ queueName: '%ORCHESTRATOR_QUEUE%', connection: 'PLATFORM_STORAGE' }),
  ]);
});

test('a secret that is still a Key Vault reference stops the services that read it, naming the setting, and only them', async () => {
  const reference = '@Microsoft.KeyVault(SecretUri=https://kv-report-x7.vault.azure.net/secrets/stripe-webhook-secret/)';
  const { report, stderr } = await loadEntry({ SERVICES: 'identity,payment,orchestrator,visual', STRIPE_WEBHOOK_SECRET: reference }, [
    { name: 'payment-health', path: 'payment/health' },
    { name: 'payment-plans', path: 'payment/plans' },
    { name: 'identity-jwks', path: 'identity/.well-known/jwks.json' },
  ]);
  const [health, plans, jwks] = report.results;
  expect(health).toMatchObject({
    status: 503,
    body: { service: 'payment', status: 'stopped', problems: [expect.stringContaining('STRIPE_WEBHOOK_SECRET is an unresolved Key Vault reference')] },
  });
  expect(plans).toMatchObject({ status: 503, body: { code: 'SERVICE_MISCONFIGURED', message: expect.stringContaining('STRIPE_WEBHOOK_SECRET') } });
  expect(JSON.stringify(report.results)).not.toContain('kv-report-x7');
  // Payment's timers are not registered (nothing runs with a forged-able secret); its routes answer 503.
  const names = report.functions.map((f) => f.name);
  expect(names).not.toContain('payment-sync-retry');
  expect(names).toContain('payment-webhook');
  // The other services run: identity answers, and the stopped service's code was never loaded.
  expect(jwks).toMatchObject({ status: 200, body: { keys: [expect.objectContaining({ kty: 'EC' })] } });
  expect(report.loadedAfter).toEqual(['identity']);
  // The start-up log says why, naming the setting.
  expect(stderr).toMatch(/"level":"error".*"msg":"payment service stopped: STRIPE_WEBHOOK_SECRET is an unresolved Key Vault reference/);
  expect(report.hooks.appStart).toBe(1);
});
