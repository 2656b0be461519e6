import type { TokenCredential } from '@azure/identity';
import { loadSigningKeys } from '../../shared/auth/keys';
import { verifyServiceToken } from '../../shared/auth/service-token';
import { parseAppConfig, SETTINGS } from '../../functions/settings';
import {
  ensureSecrets,
  finishRotation,
  FORBIDDEN_RETRY_DELAYS_MS,
  KeyVaultSecrets,
  blankOperatorSecrets,
  OPERATOR_SECRETS,
  rotateServiceToken,
  SECRET,
} from '../../scripts/secrets';
import { webhookSecretProblem } from '../../functions/payment/webhook-secret';
import { startKeyVaultServer } from './key-vault-server';
import { compiledInfra, describeWithBicep, moduleTemplate } from '../helpers/bicep';

const TOKEN = 'entra-token-for-tests';
const credential: TokenCredential = { getToken: async () => ({ token: TOKEN, expiresOnTimestamp: Date.now() + 3600_000 }) };

type Vault = Awaited<ReturnType<typeof startKeyVaultServer>>;
let server: Vault;
let vault: KeyVaultSecrets;

beforeEach(async () => {
  server = await startKeyVaultServer(TOKEN);
  vault = new KeyVaultSecrets(server.uri, credential);
});
afterEach(() => server.stop());

const value = (name: string) => server.latest(name)!.value;
const verify = (token: string, secrets: string[]) =>
  verifyServiceToken(token, { secrets, issuer: SETTINGS.PAYMENT_SERVICE_ID.default!, audience: SETTINGS.IDENTITY_SERVICE_ID.default! });

