/**
 * The postprovision hook's order and failure handling, against local stand-ins over real HTTP: the
 * Key Vault fake, a fake Azure Resource Manager (the SQL firewall rule, the apps' Key Vault
 * references), the local Stripe server. Migrations themselves need Azure SQL (the SQL Server
 * workflow runs them); here a stand-in fails on cue.
 */
import type { TokenCredential } from '@azure/identity';
import { hookEnv, HOOK_INPUTS, postprovision, sqlAppIdentities } from '../../scripts/postprovision';
import { SECRET } from '../../scripts/secrets';
import { createLogger } from '../../shared/logging';
import { startStripeEmulator, type StripeEmulator } from '../../tools/stripe-emulator/server';
import { SERVICE_NAMES, type Setting } from '../../shared/config';
import { SETTINGS } from '../../functions/settings';
import { startArmServer, type ReferenceSetting } from './arm-server';
import { startKeyVaultServer } from './key-vault-server';
import { keyVaultSecretName } from './parity';

const TOKEN = 'entra-token-for-tests';
const credential: TokenCredential = { getToken: async () => ({ token: TOKEN, expiresOnTimestamp: Date.now() + 3600_000 }) };

/** The Key Vault references each app's settings hold: every `secret` setting its services read (the Bicep parity test keeps the Bicep to this). */
function referencesOf(services: readonly string[]): ReferenceSetting[] {
  return (Object.entries(SETTINGS) as [string, Setting<unknown>][])
    .filter(([, s]) => s.deploy === 'secret' && (s.services === 'all' || s.services.some((name) => services.includes(name))))
    .map(([setting]) => ({ setting, secret: keyVaultSecretName(setting) }));
}

const APPS = { identity: 'func-identity-abc', payment: 'func-payment-abc', orchestrator: 'func-orchestrator-abc', visual: 'func-visual-abc' };
/** Each app's identity (principal id), as main.bicep's KEY_VAULT_READERS names it. */
const PRINCIPALS = {
  identity: 'a0000000-0000-4000-8000-000000000001',
  payment: 'a0000000-0000-4000-8000-000000000002',
  orchestrator: 'a0000000-0000-4000-8000-000000000003',
  visual: 'a0000000-0000-4000-8000-000000000004',
  platform: 'a0000000-0000-4000-8000-000000000005',
};
/** KEY_VAULT_READERS: per app, its principal and the secrets its services reference. */
const readers = (singleApp = false) =>
  JSON.stringify(
    singleApp
      ? [{ app: 'platform', principalId: PRINCIPALS.platform, secrets: [...new Set(referencesOf(SERVICE_NAMES).map((r) => r.secret))] }]
      : SERVICE_NAMES.map((service) => ({ app: service, principalId: PRINCIPALS[service], secrets: referencesOf([service]).map((r) => r.secret) })),
  );

function startArm(options: { singleApp?: boolean; resolvingReads?: number } = {}) {
  const sites = options.singleApp
    ? { 'func-platform-abc': referencesOf(SERVICE_NAMES) }
    : Object.fromEntries(SERVICE_NAMES.map((service) => [APPS[service], referencesOf([service])]));
  // Each app reads a secret only once its identity holds Key Vault Secrets User on it.
  const sitePrincipals = options.singleApp
    ? { 'func-platform-abc': PRINCIPALS.platform }
    : Object.fromEntries(SERVICE_NAMES.map((service) => [APPS[service], PRINCIPALS[service]]));
  return startArmServer({
    sitePrincipals,
    principals: Object.values(PRINCIPALS),
    token: TOKEN,
    vaultName: 'kv-abc',
    sites,
    secretExists: (secret) => keyVault.latest(secret) !== undefined,
    resolvingReads: options.resolvingReads ?? 2,
    pageSize: 4,
  });
}
const ENV = {
  AZURE_SUBSCRIPTION_ID: '00000000-1111-2222-3333-444444444444',
  AZURE_RESOURCE_GROUP: 'rg-test',
  AZURE_KEY_VAULT_NAME: 'kv-abc',
  KEY_VAULT_READERS: readers(),
  SQL_SERVER_NAME: 'sql-abc',
  SQL_SERVER: 'sql-abc.database.windows.net',
  SQL_DATABASE: 'platform',
  SQL_APP_IDENTITIES: '["id-identity-abc:00112233-4455-6677-8899-aabbccddeeff","id-payment-abc:10112233-4455-6677-8899-aabbccddeeff",""]',
  PAYMENT_URL: 'https://func-payment-abc.azurewebsites.net/payment',
  FUNCTION_APP_IDENTITY: APPS.identity,
  FUNCTION_APP_PAYMENT: APPS.payment,
  FUNCTION_APP_ORCHESTRATOR: APPS.orchestrator,
  FUNCTION_APP_VISUAL: APPS.visual,
};

