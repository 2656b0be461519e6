/**
 * `npm run secrets -- --refresh` (issue 52): the apps of the azd environment read their Key Vault
 * references again and each must resolve, against the local stand-in of Azure Resource Manager
 * (tests/infra/arm-server.ts: the refresh operation and the references' statuses, with ARM's
 * shapes, api-versions and bearer token). A reference denied access while a new role assignment
 * propagates is asked again for a bounded time, on a fake clock; a rotation refreshes identity
 * before payment.
 */
import type { TokenCredential } from '@azure/identity';
import { DENIED_RETRY_DELAYS_MS, refreshFromEnv, REFRESH_INPUTS, refreshInputs } from '../../scripts/key-vault-references';
import { refreshSteps } from '../../scripts/secrets';
import { startArmServer, type ReferenceSetting } from './arm-server';

const TOKEN = 'entra-token-for-tests';
const credential: TokenCredential = { getToken: async () => ({ token: TOKEN, expiresOnTimestamp: Date.now() + 3600_000 }) };

const SITES: Record<string, ReferenceSetting[]> = {
  'func-identity-abc': [
    { setting: 'JWT_SIGNING_KEYS', secret: 'jwt-signing-keys' },
    { setting: 'SERVICE_TOKEN_SECRET', secret: 'service-token-secret' },
  ],
  'func-payment-abc': [
    { setting: 'AUTH_ADMIN_TOKEN', secret: 'auth-admin-token' },
    { setting: 'STRIPE_WEBHOOK_SECRET', secret: 'stripe-webhook-secret' },
  ],
  'func-orchestrator-abc': [{ setting: 'VISUAL_API_TOKEN', secret: 'visual-api-token' }],
  'func-visual-abc': [{ setting: 'VISUAL_API_TOKEN', secret: 'visual-api-token' }],
};
const ENV = {
  AZURE_SUBSCRIPTION_ID: '00000000-1111-2222-3333-444444444444',
  AZURE_RESOURCE_GROUP: 'rg-test',
  FUNCTION_APP_IDENTITY: 'func-identity-abc',
  FUNCTION_APP_PAYMENT: 'func-payment-abc',
  FUNCTION_APP_ORCHESTRATOR: 'func-orchestrator-abc',
  FUNCTION_APP_VISUAL: 'func-visual-abc',
};

let arm: Awaited<ReturnType<typeof startArmServer>>;
beforeEach(async () => {
  arm = await startArmServer({ token: TOKEN, vaultName: 'kv-abc', sites: SITES, secretExists: () => true, resolvingReads: 1 });
});
afterEach(() => arm.stop());

/** The refresh's dependencies on a fake clock: every sleep is recorded, none is waited. */
function deps() {
  const lines: string[] = [];
  const slept: number[] = [];
  return {
    lines,
    slept,
    deps: {
      credential,
      armEndpoint: arm.url,
      out: (line: string) => lines.push(line),
      sleep: async (ms: number) => void slept.push(ms),
      pollDelaysMs: [7],
    },
  };
}

test('every app is asked once to read its references again, and each is read until it resolved', async () => {
  const { lines, slept, deps: d } = deps();
  await refreshFromEnv(ENV, d);
  for (const app of Object.keys(SITES)) {
    expect(arm.refreshes(app)).toBe(1);
    expect(Object.values(arm.statuses(app))).toEqual(SITES[app].map(() => 'Resolved'));
  }
  // The first read after the refresh says Initialized: read again after a poll delay.
  expect(slept).toEqual([7]);
  expect(lines.at(-1)).toBe('  all 6 references resolved');
});

test('AccessToKeyVaultDenied while a role assignment propagates: asked again until it resolves', async () => {
  arm.deny('STRIPE_WEBHOOK_SECRET', 3);
  const { lines, slept, deps: d } = deps();
  await refreshFromEnv(ENV, d);
  // The first refresh and two retries were denied; the third retry resolved. Only payment was asked again.
  expect(arm.refreshes('func-payment-abc')).toBe(4);
  expect(arm.refreshes('func-identity-abc')).toBe(1);
  expect(arm.statuses('func-payment-abc')).toEqual({ AUTH_ADMIN_TOKEN: 'Resolved', STRIPE_WEBHOOK_SECRET: 'Resolved' });
  expect(slept.filter((ms) => ms !== 7)).toEqual(DENIED_RETRY_DELAYS_MS.slice(0, 3));
  expect(lines).toContain(
    `  1 reference of func-payment-abc AccessToKeyVaultDenied (a new role assignment can take minutes to reach Key Vault); asking again in 15 s (retry 1 of ${DENIED_RETRY_DELAYS_MS.length})`,
  );
});

