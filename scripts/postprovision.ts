/**
 * The azd postprovision hook (azure.yaml runs infra/hooks/postprovision.js, which builds and runs
 * this, on Linux, macOS and Windows alike); also runnable by hand after `azd provision` with the azd
 * environment's values (`azd hooks run postprovision`). In order:
 * 1. Key Vault: creates the missing secrets (npm run secrets; retries the 403s of a role assignment
 *    that is still propagating), grants each secret's readers read access to it (main.bicep's
 *    KEY_VAULT_READERS, scripts/secret-readers.ts: no deployment can, a secret may not exist
 *    yet) and names the operator secrets still missing.
 * 2. Azure SQL: opens the firewall to this machine's public address, applies the migrations and
 *    makes each SQL-using app's managed identity a database user (npm run migrate -- --grant), retrying while
 *    the new rule or a paused serverless database is not ready, then removes the rule.
 * 3. Stripe: subscribes the payment webhook (npm run stripe:webhook) when a Stripe secret key is
 *    available (STRIPE_SECRET_KEY or the stripe-secret-key Key Vault secret); a failure here is
 *    reported and leaves the rest in place (/payment/health says the webhook is not ready).
 * 4. Key Vault references: makes every Function App read its references again and checks each
 *    one resolved (scripts/key-vault-references.ts); one that did not fails the hook, naming it.
 * Runs as the signed-in principal (azd auth login / az login): the SQL Entra admin (or in its group)
 * with Key Vault Secrets Officer (main.bicep grants it to the deploying principal), allowed to
 * create role assignments (what azd up needs anyway). Values come from
 * the azd environment (main.bicep outputs). Secrets are never printed.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TokenCredential } from '@azure/identity';
import { AppSettingsReferences, refreshAndCheckReferences } from './key-vault-references';
import { blankOperatorSecrets, ensureSecrets, KeyVaultSecrets, OPERATOR_SECRETS, SECRET, type KeyVaultOptions } from './secrets';
import { secretReaderGrantsFromEnv, type GrantOptions } from './secret-readers';
import { runWebhookCommand, stripeClient } from './stripe-webhook';

/** main.bicep outputs the hook reads (azd passes the environment's values). */
export const HOOK_INPUTS = [
  'AZURE_SUBSCRIPTION_ID',
  'AZURE_RESOURCE_GROUP',
  'AZURE_KEY_VAULT_ENDPOINT',
  'AZURE_KEY_VAULT_NAME',
  'KEY_VAULT_READERS',
  'SQL_SERVER_NAME',
  'SQL_SERVER',
  'SQL_DATABASE',
  'SQL_APP_IDENTITIES',
  'PAYMENT_URL',
  'FUNCTION_APP_IDENTITY',
  'FUNCTION_APP_PAYMENT',
  'FUNCTION_APP_ORCHESTRATOR',
  'FUNCTION_APP_VISUAL',
] as const;
type HookEnv = Record<(typeof HOOK_INPUTS)[number], string>;

const SQL_API_VERSION = '2023-08-01-preview';
/** A new firewall rule and a paused serverless database can each take a minute to accept logins. */
export const MIGRATE_RETRY_DELAYS_MS = [20_000, 20_000, 20_000, 20_000];

export interface HookDeps {
  credential: TokenCredential;
  /** Azure Resource Manager base URL (a local fake in tests). */
  armEndpoint?: string;
  publicIp?: () => Promise<string>;
  migrate?: (env: HookEnv) => Promise<void>;
  /** Retries and notices of the Key Vault client (tests: short). */
  vaultOptions?: Omit<KeyVaultOptions, 'readers'>;
  /** Retries and notices of the secret readers' grants (tests: short). */
  grantOptions?: Omit<GrantOptions, 'armEndpoint'>;
  sleep?: (ms: number) => Promise<void>;
  out?: (line: string) => void;
  /** STRIPE_SECRET_KEY and friends (process.env by default). */
  operatorEnv?: NodeJS.ProcessEnv;
  migrateRetryDelaysMs?: number[];
  /** Waits between reads of the Key Vault references' status (tests: short). */
  referencePollDelaysMs?: number[];
}