let keyVault: Awaited<ReturnType<typeof startKeyVaultServer>>;
let arm: Awaited<ReturnType<typeof startArmServer>>;
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
  return {
    lines,
    deps: {
      credential,
      vaultOptions: { retryDelaysMs: [1, 1, 1], sleep: async () => {}, notice: (line: string) => lines.push(line) },
      grantOptions: { retryDelaysMs: [1, 1, 1], sleep: async () => {}, notice: (line: string) => lines.push(line) },
      armEndpoint: arm.url,
      publicIp: async () => '203.0.113.7',
      migrate,
      sleep: async () => {},
      out: (line: string) => lines.push(line),
      operatorEnv,
      migrateRetryDelaysMs: [1, 1, 1, 1],
      referencePollDelaysMs: [1, 1, 1],
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
  expect(arm.calls.filter((c) => c.path.includes('firewallRules')).map((c) => [c.method, c.path])).toEqual([
    ['PUT', rulePath(rule)],
    ['DELETE', rulePath(rule)],
  ]);
  expect(JSON.parse(arm.calls.find((c) => c.path.includes('firewallRules'))!.body)).toEqual({
    properties: { startIpAddress: '203.0.113.7', endIpAddress: '203.0.113.7' },
  });
  expect(lines).toContain(`  firewall rule ${rule} removed`);
  expect(lines.join('\n')).toContain('Stripe webhook: skipped, no Stripe secret key yet');
});

