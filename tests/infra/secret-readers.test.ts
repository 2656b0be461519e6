/**
 * A secret's readers are granted by the command that writes it (scripts/secret-readers.ts): against
 * the Key Vault stand-in and the fake Resource Manager (tests/infra/arm-server.ts), over real HTTP.
 * The fake answers as ARM does: a role assignment on a secret that does not exist is refused (404),
 * an unknown principal is 400 PrincipalNotFound, the same grant under another name is 409
 * RoleAssignmentExists.
 */
import type { TokenCredential } from '@azure/identity';
import { ensureSecrets, KeyVaultSecrets, SECRET } from '../../scripts/secrets';
import {
  assignmentName,
  GRANT_RETRY_DELAYS_MS,
  KEY_VAULT_SECRETS_USER,
  parseSecretReaders,
  secretReaderGrantsFromEnv,
  SecretReaderGrants,
  type SecretReader,
} from '../../scripts/secret-readers';
import { startArmServer, type RoleAssignment } from './arm-server';
import { startKeyVaultServer } from './key-vault-server';

const TOKEN = 'entra-token-for-tests';
const credential: TokenCredential = { getToken: async () => ({ token: TOKEN, expiresOnTimestamp: Date.now() + 3600_000 }) };
const SUB = '00000000-1111-2222-3333-444444444444';
const VAULT = { subscriptionId: SUB, resourceGroup: 'rg-test', vaultName: 'kv-abc' };
const PAYMENT = 'b0000000-0000-4000-8000-000000000002';
const VISUAL = 'b0000000-0000-4000-8000-000000000004';
const ORCHESTRATOR = 'b0000000-0000-4000-8000-000000000003';
const READERS: SecretReader[] = [
  { app: 'payment', principalId: PAYMENT, secrets: [SECRET.stripeWebhookSecret, SECRET.stripeSecretKey] },
  { app: 'orchestrator', principalId: ORCHESTRATOR, secrets: [SECRET.visualApiToken] },
  { app: 'visual', principalId: VISUAL, secrets: [SECRET.visualApiToken, SECRET.quickchartApiKey] },
];
const secretId = (secret: string) => `/subscriptions/${SUB}/resourceGroups/rg-test/providers/Microsoft.KeyVault/vaults/kv-abc/secrets/${secret}`;
const roleDefinitionId = `/subscriptions/${SUB}/providers/Microsoft.Authorization/roleDefinitions/${KEY_VAULT_SECRETS_USER}`;

let keyVault: Awaited<ReturnType<typeof startKeyVaultServer>>;
let arm: Awaited<ReturnType<typeof startArmServer>>;
let notices: string[];
let waits: number[];

async function start(options: { principalNotFoundFirst?: number; assignments?: RoleAssignment[]; secretExists?: (secret: string) => boolean } = {}) {
  await arm?.stop();
  arm = await startArmServer({
    token: TOKEN,
    vaultName: 'kv-abc',
    sites: {},
    secretExists: options.secretExists ?? ((secret) => keyVault.latest(secret) !== undefined),
    principals: [PAYMENT, ORCHESTRATOR, VISUAL],
    principalNotFoundFirst: options.principalNotFoundFirst,
    assignments: options.assignments,
  });
}
const grants = (readers = READERS) =>
  new SecretReaderGrants(VAULT, readers, credential, {
    armEndpoint: arm.url,
    retryDelaysMs: [1, 2, 3],
    sleep: async (ms) => void waits.push(ms),
    notice: (line) => notices.push(line),
  });
const grantCalls = () => arm.calls.filter((c) => c.path.includes('/roleAssignments/'));

beforeEach(async () => {
  keyVault = await startKeyVaultServer(TOKEN);
  await start();
  notices = [];
  waits = [];
});
afterEach(async () => {
  await Promise.all([keyVault.stop(), arm.stop()]);
});

