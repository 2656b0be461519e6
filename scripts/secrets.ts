/**
 * npm run secrets -- [--vault <uri>] [--rotate-service-token | --finish-rotation] [--refresh]
 *
 * Keeps the platform's Key Vault secrets (the ones app-settings.bicep references) in place:
 * - default: creates every generated secret that is missing (JWT signing keys, service-token
 *   secret, OTP HMAC key, the payment service's AUTH_ADMIN_TOKEN minted from that secret, the visual
 *   API token, and a random placeholder Stripe webhook secret until `npm run stripe:webhook` stores
 *   the endpoint's) and the operator secrets (OPERATOR_SECRETS) when given in the environment.
 *   Existing secrets are never changed (a placeholder is only given its recognisable prefix). The
 *   postprovision hook (scripts/postprovision.ts) runs it after every `azd provision`.
 * - --rotate-service-token: steps 1 and 2 of a rotation (docs/deploy.md): a new token for the
 *   payment service's AUTH_ADMIN_TOKEN first, then identity's validation (new secret, old one kept
 *   as SERVICE_TOKEN_SECRET_PREVIOUS).
 * - --finish-rotation: once every payment instance sends the new token, stop accepting the old one.
 * - --refresh: then the apps read their Key Vault references again and each must resolve (an
 *   AccessToKeyVaultDenied is asked again for a while: a role assignment propagating), in the
 *   order the step needs: identity before payment in a rotation (key-vault-references.ts). Alone
 *   (`npm run secrets -- --refresh`) it is what ends every manual change of a secret: a restart
 *   does not promise that an app reads its references again. Needs the azd environment in the
 *   shell (`eval "$(azd env get-values)"`).
 *
 * Talks to the Key Vault REST API with the signed-in Entra identity (DefaultAzureCredential: azd,
 * az CLI, or a workload identity in CI). Secret values are never printed.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { TokenCredential } from '@azure/identity';
import { generateSigningJwk } from '../shared/auth/keys';
import { mintServiceToken } from '../shared/auth/service-token';
import { PLATFORM_SETTINGS as SETTINGS } from '../shared/config';
import { WEBHOOK_SECRET_PLACEHOLDER_PREFIX } from '../functions/payment/webhook-secret';
import { refreshFromEnv, type AppService } from './key-vault-references';
import { PROPAGATION_RETRY_DELAYS_MS } from './propagation';
import { secretReaderGrantsFromEnv, type SecretReaderGrants } from './secret-readers';

const API_VERSION = '7.4';

/** Key Vault secret names (app-settings.bicep: the setting name in lower case with dashes). */
export const SECRET = {
  jwtSigningKeys: 'jwt-signing-keys',
  serviceTokenSecret: 'service-token-secret',
  serviceTokenSecretPrevious: 'service-token-secret-previous',
  otpHmacKey: 'otp-hmac-key',
  authAdminToken: 'auth-admin-token',
  stripeWebhookSecret: 'stripe-webhook-secret',
  visualApiToken: 'visual-api-token',
  stripeSecretKey: 'stripe-secret-key',
  smtpUrl: 'smtp-url',
  orchestratorAiApiKey: 'orchestrator-ai-api-key',
  quickchartApiKey: 'quickchart-api-key',
} as const;

/**
 * Secrets an operator supplies (never generated), taken from `variable` in the environment when
 * given. Each is created blank (a single space, which the config reads as unset) until then, so its
 * Key Vault reference resolves and only the feature that needs it is off: payments without a
 * Stripe key (503 STRIPE_NOT_CONFIGURED, health degraded), SMTP without a URL (sign-in email goes
 * through Azure Communication Services instead), reports without an AI key (written offline). A
 * blank secret is replaced when its value is given; a real one is never changed.
 */