test('a denial that does not go away fails after a bounded wait, naming the app, the setting and what to do', async () => {
  arm.deny('JWT_SIGNING_KEYS');
  const { slept, deps: d } = deps();
  const failure = refreshFromEnv(ENV, d);
  await expect(failure).rejects.toThrow(
    "func-identity-abc: app setting JWT_SIGNING_KEYS is AccessToKeyVaultDenied (secret jwt-signing-keys in vault kv-abc): Key Vault reference was not able to be resolved because site was denied access to Key Vault reference's vault.",
  );
  await expect(failure).rejects.toThrow(/Key Vault Secrets User[\s\S]*npm run secrets -- --refresh/);
  expect(arm.refreshes('func-identity-abc')).toBe(1 + DENIED_RETRY_DELAYS_MS.length);
  const waited = slept.filter((ms) => ms !== 7).reduce((a, b) => a + b, 0);
  // Bounded: about ten minutes of asking again, then the fault is reported.
  expect(waited).toBe(DENIED_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0));
  expect(waited).toBeGreaterThanOrEqual(5 * 60_000);
  expect(waited).toBeLessThanOrEqual(15 * 60_000);
});

test('a secret that does not exist is not waited for: it fails at once', async () => {
  await arm.stop();
  arm = await startArmServer({ token: TOKEN, vaultName: 'kv-abc', sites: SITES, secretExists: (secret) => secret !== 'visual-api-token', resolvingReads: 1 });
  const { slept, deps: d } = deps();
  await expect(refreshFromEnv(ENV, d)).rejects.toThrow('func-orchestrator-abc: app setting VISUAL_API_TOKEN is SecretNotFound');
  expect(slept).toEqual([7]);
});

test('a service token rotation refreshes identity, checked resolved, before payment (which then sends the new token)', async () => {
  const { deps: d } = deps();
  await refreshFromEnv(ENV, d, refreshSteps('rotate'));
  const sequence = arm.calls.map((c) => `${c.method} ${c.path.split('/sites/')[1]}`);
  const paymentRefresh = sequence.indexOf('POST func-payment-abc/config/configreferences/appsettings/refresh');
  expect(sequence.slice(0, paymentRefresh)).toEqual([
    'POST func-identity-abc/config/configreferences/appsettings/refresh',
    'GET func-identity-abc/config/configreferences/appsettings',
    'GET func-identity-abc/config/configreferences/appsettings',
  ]);
  expect(arm.refreshes('func-orchestrator-abc')).toBe(0);
  expect(refreshSteps('finish')).toEqual([['identity']]);
  expect(refreshSteps('ensure')).toEqual([['identity', 'payment', 'orchestrator', 'visual']]);
});

test('with one app serving all four services it is asked once; without the azd environment the command says what to run', async () => {
  await arm.stop();
  arm = await startArmServer({ token: TOKEN, vaultName: 'kv-abc', sites: { 'func-platform-abc': SITES['func-identity-abc'] }, secretExists: () => true });
  const single = Object.fromEntries(Object.entries(ENV).map(([name, value]) => [name, name.startsWith('FUNCTION_APP_') ? 'func-platform-abc' : value]));
  const { deps: d } = deps();
  await refreshFromEnv(single, d);
  expect(arm.refreshes('func-platform-abc')).toBe(1);
  await expect(refreshFromEnv({ AZURE_SUBSCRIPTION_ID: 'x' }, d)).rejects.toThrow(
    `missing ${REFRESH_INPUTS.filter((n) => n !== 'AZURE_SUBSCRIPTION_ID').join(', ')}: run eval "$(azd env get-values)" in this shell first`,
  );
  // Refreshing payment alone (npm run stripe:webhook) needs only payment's app name.
  await expect(refreshFromEnv({ ...single, FUNCTION_APP_IDENTITY: '' }, d, [['payment']])).resolves.toBeUndefined();
  expect(refreshInputs([['payment']])).toEqual(['AZURE_SUBSCRIPTION_ID', 'AZURE_RESOURCE_GROUP', 'FUNCTION_APP_PAYMENT']);
});