describe('writing a secret grants its readers', () => {
  it('grants Key Vault Secrets User on that secret alone, to each app that reads it, right after the write', async () => {
    const vault = new KeyVaultSecrets(keyVault.uri, credential, { readers: grants() });
    await vault.set(SECRET.visualApiToken, 'token');
    const calls = grantCalls();
    expect(calls.map((c) => [c.method, c.path, c.apiVersion])).toEqual(
      [ORCHESTRATOR, VISUAL].map((principal) => [
        'PUT',
        `${secretId(SECRET.visualApiToken)}/providers/Microsoft.Authorization/roleAssignments/${assignmentName(secretId(SECRET.visualApiToken), principal, KEY_VAULT_SECRETS_USER)}`,
        '2022-04-01',
      ]),
    );
    expect(JSON.parse(calls[0].body)).toEqual({ properties: { roleDefinitionId, principalId: ORCHESTRATOR, principalType: 'ServicePrincipal' } });
    expect(arm.assignments.map((a) => [a.scope, a.principalId])).toEqual([
      [secretId(SECRET.visualApiToken), ORCHESTRATOR],
      [secretId(SECRET.visualApiToken), VISUAL],
    ]);
    // payment reads no visual-api-token; a secret nobody reads is granted to nobody.
    await vault.set(SECRET.jwtSigningKeys, '[]');
    expect(arm.assignments).toHaveLength(2);
  });

  it('names each assignment the same every time (a second process finds it: 201, nothing new), and answers a name per scope, principal and role', async () => {
    await keyVault.stop();
    keyVault = await startKeyVaultServer(TOKEN);
    const vault = () => new KeyVaultSecrets(keyVault.uri, credential, { readers: grants() });
    await vault().set(SECRET.stripeSecretKey, 'sk_test_1');
    await vault().set(SECRET.stripeSecretKey, 'sk_test_2');
    expect(arm.assignments).toHaveLength(1);
    expect(grantCalls()).toHaveLength(2);
    expect(new Set(grantCalls().map((c) => c.path)).size).toBe(1);
    const name = assignmentName(secretId('a'), PAYMENT, KEY_VAULT_SECRETS_USER);
    expect(name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(assignmentName(secretId('b'), PAYMENT, KEY_VAULT_SECRETS_USER)).not.toBe(name);
    expect(assignmentName(secretId('a'), VISUAL, KEY_VAULT_SECRETS_USER)).not.toBe(name);
  });

  it('asks once per process for an assignment it made', async () => {
    const vault = new KeyVaultSecrets(keyVault.uri, credential, { readers: grants() });
    await vault.set(SECRET.stripeSecretKey, 'sk_test_1');
    await vault.set(SECRET.stripeSecretKey, 'sk_test_2');
    expect(grantCalls()).toHaveLength(1);
  });

  it('takes 409 RoleAssignmentExists (the grant made earlier under another name, by an older Bicep) as done', async () => {
    const old: RoleAssignment = {
      name: 'c0ffee00-0000-4000-8000-000000000000',
      scope: secretId(SECRET.stripeWebhookSecret),
      principalId: PAYMENT,
      roleDefinitionId,
    };
    await start({ assignments: [old] });
    const vault = new KeyVaultSecrets(keyVault.uri, credential, { readers: grants() });
    await vault.set(SECRET.stripeWebhookSecret, 'whsec_x');
    expect(grantCalls()).toHaveLength(1);
    expect(arm.assignments).toEqual([old]);
    expect(notices).toEqual([]);
  });

  it('retries while the identity the provisioning just made is unknown to the directory (400 PrincipalNotFound), saying why', async () => {
    await start({ principalNotFoundFirst: 2 });
    const vault = new KeyVaultSecrets(keyVault.uri, credential, { readers: grants() });
    await vault.set(SECRET.stripeSecretKey, 'sk_test_1');
    expect(waits).toEqual([1, 2]);
    expect(notices[0]).toMatch(
      /answered 400 PrincipalNotFound to the grant on secret stripe-secret-key: the new identity is not known to it yet; retrying in 0 s \(attempt 2 of 4\)/,
    );
    expect(arm.assignments.map((a) => a.principalId)).toEqual([PAYMENT]);
  });

  it('retries while Resource Manager does not know the secret just written (404), and fails naming it when it never does', async () => {
    let refusals = 2;
    await start({ secretExists: (secret) => keyVault.latest(secret) !== undefined && refusals-- <= 0 });
    const vault = new KeyVaultSecrets(keyVault.uri, credential, { readers: grants() });
    await vault.set(SECRET.quickchartApiKey, ' ');
    expect(waits).toEqual([1, 2]);
    expect(notices[0]).toMatch(/answered 404 ResourceNotFound to the grant on secret quickchart-api-key: the secret just written is not known to it yet/);
    expect(arm.assignments.map((a) => a.principalId)).toEqual([VISUAL]);

    // Never known (here: granting a secret that was never written): a bounded wait, then the reason.
    await expect(grants().grant(SECRET.stripeWebhookSecret)).rejects.toThrow(
      /^granting Key Vault Secrets User on secret stripe-webhook-secret to b0000000-0000-4000-8000-000000000002: HTTP 404 .*ResourceNotFound.* \(after 4 attempts\)/,
    );
    expect(GRANT_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(4 * 60_000);
  });

  it('fails at once on any other refusal, with what the signed-in principal needs', async () => {
    const wrongToken = new SecretReaderGrants(
      VAULT,
      READERS,
      { getToken: async () => ({ token: 'wrong', expiresOnTimestamp: Date.now() + 60_000 }) },
      { armEndpoint: arm.url, sleep: async (ms) => void waits.push(ms) },
    );
    await keyVault.stop();
    keyVault = await startKeyVaultServer(TOKEN);
    await new KeyVaultSecrets(keyVault.uri, credential).set(SECRET.stripeSecretKey, 'x');
    await expect(wrongToken.grant(SECRET.stripeSecretKey)).rejects.toThrow(/HTTP 401 .*AuthenticationFailed.*needs to create role assignments/);
    expect(waits).toEqual([]);
  });

  it('npm run secrets grants every secret, the ones that existed before too (written before this rule, or before an identity was made again)', async () => {
    // Written without grants: as by an earlier version.
    await ensureSecrets(new KeyVaultSecrets(keyVault.uri, credential), {});
    expect(arm.assignments).toEqual([]);
    const written = await ensureSecrets(new KeyVaultSecrets(keyVault.uri, credential, { readers: grants() }), {});
    expect(written).toEqual([]);
    expect(arm.assignments.map((a) => `${a.scope.split('/').pop()} ${a.principalId}`).sort()).toEqual(
      READERS.flatMap((reader) => reader.secrets.map((secret) => `${secret} ${reader.principalId}`)).sort(),
    );
  });
});

describe('KEY_VAULT_READERS', () => {
  it('is read as azd hands over the array output (JSON); one app serving all reads each secret once', () => {
    const one = [
      { app: 'platform', principalId: VISUAL, secrets: ['a', 'b'] },
      { app: 'again', principalId: VISUAL, secrets: ['a'] },
    ];
    expect(parseSecretReaders(JSON.stringify(READERS))).toEqual(READERS);
    expect(new SecretReaderGrants(VAULT, one, credential).readersOf('a')).toEqual([VISUAL]);
    expect(() => parseSecretReaders('id-visual:abc')).toThrow(/not JSON/);
    expect(() => parseSecretReaders('[{"app":"visual","principalId":"not-a-guid","secrets":[]}]')).toThrow(/KEY_VAULT_READERS\[0\]/);
  });

  it('is required, with the vault and resource group, by every command that writes a secret', () => {
    expect(() => secretReaderGrantsFromEnv({ AZURE_SUBSCRIPTION_ID: SUB }, credential)).toThrow(
      /^missing AZURE_RESOURCE_GROUP, AZURE_KEY_VAULT_NAME, KEY_VAULT_READERS: a secret's readers are granted by the command that writes it/,
    );
    const fromEnv = secretReaderGrantsFromEnv(
      { AZURE_SUBSCRIPTION_ID: SUB, AZURE_RESOURCE_GROUP: 'rg-test', AZURE_KEY_VAULT_NAME: 'kv-abc', KEY_VAULT_READERS: JSON.stringify(READERS) },
      credential,
    );
    expect(fromEnv.secretId(SECRET.otpHmacKey)).toBe(secretId(SECRET.otpHmacKey));
    expect(fromEnv.readersOf(SECRET.visualApiToken)).toEqual([ORCHESTRATOR, VISUAL]);
  });
});
