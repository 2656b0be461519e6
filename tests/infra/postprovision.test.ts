/**
 * The postprovision hook's order and failure handling, against local stand-ins: the Key Vault fake,
 * a fake Azure Resource Manager (the SQL firewall rule), the local Stripe server. Migrations
 * themselves need Azure SQL (the SQL Server workflow runs them); here a stand-in fails on cue.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TokenCredential } from '@azure/identity';
import { hookEnv, HOOK_INPUTS, postprovision } from '../../scripts/postprovision';
import { KeyVaultSecrets, SECRET } from '../../scripts/secrets';
import { createLogger } from '../../shared/logging';
import { startStripeEmulator, type StripeEmulator } from '../../tools/stripe-emulator/server';
import { startKeyVaultServer } from './key-vault-server';

const TOKEN = 'entra-token-for-tests';
const credential: TokenCredential = { getToken: async () => ({ token: TOKEN, expiresOnTimestamp: Date.now() + 3600_000 }) };

/** Azure Resource Manager's firewall-rule PUT and DELETE, recording the calls. */
async function startArm() {
  const calls: { method: string; path: string; body: string }[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://arm');
    calls.push({ method: req.method ?? '', path: url.pathname, body: Buffer.concat(chunks).toString() });
    if (req.headers.authorization !== `Bearer ${TOKEN}` || url.searchParams.get('api-version') !== '2023-08-01-preview')
      return void res.writeHead(401).end('{}');
    res.writeHead(req.method === 'PUT' ? 201 : 200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

const ENV = {
  AZURE_SUBSCRIPTION_ID: '00000000-1111-2222-3333-444444444444',
  AZURE_RESOURCE_GROUP: 'rg-test',
  SQL_SERVER_NAME: 'sql-abc',
  SQL_SERVER: 'sql-abc.database.windows.net',
  SQL_DATABASE: 'platform',
  MANAGED_IDENTITY_NAME: 'id-abc',
  MANAGED_IDENTITY_CLIENT_ID: '00112233-4455-6677-8899-aabbccddeeff',
  PAYMENT_URL: 'https://func-payment-abc.azurewebsites.net/payment',
};

let keyVault: Awaited<ReturnType<typeof startKeyVaultServer>>;
let arm: Awaited<ReturnType<typeof startArm>>;
let stripeServer: StripeEmulator;
beforeEach(async () => {
  keyVault = await startKeyVaultServer(TOKEN, { forbidFirst: 2 });
  arm = await startArm();
  stripeServer = await startStripeEmulator({ log: createLogger({ test: 'stripe' }) });
});
afterEach(async () => {
  await Promise.all([keyVault.stop(), arm.stop(), stripeServer.stop()]);
});

function deps(migrate: () => Promise<void>, operatorEnv: NodeJS.ProcessEnv = {}) {
  const lines: string[] = [];
  const vault = new KeyVaultSecrets(keyVault.uri, credential, { retryDelaysMs: [1, 1, 1], sleep: async () => {}, notice: (line) => lines.push(line) });
  return {
    lines,
    deps: {
      credential,
      vault,
      armEndpoint: arm.url,
      publicIp: async () => '203.0.113.7',
      migrate,
      sleep: async () => {},
      out: (line: string) => lines.push(line),
      operatorEnv,
      migrateRetryDelaysMs: [1, 1, 1, 1],
    },
  };
}

const env = () => ({ ...ENV, AZURE_KEY_VAULT_ENDPOINT: keyVault.uri });
const rulePath = (rule: string) =>
  `/subscriptions/${ENV.AZURE_SUBSCRIPTION_ID}/resourceGroups/rg-test/providers/Microsoft.Sql/servers/sql-abc/firewallRules/${rule}`;

it('creates the secrets (through the 403s of a new role), migrates through a temporary firewall rule, retrying, then removes the rule', async () => {
  let attempts = 0;
  const { lines, deps: d } = deps(async () => {
    if (++attempts < 3) throw new Error('Login failed: the database is resuming');
  });
  await postprovision(env(), d);
  expect(attempts).toBe(3);
  expect(keyVault.latest(SECRET.jwtSigningKeys)).toBeDefined();
  expect(lines.filter((l) => /answered 403/.test(l))).toHaveLength(2);
  const rule = /rule (deployer-\d+)/.exec(lines.join('\n'))![1];
  expect(arm.calls.map((c) => [c.method, c.path])).toEqual([
    ['PUT', rulePath(rule)],
    ['DELETE', rulePath(rule)],
  ]);
  expect(JSON.parse(arm.calls[0].body)).toEqual({ properties: { startIpAddress: '203.0.113.7', endIpAddress: '203.0.113.7' } });
  expect(lines).toContain(`  firewall rule ${rule} removed`);
  expect(lines.join('\n')).toContain('Stripe webhook: skipped, no Stripe secret key yet');
});

it('removes the firewall rule even when the migrations keep failing, and fails saying so', async () => {
  const { deps: d } = deps(async () => {
    throw new Error('Login failed for user <token-identified principal>');
  });
  await expect(postprovision(env(), d)).rejects.toThrow('migrations failed after 5 attempts: Login failed for user <token-identified principal>');
  expect(arm.calls.map((c) => c.method)).toEqual(['PUT', 'DELETE']);
});

it('subscribes the Stripe webhook when a key is given, and reports a Stripe failure without undoing the rest', async () => {
  const { lines, deps: d } = deps(async () => {}, { STRIPE_SECRET_KEY: 'sk_test_operator_0123456789', STRIPE_API_BASE: stripeServer.url });
  expect(await postprovision(env(), d)).toEqual({});
  expect(lines.join('\n')).toContain(`Stripe webhook: Created webhook endpoint we_`);
  expect(keyVault.latest(SECRET.stripeWebhookSecret)!.tags.endpoint).toMatch(/^we_/);
  expect(keyVault.latest(SECRET.stripeSecretKey)!.value).toBe('sk_test_operator_0123456789');

  await stripeServer.stop();
  const again = deps(async () => {}, { STRIPE_SECRET_KEY: 'sk_test_operator_0123456789', STRIPE_API_BASE: stripeServer.url });
  const outcome = await postprovision(env(), again.deps);
  expect(outcome.stripeProblem).toMatch(
    /^Stripe webhook NOT set up: .*run npm run stripe:webhook -- --url https:\/\/func-payment-abc\.azurewebsites\.net\/payment\/webhook$/,
  );
  stripeServer = await startStripeEmulator({ log: createLogger({ test: 'stripe' }) });
});

it('names the azd environment values it misses', () => {
  expect(() => hookEnv({ AZURE_RESOURCE_GROUP: 'rg' })).toThrow(
    `missing ${HOOK_INPUTS.filter((n) => n !== 'AZURE_RESOURCE_GROUP').join(', ')}: run this as the azd postprovision hook`,
  );
});