export function hookEnv(env: NodeJS.ProcessEnv = process.env): HookEnv {
  const missing = HOOK_INPUTS.filter((name) => !env[name]);
  if (missing.length) {
    throw new Error(
      `missing ${missing.join(', ')}: run this as the azd postprovision hook (azd hooks run postprovision), or export main.bicep's outputs (docs/deploy.md, "Without azd")`,
    );
  }
  return Object.fromEntries(HOOK_INPUTS.map((name) => [name, env[name]!])) as HookEnv;
}

async function defaultPublicIp(): Promise<string> {
  for (const url of ['https://api.ipify.org', 'https://ifconfig.me/ip']) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      const ip = (await response.text()).trim();
      if (response.ok && /^[0-9.]+$|^[0-9a-f:]+$/i.test(ip)) return ip;
    } catch {
      // try the next one
    }
  }
  throw new Error('could not find this machine\'s public IP address (https://api.ipify.org): open the SQL firewall by hand (docs/deploy.md, "Migrations")');
}

/**
 * The apps' identities that are database users, from main.bicep's SQL_APP_IDENTITIES output: one
 * `name:clientId` per app, '' for an app that never queries SQL (visual). azd hands an array output
 * over as JSON; a comma list is accepted too (set by hand, "Without azd").
 */
export function sqlAppIdentities(value: string): { name: string; clientId: string }[] {
  const entries: unknown = value.trim().startsWith('[') ? JSON.parse(value) : value.split(',');
  if (!Array.isArray(entries)) throw new Error('SQL_APP_IDENTITIES: not a list');
  return entries
    .map((entry) => String(entry).trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [name, clientId, ...rest] = entry.split(':');
      if (!name || !clientId || rest.length) throw new Error(`SQL_APP_IDENTITIES: "${entry}" is not <identity name>:<client id>`);
      return { name, clientId };
    });
}

/** `npm run migrate -- --grant <identity> --client-id <id>` for each app's identity, against the deployment's database, as child processes. */
async function defaultMigrate(env: HookEnv): Promise<void> {
  const script = path.join(__dirname, 'migrate.js');
  for (const { name, clientId } of sqlAppIdentities(env.SQL_APP_IDENTITIES)) {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, '--grant', name, '--client-id', clientId], {
      env: { ...process.env, SQL_SERVER: env.SQL_SERVER, SQL_DATABASE: env.SQL_DATABASE },
    });
    process.stdout.write(stdout);
    process.stderr.write(stderr);
  }
}

/** A firewall rule on the SQL server for one address, through Azure Resource Manager. */
export class SqlFirewall {
  constructor(
    private readonly env: HookEnv,
    private readonly credential: TokenCredential,
    private readonly armEndpoint = 'https://management.azure.com',
  ) {}