export const OPERATOR_SECRETS: Record<string, { variable: string; without: string }> = {
  [SECRET.stripeSecretKey]: { variable: 'STRIPE_SECRET_KEY', without: 'payments cannot be created (payment health says degraded)' },
  [SECRET.smtpUrl]: { variable: 'SMTP_URL', without: 'sign-in email goes through Azure Communication Services' },
  [SECRET.orchestratorAiApiKey]: {
    variable: 'ORCHESTRATOR_AI_API_KEY',
    without: 'reports are written offline (or with the managed identity for azure-openai)',
  },
  [SECRET.quickchartApiKey]: { variable: 'QUICKCHART_API_KEY', without: 'the QuickChart-compatible route takes no key' },
};

const BLANK = ' ';

/**
 * How long to wait between attempts when Key Vault answers 403: the provisioning that just gave the
 * deployer Key Vault Secrets Officer returns before the role assignment reaches the vault, which
 * takes seconds to a few minutes. About five minutes in all.
 */
export const FORBIDDEN_RETRY_DELAYS_MS = PROPAGATION_RETRY_DELAYS_MS;

export interface KeyVaultOptions {
  retryDelaysMs?: number[];
  sleep?: (ms: number) => Promise<void>;
  /** Where retry notices go (stderr by default). */
  notice?: (line: string) => void;
  /**
   * Who reads which secret (main.bicep's KEY_VAULT_READERS): every write is followed by the
   * grant of that secret's readers (scripts/secret-readers.ts). Every command that writes secrets
   * in Azure passes it; without it (tests of the secrets alone) nothing is granted.
   */
  readers?: SecretReaderGrants;
}

/** The few Key Vault secret operations the deployment scripts need, over the REST API. */
export class KeyVaultSecrets {
  private readonly retryDelaysMs: number[];
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly notice: (line: string) => void;
  private readonly readers?: SecretReaderGrants;

  constructor(
    private readonly vaultUri: string,
    private readonly credential: TokenCredential,
    options: KeyVaultOptions = {},
  ) {
    this.retryDelaysMs = options.retryDelaysMs ?? FORBIDDEN_RETRY_DELAYS_MS;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.notice = options.notice ?? ((line) => process.stderr.write(`${line}\n`));
    this.readers = options.readers;
  }

