/**
 * After the postprovision hook writes the Key Vault secrets, each Function App must read its Key
 * Vault references again: an app resolves them when its settings are written (by the Bicep, before
 * the secrets existed) and then only about once a day, and a restart does not promise a fresh
 * read. Through Azure Resource Manager this asks each app to refresh its references, then reads the
 * status of every one until none is still being resolved, and fails naming each app setting that
 * did not resolve (with Azure's reason), so `azd up` never ends with an app answering 503. The
 * same refresh is what every manual step ends with: `npm run secrets -- --refresh` (refreshFromEnv),
 * and `npm run stripe:webhook` itself after it stores a secret.
 */
import type { TokenCredential } from '@azure/identity';

/** The refresh operation as App Service documents it (Key Vault references, "Rotation"). */
export const REFRESH_API_VERSION = '2022-03-01';
/** Web Apps - Get App Settings Key Vault References. */
export const REFERENCES_API_VERSION = '2024-04-01';

/** One Key Vault reference of an app setting, as ARM reports it (ApiKVReference). */
export interface KeyVaultReference {
  name: string;
  properties: { reference?: string; status: string; vaultName?: string; secretName?: string; details?: string; source?: string };
}

/** Statuses of a reference App Service is still resolving. */
const RESOLVING = new Set(['Initialized']);

export class AppSettingsReferences {
  constructor(
    private readonly scope: { subscriptionId: string; resourceGroup: string },
    private readonly credential: TokenCredential,
    private readonly armEndpoint = 'https://management.azure.com',
  ) {}

  private site(app: string): string {
    const base = this.armEndpoint.replace(/\/$/, '');
    return `${base}/subscriptions/${this.scope.subscriptionId}/resourceGroups/${this.scope.resourceGroup}/providers/Microsoft.Web/sites/${app}`;
  }