describe('npm run secrets', () => {
  it('creates every generated secret the apps reference, with values the services accept', async () => {
    const written = await ensureSecrets(vault, {});
    expect(written.sort()).toEqual(
      [
        SECRET.jwtSigningKeys,
        SECRET.serviceTokenSecret,
        SECRET.serviceTokenSecretPrevious,
        SECRET.authAdminToken,
        SECRET.otpHmacKey,
        SECRET.visualApiToken,
        SECRET.stripeWebhookSecret,
        // The operator secrets, blank.
        SECRET.stripeSecretKey,
        SECRET.smtpUrl,
        SECRET.orchestratorAiApiKey,
        SECRET.quickchartApiKey,
      ].sort(),
    );
    await expect(loadSigningKeys(JSON.parse(value(SECRET.jwtSigningKeys)))).resolves.toHaveLength(1);
    expect(value(SECRET.serviceTokenSecret).length).toBeGreaterThanOrEqual(32);
    expect(value(SECRET.serviceTokenSecretPrevious)).toBe(value(SECRET.serviceTokenSecret));
    await expect(verify(value(SECRET.authAdminToken), [value(SECRET.serviceTokenSecret)])).resolves.toBeDefined();
    expect(value(SECRET.stripeWebhookSecret)).toMatch(/^whsec_placeholder_[A-Za-z0-9_-]{43}$/);
    expect(server.latest(SECRET.stripeWebhookSecret)!.tags.placeholder).toBe('true');
    // The payment service recognises it and says it is not ready.
    expect(webhookSecretProblem(value(SECRET.stripeWebhookSecret))).toMatch(/^not ready: STRIPE_WEBHOOK_SECRET is the placeholder/);
    // Every operator secret exists, blank, so every Key Vault reference resolves.
    expect(await blankOperatorSecrets(vault)).toEqual([SECRET.stripeSecretKey, SECRET.smtpUrl, SECRET.orchestratorAiApiKey, SECRET.quickchartApiKey]);
    for (const name of Object.keys(OPERATOR_SECRETS)) expect(server.latest(name)).toEqual({ value: ' ', tags: expect.objectContaining({ blank: 'true' }) });
  });

  it('never changes a secret that exists, and stores operator secrets given in the environment over their blank', async () => {
    await vault.set(SECRET.stripeWebhookSecret, 'whsec_the_real_one_from_stripe');
    await ensureSecrets(vault, {});
    const before = { signing: value(SECRET.jwtSigningKeys), token: value(SECRET.authAdminToken) };
    const written = await ensureSecrets(vault, { STRIPE_SECRET_KEY: 'sk_test_123', SMTP_URL: 'smtps://u:p@mail.example.com' });
    expect(written).toEqual([SECRET.stripeSecretKey, SECRET.smtpUrl]);
    expect({ signing: value(SECRET.jwtSigningKeys), token: value(SECRET.authAdminToken) }).toEqual(before);
    expect(value(SECRET.stripeWebhookSecret)).toBe('whsec_the_real_one_from_stripe');
    expect(server.versionCount(SECRET.jwtSigningKeys)).toBe(1);
    expect(server.latest(SECRET.stripeSecretKey)!.tags.blank).toBeUndefined();
    expect(await blankOperatorSecrets(vault)).toEqual([SECRET.orchestratorAiApiKey, SECRET.quickchartApiKey]);
    // A real value is never replaced by another run with another value.
    expect(await ensureSecrets(vault, { STRIPE_SECRET_KEY: 'sk_test_other' })).toEqual([]);
    expect(value(SECRET.stripeSecretKey)).toBe('sk_test_123');
  });

  it('creates an optional operator secret blank, which the config reads as unset, unless its value is given', async () => {
    await ensureSecrets(vault, { QUICKCHART_API_KEY: 'key-123' });
    expect(server.latest(SECRET.orchestratorAiApiKey)).toEqual({ value: ' ', tags: expect.objectContaining({ blank: 'true' }) });
    expect(value(SECRET.quickchartApiKey)).toBe('key-123');
    const cfg = parseAppConfig(
      { ORCHESTRATOR_AI_API_KEY: value(SECRET.orchestratorAiApiKey), QUICKCHART_API_KEY: value(SECRET.quickchartApiKey) },
      { requireFor: [] },
    );
    expect([cfg.ORCHESTRATOR_AI_API_KEY, cfg.QUICKCHART_API_KEY]).toEqual([undefined, 'key-123']);
  });

  it('rotates the service token (the payment service token first, then the identity validation) and keeps the old token valid until the rotation finishes', async () => {
    await ensureSecrets(vault, {});
    const oldSecret = value(SECRET.serviceTokenSecret);
    const oldToken = value(SECRET.authAdminToken);
    server.writes.length = 0;

    await rotateServiceToken(vault);
    expect(server.writes).toEqual([SECRET.authAdminToken, SECRET.serviceTokenSecretPrevious, SECRET.serviceTokenSecret]);
    const accepted = [value(SECRET.serviceTokenSecret), value(SECRET.serviceTokenSecretPrevious)];
    expect(value(SECRET.serviceTokenSecretPrevious)).toBe(oldSecret);
    await expect(verify(value(SECRET.authAdminToken), accepted)).resolves.toBeDefined();
    await expect(verify(oldToken, accepted)).resolves.toBeDefined();
    await expect(verify(value(SECRET.authAdminToken), [oldSecret])).rejects.toThrow();

    await finishRotation(vault);
    const afterFinish = [value(SECRET.serviceTokenSecret), value(SECRET.serviceTokenSecretPrevious)];
    await expect(verify(value(SECRET.authAdminToken), afterFinish)).resolves.toBeDefined();
    await expect(verify(oldToken, afterFinish)).rejects.toThrow();
  });

  it('gives a placeholder of an earlier version its recognisable prefix, and leaves a real secret alone', async () => {
    await vault.set(SECRET.stripeWebhookSecret, 'whsec_oldplaceholder0123456789', { placeholder: 'true' });
    expect(await ensureSecrets(vault, {})).toContain(SECRET.stripeWebhookSecret);
    expect(value(SECRET.stripeWebhookSecret)).toMatch(/^whsec_placeholder_/);
    await vault.set(SECRET.stripeWebhookSecret, 'whsec_real_from_stripe_0123456789', { endpoint: 'we_1' });
    expect(await ensureSecrets(vault, {})).toEqual([]);
    expect(value(SECRET.stripeWebhookSecret)).toBe('whsec_real_from_stripe_0123456789');
  });

  it('retries while Key Vault answers 403 (the new role assignment propagating), saying why', async () => {
    await server.stop();
    server = await startKeyVaultServer(TOKEN, { forbidFirst: 3 });
    const waits: number[] = [];
    const notices: string[] = [];
    const patient = new KeyVaultSecrets(server.uri, credential, { sleep: async (ms) => void waits.push(ms), notice: (line) => notices.push(line) });
    expect(await patient.get(SECRET.otpHmacKey)).toBeUndefined();
    expect(waits).toEqual(FORBIDDEN_RETRY_DELAYS_MS.slice(0, 3));
    expect(notices[0]).toMatch(
      /answered 403 to GET otp-hmac-key: the Key Vault Secrets Officer role this provisioning gave you can take a few minutes to apply; retrying in 5 s \(attempt 2 of 12\)/,
    );
    expect(FORBIDDEN_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(4 * 60_000);
  });

  it('gives up after the last retry with what to check', async () => {
    await server.stop();
    server = await startKeyVaultServer(TOKEN, { forbidFirst: 10 });
    const impatient = new KeyVaultSecrets(server.uri, credential, { retryDelaysMs: [1, 1], sleep: async () => {}, notice: () => {} });
    await expect(impatient.set(SECRET.otpHmacKey, 'x')).rejects.toThrow(
      /still refuses PUT otp-hmac-key \(HTTP 403 Caller is not authorized.*\) after 3 attempts\. The signed-in principal needs the Key Vault Secrets Officer role/,
    );
  });

  it('reports Key Vault errors with their message', async () => {
    const unauthorised = new KeyVaultSecrets(server.uri, { getToken: async () => ({ token: 'wrong', expiresOnTimestamp: Date.now() + 60_000 }) });
    await expect(unauthorised.get(SECRET.otpHmacKey)).rejects.toThrow(
      'reading secret otp-hmac-key: HTTP 401 AKV10000: Request is missing a Bearer or PoP token.',
    );
  });
});

describeWithBicep('npm run secrets and the compiled template', (bicep) => {
  it('covers every Key Vault secret app-settings.bicep references', () => {
    const groups = moduleTemplate(compiledInfra(bicep), 'appSettings').variables!.keyVaultSecretsByService as Record<string, Record<string, string>>;
    const referenced = Object.values(groups).flatMap((entries) => Object.values(entries).map((v) => /secrets\/([a-z0-9-]+)\//.exec(v)![1]));
    expect([...new Set(referenced)].sort()).toEqual(Object.values(SECRET).sort());
  });
});
