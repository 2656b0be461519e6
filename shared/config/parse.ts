import { PLATFORM_SETTINGS, SERVICE_NAMES, type Config, type ConfigOf, type ServiceName, type Setting, type SettingTable } from './settings';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * A Key Vault reference Azure could not resolve reaches the app as its own text. Such a value is
 * never used: the setting counts as unresolved (see `unresolvedSettings`), whatever its parser
 * would have accepted. It stops the services that read it, unless the setting is marked
 * `unresolved: 'unset'` (a Stripe key, an SMTP URL, an AI key not stored yet): that one counts as
 * unset, so one missing optional secret never stops a whole service, and the part that needs it
 * says so (health `degraded`, a 503 naming it). A secret whose absence would open a route
 * (VISUAL_API_TOKEN) is never treated so.
 */
export const KEY_VAULT_REFERENCE = /^\s*@Microsoft\.KeyVault\(/i;

export interface UnresolvedSetting {
  name: string;
  services: readonly ServiceName[];
  /** Stops the services that read it; false for settings marked `unresolved: 'unset'`, which count as unset. */
  required: boolean;
  problem: string;
}

/** Settings of `table` (the app's whole list: functions/settings.ts) whose value is still a Key Vault reference, with the services that read them. */
export function unresolvedSettings(table: SettingTable, env: NodeJS.ProcessEnv = process.env): UnresolvedSetting[] {
  return Object.entries(table)
    .filter(([name]) => KEY_VAULT_REFERENCE.test(env[name] ?? ''))
    .map(([name, setting]) => ({
      name,
      services: setting.services === 'all' ? SERVICE_NAMES : setting.services,
      required: setting.unresolved !== 'unset',
      problem:
        `${name} is an unresolved Key Vault reference: the app received the reference text instead of the secret. ` +
        "Give the app's managed identity read access to the vault's secrets (Key Vault Secrets User) and check that the secret exists, then make the app read it again: npm run secrets -- --refresh.",
    }));
}

export function settingApplies(setting: Setting<unknown>, services: readonly ServiceName[]): boolean {
  return setting.services === 'all' || setting.services.some((s) => services.includes(s));
}

export interface ParseOptions {
  /**
   * The settings to parse: the app's whole list (functions/settings.ts, every service's settings
   * with the platform's), or by default the platform's alone (a command or a test that serves no service).
   */
  settings?: SettingTable;
  /** Services whose required settings must be present; defaults to SERVICES. Tools that serve no service (npm run migrate) pass []. */
  requireFor?: readonly ServiceName[];
}

/**
 * Parses every setting from `env`. A required setting is enforced only when one of the selected
 * services reads it, so a payment-only app does not need identity's signing keys. All problems are
 * reported together so one failed start names everything that needs fixing.
 */
export function parseConfig<S extends SettingTable = typeof PLATFORM_SETTINGS>(
  env: NodeJS.ProcessEnv = process.env,
  options: ParseOptions & { settings?: S } = {},
): Config & ConfigOf<S> {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  let services: readonly ServiceName[] = SERVICE_NAMES;
  try {
    services = PLATFORM_SETTINGS.SERVICES.parse(env.SERVICES?.trim() || PLATFORM_SETTINGS.SERVICES.default!);
  } catch (error) {
    problems.push(`SERVICES: ${(error as Error).message}`);
  }
  for (const [name, setting] of Object.entries(options.settings ?? PLATFORM_SETTINGS) as [string, Setting<unknown>][]) {
    const raw = env[name];
    // Never parsed nor reported missing: it stops the services reading it, or counts as unset (unresolvedSettings).
    if (raw !== undefined && KEY_VAULT_REFERENCE.test(raw)) continue;
    const given = raw !== undefined && raw.trim() !== '';
    if (!given && setting.kind === 'required') {
      if (settingApplies(setting, options.requireFor ?? services)) problems.push(`${name}: missing. ${setting.description}`);
      continue;
    }
    const input = given ? raw.trim() : setting.default;
    if (input === undefined) continue;
    try {
      values[name] = setting.parse(input);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return Object.freeze(values) as Config & ConfigOf<S>;
}