it('removes the firewall rule even when the migrations keep failing, and fails saying so', async () => {
  const { deps: d } = deps(async () => {
    throw new Error('Login failed for user <token-identified principal>');
  });
  await expect(postprovision(env(), d)).rejects.toThrow('migrations failed after 5 attempts: Login failed for user <token-identified principal>');
  expect(arm.calls.filter((c) => c.path.includes('firewallRules')).map((c) => c.method)).toEqual(['PUT', 'DELETE']);
  // Nothing else ran after the failure: no app was asked to read its references.
  for (const app of Object.values(APPS)) expect(arm.refreshes(app)).toBe(0);
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

it("reads the SQL-using apps' identities from SQL_APP_IDENTITIES (azd's JSON array, or a comma list), skipping the apps that use no SQL", () => {
  const expected = [
    { name: 'id-identity-abc', clientId: '00112233-4455-6677-8899-aabbccddeeff' },
    { name: 'id-payment-abc', clientId: '10112233-4455-6677-8899-aabbccddeeff' },
  ];
  expect(sqlAppIdentities(ENV.SQL_APP_IDENTITIES)).toEqual(expected);
  expect(sqlAppIdentities('id-identity-abc:00112233-4455-6677-8899-aabbccddeeff, id-payment-abc:10112233-4455-6677-8899-aabbccddeeff,')).toEqual(expected);
  expect(() => sqlAppIdentities('["id-identity-abc"]')).toThrow(/is not <identity name>:<client id>/);
});

it('names the azd environment values it misses', () => {
  expect(() => hookEnv({ AZURE_RESOURCE_GROUP: 'rg' })).toThrow(
    `missing ${HOOK_INPUTS.filter((n) => n !== 'AZURE_RESOURCE_GROUP').join(', ')}: run this as the azd postprovision hook`,
  );
});

describe("the apps' Key Vault references", () => {
  it('are unresolved after provisioning (the secrets came later); the hook makes every app read them again and waits until each resolved', async () => {
    // No identity holds a role on a secret yet (none exists): Key Vault refuses before it looks.
    expect(arm.statuses(APPS.identity)).toMatchObject({ JWT_SIGNING_KEYS: 'AccessToKeyVaultDenied', OTP_HMAC_KEY: 'AccessToKeyVaultDenied' });
    const { lines, deps: d } = deps(async () => {});
    await postprovision(env(), d);
    for (const app of Object.values(APPS)) {
      expect(arm.refreshes(app)).toBe(1);
      expect(Object.values(arm.statuses(app)).every((status) => status === 'Resolved')).toBe(true);
    }
    expect(arm.statuses(APPS.payment)).toEqual({
      AUTH_ADMIN_TOKEN: 'Resolved',
      SMTP_URL: 'Resolved',
      STRIPE_SECRET_KEY: 'Resolved',
      STRIPE_WEBHOOK_SECRET: 'Resolved',
    });
    // Refreshed only after every secret was written, with the operation's own api-version.
    const refreshes = arm.calls.filter((c) => c.path.endsWith('/refresh'));
    expect(refreshes.map((c) => [c.method, c.apiVersion])).toEqual(Object.values(APPS).map(() => ['POST', '2022-03-01']));
    expect(keyVault.writes.length).toBeGreaterThan(0);
    // The first reads after a refresh say Initialized: the hook read again until they did not.
    expect(lines).toContain(`  ${referencesCount()} still resolving; checking again in 0 s`);
    expect(lines.at(-1)).toBe(`  all ${referencesCount()} references resolved`);
  });

  it('resolve only because the hook granted each secret to exactly the apps that reference it (no deployment can: the secrets did not exist)', async () => {
    const { deps: d } = deps(async () => {});
    await postprovision(env(), d);
    const held = (principal: string) =>
      arm.assignments
        .filter((a) => a.principalId === principal)
        .map((a) => {
          expect(a.roleDefinitionId).toBe(
            `/subscriptions/${ENV.AZURE_SUBSCRIPTION_ID}/providers/Microsoft.Authorization/roleDefinitions/4633458b-17de-408a-b874-0445c86b69e6`,
          );
          expect(a.scope).toMatch(/^\/subscriptions\/[^/]+\/resourceGroups\/rg-test\/providers\/Microsoft\.KeyVault\/vaults\/kv-abc\/secrets\/[a-z-]+$/);
          return a.scope.split('/').pop();
        })
        .sort();
    for (const service of SERVICE_NAMES)
      expect([service, held(PRINCIPALS[service])]).toEqual([
        service,
        referencesOf([service])
          .map((r) => r.secret)
          .sort(),
      ]);
    // Every grant came after its secret was written (the fake refuses a scope that does not exist), and a second run grants nothing new.
    expect(arm.calls.filter((c) => c.path.includes('roleAssignments')).every((c) => c.apiVersion === '2022-04-01')).toBe(true);
    const count = arm.assignments.length;
    await postprovision(env(), deps(async () => {}).deps);
    expect(arm.assignments).toHaveLength(count);
  });

  it('with one app serving all four services, asks it once', async () => {
    await arm.stop();
    arm = await startArm({ singleApp: true });
    const single = Object.fromEntries(Object.keys(APPS).map((service) => [`FUNCTION_APP_${service.toUpperCase()}`, 'func-platform-abc']));
    const { deps: d } = deps(async () => {});
    await postprovision({ ...env(), ...single, KEY_VAULT_READERS: readers(true) }, d);
    expect(arm.refreshes('func-platform-abc')).toBe(1);
    // One assignment per secret, to the one app.
    expect(arm.assignments.map((a) => `${a.scope.split('/').pop()} ${a.principalId}`).sort()).toEqual(
      (JSON.parse(readers(true)) as { secrets: string[] }[])[0].secrets.map((secret) => `${secret} ${PRINCIPALS.platform}`).sort(),
    );
  });

  it('fail the hook when one does not resolve, naming the app, the setting, the secret and why', async () => {
    arm.deny('STRIPE_WEBHOOK_SECRET');
    const { deps: d } = deps(async () => {});
    const failure = postprovision(env(), d);
    await expect(failure).rejects.toThrow(
      'func-payment-abc: app setting STRIPE_WEBHOOK_SECRET is AccessToKeyVaultDenied (secret stripe-webhook-secret in vault kv-abc): Key Vault reference was not able to be resolved',
    );
    await expect(failure).rejects.toThrow(/Key Vault Secrets User/);
  });

  it('fail the hook when ARM refuses the refresh (an app that does not exist), naming the call', async () => {
    const { deps: d } = deps(async () => {});
    await expect(postprovision({ ...env(), FUNCTION_APP_VISUAL: 'func-gone-abc' }, d)).rejects.toThrow(
      /^POST \/subscriptions\/[^ ]+\/sites\/func-gone-abc\/config\/configreferences\/appsettings\/refresh: HTTP 404 .*ResourceNotFound/,
    );
  });
});

/** References across the four apps (VISUAL_API_TOKEN is in two of them). */
function referencesCount(): number {
  return SERVICE_NAMES.map((service) => referencesOf([service]).length).reduce((a, b) => a + b, 0);
}