  private async call(method: 'GET' | 'POST', url: string): Promise<unknown> {
    const token = await this.credential.getToken(`${this.armEndpoint.replace(/\/$/, '')}/.default`);
    if (!token) throw new Error('no Entra ID token for Azure Resource Manager (sign in with `azd auth login` or `az login`)');
    const response = await fetch(url, { method, headers: { Authorization: `Bearer ${token.token}` } });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${new URL(url).pathname}: HTTP ${response.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  }

  /** Asks the app to resolve every Key Vault reference of its app settings again. */
  async refresh(app: string): Promise<void> {
    await this.call('POST', `${this.site(app)}/config/configreferences/appsettings/refresh?api-version=${REFRESH_API_VERSION}`);
  }

  /** Every Key Vault reference of the app's settings with its status (following nextLink). */
  async list(app: string): Promise<KeyVaultReference[]> {
    const references: KeyVaultReference[] = [];
    let url: string | undefined = `${this.site(app)}/config/configreferences/appsettings?api-version=${REFERENCES_API_VERSION}`;
    while (url) {
      const page = (await this.call('GET', url)) as { value?: KeyVaultReference[]; nextLink?: string | null };
      references.push(...(page.value ?? []));
      url = page.nextLink ?? undefined;
    }
    return references;
  }
}

export interface ReferenceCheckOptions {
  sleep: (ms: number) => Promise<void>;
  out: (line: string) => void;
  /** Polls while references are still resolving: this many, this far apart. */
  pollDelaysMs?: number[];
  /** Refreshes again while a reference is AccessToKeyVaultDenied: this many, this far apart. */
  deniedRetryDelaysMs?: number[];
}

/** 2 minutes in all: resolving takes seconds, a cold app a little longer. */
export const REFERENCE_POLL_DELAYS_MS = [5_000, 5_000, 10_000, 10_000, 20_000, 30_000, 40_000];

/**
 * How long to keep asking while a reference is AccessToKeyVaultDenied: an app's role assignment on
 * a secret (made by the same provisioning) reaches Key Vault seconds to minutes after the
 * deployment returns, and a refresh resolved before that is denied. About ten minutes in all, then
 * the denial is reported as the fault it is (a missing or wrong assignment).
 */
export const DENIED_RETRY_DELAYS_MS = [15_000, 30_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000, 60_000];

const DENIED = 'AccessToKeyVaultDenied';

type AppReference = { app: string; reference: KeyVaultReference };

/** Reads every reference of `apps` until none is still resolving (or the polls run out). */
async function settledStatuses(apps: string[], references: AppSettingsReferences, options: ReferenceCheckOptions): Promise<AppReference[]> {
  const delays = options.pollDelaysMs ?? REFERENCE_POLL_DELAYS_MS;
  for (let attempt = 0; ; attempt++) {
    const statuses = (await Promise.all(apps.map(async (app) => (await references.list(app)).map((reference) => ({ app, reference }))))).flat();
    const resolving = statuses.filter((s) => RESOLVING.has(s.reference.properties.status));
    if (!resolving.length || attempt >= delays.length) return statuses;
    options.out(`  ${resolving.length} still resolving; checking again in ${Math.round(delays[attempt] / 1000)} s`);
    await options.sleep(delays[attempt]);
  }
}

/**
 * Refreshes then checks the Key Vault references of each app (names deduplicated: with SINGLE_APP
 * the four services are one app). A reference denied access is asked again (refresh, then read)
 * for a bounded time (DENIED_RETRY_DELAYS_MS) while a new role assignment propagates. Resolves
 * when every reference of every app is Resolved; throws naming every app setting that is not, with
 * its status and Azure's details.
 */
export async function refreshAndCheckReferences(apps: string[], references: AppSettingsReferences, options: ReferenceCheckOptions): Promise<void> {
  const unique = [...new Set(apps)];
  for (const app of unique) await references.refresh(app);
  options.out(`Key Vault references: asked ${unique.join(', ')} to read them again`);
  const deniedDelays = options.deniedRetryDelaysMs ?? DENIED_RETRY_DELAYS_MS;
  let statuses: AppReference[] = [];
  for (let retry = 0; ; retry++) {
    statuses = await settledStatuses(unique, references, options);
    const denied = statuses.filter((s) => s.reference.properties.status === DENIED);
    if (!denied.length || retry >= deniedDelays.length) break;
    const deniedApps = [...new Set(denied.map((s) => s.app))];
    options.out(
      `  ${denied.length} reference${denied.length === 1 ? '' : 's'} of ${deniedApps.join(', ')} ${DENIED} (a new role assignment can take minutes to reach Key Vault); asking again in ${Math.round(deniedDelays[retry] / 1000)} s (retry ${retry + 1} of ${deniedDelays.length})`,
    );
    await options.sleep(deniedDelays[retry]);
    for (const app of deniedApps) await references.refresh(app);
  }
  const unresolved = statuses.filter((s) => s.reference.properties.status !== 'Resolved');
  if (unresolved.length) {
    const lines = unresolved.map(
      ({ app, reference: { name, properties: p } }) =>
        `${app}: app setting ${name.split('/').pop()} is ${p.status}${p.secretName ? ` (secret ${p.secretName} in vault ${p.vaultName ?? '?'})` : ''}${p.details ? `: ${p.details}` : ''}`,
    );
    throw new Error(
      `Key Vault references did not resolve; the services reading them answer 503 until they do:\n  ${lines.join('\n  ')}\n` +
        "Check that the secret exists and that the app's managed identity has Key Vault Secrets User on it, then check again: npm run secrets -- --refresh (or azd hooks run postprovision).",
    );
  }
  options.out(`  all ${statuses.length} references resolved`);
}

/** The azd environment values the refresh needs (`eval "$(azd env get-values)"` puts them in the shell). */
export const REFRESH_INPUTS = [
  'AZURE_SUBSCRIPTION_ID',
  'AZURE_RESOURCE_GROUP',
  'FUNCTION_APP_IDENTITY',
  'FUNCTION_APP_PAYMENT',
  'FUNCTION_APP_ORCHESTRATOR',
  'FUNCTION_APP_VISUAL',
] as const;

export type AppService = 'identity' | 'payment' | 'orchestrator' | 'visual';

/** The azd environment values a refresh of `steps`' apps needs. */
export const refreshInputs = (steps: AppService[][]): string[] =>
  REFRESH_INPUTS.filter((name) => !name.startsWith('FUNCTION_APP_') || steps.flat().some((service) => name === `FUNCTION_APP_${service.toUpperCase()}`));

export interface RefreshDeps extends ReferenceCheckOptions {
  credential: TokenCredential;
  /** Azure Resource Manager (a local stand-in in tests). */
  armEndpoint?: string;
}

/**
 * `npm run secrets -- --refresh`: the apps of the azd environment in `env` read their Key Vault
 * references again and each must resolve. `steps` lists the apps per step, in order (a service
 * token rotation refreshes identity, which then accepts both tokens, before payment, which then
 * sends the new one); by default every app at once.
 */
export async function refreshFromEnv(
  env: NodeJS.ProcessEnv,
  deps: RefreshDeps,
  steps: AppService[][] = [['identity', 'payment', 'orchestrator', 'visual']],
): Promise<void> {
  const missing = refreshInputs(steps).filter((name) => !env[name]?.trim());
  if (missing.length) throw new Error(`missing ${missing.join(', ')}: run eval "$(azd env get-values)" in this shell first (docs/deploy.md)`);
  const references = new AppSettingsReferences(
    { subscriptionId: env.AZURE_SUBSCRIPTION_ID!, resourceGroup: env.AZURE_RESOURCE_GROUP! },
    deps.credential,
    deps.armEndpoint,
  );
  for (const step of steps) {
    const apps = step.map((service) => env[`FUNCTION_APP_${service.toUpperCase()}`]!.trim());
    await refreshAndCheckReferences(apps, references, deps);
  }
}