  /** One request; a 403 is retried with backoff while the deployer's role assignment propagates. */
  private async request(method: 'GET' | 'PUT', name: string, body?: unknown): Promise<Response> {
    const url = new URL(`secrets/${encodeURIComponent(name)}?api-version=${API_VERSION}`, this.vaultUri.endsWith('/') ? this.vaultUri : `${this.vaultUri}/`);
    for (let attempt = 0; ; attempt++) {
      const token = await this.credential.getToken('https://vault.azure.net/.default');
      if (!token) throw new Error('no Entra ID token for Key Vault (sign in with `azd auth login` or `az login`)');
      const response = await fetch(url, {
        method,
        headers: { Authorization: `Bearer ${token.token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      if (response.status !== 403) return response;
      const delay = this.retryDelaysMs[attempt];
      if (delay === undefined) {
        throw new Error(
          `Key Vault ${url.host} still refuses ${method} ${name} (HTTP 403 ${await errorMessage(response)}) after ${this.retryDelaysMs.length + 1} attempts. ` +
            'The signed-in principal needs the Key Vault Secrets Officer role on the vault (main.bicep grants it to the deploying principalId); ' +
            'check `az role assignment list --scope <vault resource id> --assignee <your object id>`, or wait a few minutes and run the command again.',
        );
      }
      await response.arrayBuffer();
      this.notice(
        `Key Vault ${url.host} answered 403 to ${method} ${name}: the Key Vault Secrets Officer role this provisioning gave you can take a few minutes to apply; retrying in ${Math.round(delay / 1000)} s (attempt ${attempt + 2} of ${this.retryDelaysMs.length + 1})`,
      );
      await this.sleep(delay);
    }
  }

  /** The current value and tags, or undefined when the secret does not exist. */
  async read(name: string): Promise<{ value: string; tags: Record<string, string> } | undefined> {
    const response = await this.request('GET', name);
    if (response.status === 404) return undefined;
    if (!response.ok) throw new Error(`reading secret ${name}: HTTP ${response.status} ${await errorMessage(response)}`);
    const { value, tags } = (await response.json()) as { value: string; tags?: Record<string, string> };
    return { value, tags: tags ?? {} };
  }

  /** The current value, or undefined when the secret does not exist. */
  async get(name: string): Promise<string | undefined> {
    return (await this.read(name))?.value;
  }

  /**
   * Adds a new version (app settings without a version pick it up on restart or within 24 hours),
   * then grants the secret's readers read access to it: a secret's readers are granted by the
   * command that writes it (scripts/secret-readers.ts).
   */
  async set(name: string, value: string, tags: Record<string, string> = {}): Promise<void> {
    const response = await this.request('PUT', name, { value, tags: { 'set-by': 'npm run secrets', ...tags } });
    if (!response.ok) throw new Error(`writing secret ${name}: HTTP ${response.status} ${await errorMessage(response)}`);
    await this.grantReaders(name);
  }

  /** Grants the readers of an existing secret (each assignment is asked for once per process; one that exists is left as it is). */
  async grantReaders(name: string): Promise<void> {
    await this.readers?.grant(name);
  }
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text();
  try {
    return (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
  } catch {
    return text;
  }
}

const randomSecret = () => randomBytes(32).toString('base64url');
const webhookSecretPlaceholder = () => `${WEBHOOK_SECRET_PLACEHOLDER_PREFIX}${randomSecret()}`;

function mintFor(secret: string): Promise<string> {
  return mintServiceToken({ secret, issuer: SETTINGS.PAYMENT_SERVICE_ID.default!, audience: SETTINGS.IDENTITY_SERVICE_ID.default! });
}

/** Creates the missing secrets; returns the names written. */
export async function ensureSecrets(vault: KeyVaultSecrets, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const written: string[] = [];
  const ensure = async (name: string, make: () => string | Promise<string>, tags?: Record<string, string>) => {
    const existing = await vault.get(name);
    if (existing !== undefined) return existing;
    const value = await make();
    await vault.set(name, value, tags);
    written.push(name);
    return value;
  };
  await ensure(SECRET.jwtSigningKeys, async () => JSON.stringify([await generateSigningJwk()]));
  const serviceTokenSecret = await ensure(SECRET.serviceTokenSecret, randomSecret);
  // Without a rotation in progress the previous secret is the current one: nothing extra is accepted.
  await ensure(SECRET.serviceTokenSecretPrevious, () => serviceTokenSecret);
  await ensure(SECRET.authAdminToken, () => mintFor(serviceTokenSecret));
  await ensure(SECRET.otpHmacKey, randomSecret);
  await ensure(SECRET.visualApiToken, randomSecret);
  // A random placeholder keeps the webhook closed (every signature fails) until npm run stripe:webhook
  // stores the endpoint's secret; its prefix lets /payment/health say the webhook is not ready.
  await ensure(SECRET.stripeWebhookSecret, webhookSecretPlaceholder, { placeholder: 'true' });
  // A placeholder written before the prefix existed is still only a placeholder: give it the prefix.
  const webhook = await vault.read(SECRET.stripeWebhookSecret);
  if (webhook?.tags.placeholder === 'true' && !webhook.value.startsWith(WEBHOOK_SECRET_PLACEHOLDER_PREFIX)) {
    await vault.set(SECRET.stripeWebhookSecret, webhookSecretPlaceholder(), { placeholder: 'true' });
    written.push(SECRET.stripeWebhookSecret);
  }
  for (const [name, { variable }] of Object.entries(OPERATOR_SECRETS)) {
    const given = env[variable]?.trim();
    const existing = await vault.read(name);
    if (given && (!existing || existing.tags.blank === 'true')) {
      await vault.set(name, given);
      written.push(name);
    } else if (!existing) await ensure(name, () => BLANK, { blank: 'true' });
  }
  // Every secret exists now. Its readers are granted when it is written; a secret written before
  // (by an earlier version, or before an app's identity was made again) gets them here.
  for (const name of Object.values(SECRET)) await vault.grantReaders(name);
  return written;
}

/** The operator secrets still blank (or missing): the features that need them are off until they are stored. */
export async function blankOperatorSecrets(vault: KeyVaultSecrets): Promise<string[]> {
  const blank: string[] = [];
  for (const name of Object.keys(OPERATOR_SECRETS)) {
    const secret = await vault.read(name);
    if (!secret || secret.tags.blank === 'true' || !secret.value.trim()) blank.push(name);
  }
  return blank;
}

/** Rotation order: the payment service's new token first, then identity's validation (old secret still accepted), so no call is refused in between. */
export async function rotateServiceToken(vault: KeyVaultSecrets): Promise<void> {
  const current = await vault.get(SECRET.serviceTokenSecret);
  if (!current) throw new Error(`${SECRET.serviceTokenSecret} does not exist; run npm run secrets first`);
  const next = randomSecret();
  await vault.set(SECRET.authAdminToken, await mintFor(next));
  await vault.set(SECRET.serviceTokenSecretPrevious, current);
  await vault.set(SECRET.serviceTokenSecret, next);
}

/** After the rotation: identity stops accepting the old secret. */
export async function finishRotation(vault: KeyVaultSecrets): Promise<void> {
  const current = await vault.get(SECRET.serviceTokenSecret);
  if (!current) throw new Error(`${SECRET.serviceTokenSecret} does not exist`);
  await vault.set(SECRET.serviceTokenSecretPrevious, current);
}

/** Which apps a mode's --refresh asks, step by step: a rotation refreshes identity (accepts both tokens) before payment (sends the new one). */
export function refreshSteps(mode: 'ensure' | 'rotate' | 'finish'): AppService[][] {
  if (mode === 'rotate') return [['identity'], ['payment']];
  if (mode === 'finish') return [['identity']];
  return [['identity', 'payment', 'orchestrator', 'visual']];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { vault: { type: 'string' }, 'rotate-service-token': { type: 'boolean' }, 'finish-rotation': { type: 'boolean' }, refresh: { type: 'boolean' } },
  });
  const vaultUri = values.vault ?? process.env.AZURE_KEY_VAULT_ENDPOINT;
  if (!vaultUri) throw new Error('give --vault <uri> or set AZURE_KEY_VAULT_ENDPOINT (azd sets it after provisioning)');
  const { DefaultAzureCredential } = await import('@azure/identity');
  const credential = new DefaultAzureCredential();
  const vault = new KeyVaultSecrets(vaultUri, credential, { readers: secretReaderGrantsFromEnv(process.env, credential) });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const mode = values['rotate-service-token'] ? 'rotate' : values['finish-rotation'] ? 'finish' : 'ensure';
  if (mode === 'rotate') {
    await rotateServiceToken(vault);
    out(
      'service token rotated in Key Vault: auth-admin-token (payment) first, then service-token-secret with the old one kept as service-token-secret-previous (identity).',
    );
    if (!values.refresh)
      out(
        'Next: npm run secrets -- --refresh (identity, then payment, read the new secrets); then npm run secrets -- --finish-rotation --refresh (docs/deploy.md).',
      );
  } else if (mode === 'finish') {
    await finishRotation(vault);
    out('service-token-secret-previous now equals service-token-secret.');
    if (!values.refresh) out('Next: npm run secrets -- --refresh, so that identity reads it and stops accepting the old token.');
  } else {
    const written = await ensureSecrets(vault);
    out(written.length ? `created secrets: ${written.join(', ')}` : 'all generated secrets exist');
    for (const name of await blankOperatorSecrets(vault)) {
      out(
        `operator secret ${name} is blank (${OPERATOR_SECRETS[name].without}); to store it: ${OPERATOR_SECRETS[name].variable}=... npm run secrets -- --refresh (docs/deploy.md)`,
      );
    }
    if (written.length && !values.refresh) out('Next: npm run secrets -- --refresh, so that the apps read what changed.');
  }
  if (values.refresh)
    await refreshFromEnv(process.env, { credential, out, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) }, refreshSteps(mode));
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`secrets failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
}