  private async call(method: 'PUT' | 'DELETE', rule: string, body?: unknown): Promise<void> {
    const token = await this.credential.getToken(`${this.armEndpoint.replace(/\/$/, '')}/.default`);
    if (!token) throw new Error('no Entra ID token for Azure Resource Manager (sign in with `azd auth login` or `az login`)');
    const url = `${this.armEndpoint.replace(/\/$/, '')}/subscriptions/${this.env.AZURE_SUBSCRIPTION_ID}/resourceGroups/${this.env.AZURE_RESOURCE_GROUP}/providers/Microsoft.Sql/servers/${this.env.SQL_SERVER_NAME}/firewallRules/${rule}?api-version=${SQL_API_VERSION}`;
    const response = await fetch(url, {
      method,
      headers: { Authorization: `Bearer ${token.token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (!response.ok && !(method === 'DELETE' && response.status === 404)) {
      throw new Error(`${method} SQL firewall rule ${rule}: HTTP ${response.status} ${text.slice(0, 300)}`);
    }
  }

  open(rule: string, ip: string): Promise<void> {
    return this.call('PUT', rule, { properties: { startIpAddress: ip, endIpAddress: ip } });
  }

  close(rule: string): Promise<void> {
    return this.call('DELETE', rule);
  }
}

export async function postprovision(env: HookEnv, deps: HookDeps): Promise<{ stripeProblem?: string }> {
  const out = deps.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const operatorEnv = deps.operatorEnv ?? process.env;
  // Every secret written is granted to its readers right after (and every existing one checked).
  const readers = secretReaderGrantsFromEnv(env, deps.credential, { ...deps.grantOptions, armEndpoint: deps.armEndpoint });
  const vault = new KeyVaultSecrets(env.AZURE_KEY_VAULT_ENDPOINT, deps.credential, { ...deps.vaultOptions, readers });

  // 1. Key Vault.
  out(`Key Vault ${new URL(env.AZURE_KEY_VAULT_ENDPOINT).host}: ensuring secrets`);
  const written = await ensureSecrets(vault, operatorEnv);
  out(written.length ? `  created: ${written.join(', ')}` : '  every generated secret exists');
  out("  each secret's readers hold Key Vault Secrets User on it (KEY_VAULT_READERS)");
  for (const name of await blankOperatorSecrets(vault))
    out(`  operator secret ${name} is blank: ${OPERATOR_SECRETS[name].without} until ${OPERATOR_SECRETS[name].variable} is stored (docs/deploy.md)`);

  // 2. Azure SQL, through a temporary firewall rule.
  const firewall = new SqlFirewall(env, deps.credential, deps.armEndpoint);
  const ip = await (deps.publicIp ?? defaultPublicIp)();
  const rule = `deployer-${Date.now()}`;
  out(`Azure SQL ${env.SQL_SERVER_NAME}: allowing ${ip} (rule ${rule}) while migrating`);
  await firewall.open(rule, ip);
  try {
    const delays = deps.migrateRetryDelaysMs ?? MIGRATE_RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        await (deps.migrate ?? defaultMigrate)(env);
        break;
      } catch (error) {
        if (attempt >= delays.length) throw new Error(`migrations failed after ${attempt + 1} attempts: ${(error as Error).message}`);
        out(`  migrate attempt ${attempt + 1} failed (${(error as Error).message.split('\n')[0]}); retrying in ${Math.round(delays[attempt] / 1000)} s`);
        await sleep(delays[attempt]);
      }
    }
  } finally {
    await firewall.close(rule).then(
      () => out(`  firewall rule ${rule} removed`),
      (error) => out(`  could not remove firewall rule ${rule}: ${(error as Error).message}; remove it in the portal`),
    );
  }

  // 3. Stripe webhook.
  const stripeProblem = await subscribeWebhook(env, vault, operatorEnv, out);

  // 4. Every app reads its Key Vault references again, and each must resolve.
  const references = new AppSettingsReferences(
    { subscriptionId: env.AZURE_SUBSCRIPTION_ID, resourceGroup: env.AZURE_RESOURCE_GROUP },
    deps.credential,
    deps.armEndpoint,
  );
  const apps = [env.FUNCTION_APP_IDENTITY, env.FUNCTION_APP_PAYMENT, env.FUNCTION_APP_ORCHESTRATOR, env.FUNCTION_APP_VISUAL];
  await refreshAndCheckReferences(apps, references, { sleep, out, pollDelaysMs: deps.referencePollDelaysMs });
  return stripeProblem ? { stripeProblem } : {};
}

/** Subscribes the payment webhook when a Stripe key is available; answers the problem when that failed. */
async function subscribeWebhook(
  env: HookEnv,
  vault: KeyVaultSecrets,
  operatorEnv: NodeJS.ProcessEnv,
  out: (line: string) => void,
): Promise<string | undefined> {
  const webhookUrl = `${env.PAYMENT_URL}/webhook`;
  const key = operatorEnv.STRIPE_SECRET_KEY?.trim() || (await vault.get(SECRET.stripeSecretKey))?.trim();
  if (!key) {
    out(`Stripe webhook: skipped, no Stripe secret key yet. Store it (docs/deploy.md, step 2), then: npm run stripe:webhook -- --url ${webhookUrl}`);
    return undefined;
  }
  try {
    const result = await runWebhookCommand(stripeClient(key, operatorEnv.STRIPE_API_BASE), vault, { url: webhookUrl });
    for (const line of result.lines) out(`Stripe webhook: ${line}`);
    return undefined;
  } catch (error) {
    const problem = `Stripe webhook NOT set up: ${(error as Error).message}. Payment answers not ready until it is: fix the key and run npm run stripe:webhook -- --url ${webhookUrl}`;
    out(problem);
    return problem;
  }
}

async function main(): Promise<void> {
  const env = hookEnv();
  const { DefaultAzureCredential } = await import('@azure/identity');
  await postprovision(env, { credential: new DefaultAzureCredential() });
}

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`postprovision failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  });
}
