import { SERVICE_NAMES, SETTINGS, type Config, type ServiceName, type Setting, type SettingName } from './settings';

export { SERVICE_NAMES, SETTINGS };
export type { Config, ServiceName, SettingName, Setting };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function settingApplies(setting: Setting<unknown>, services: readonly ServiceName[]): boolean {
  return setting.services === 'all' || setting.services.some((s) => services.includes(s));
}

export interface ParseOptions {
  /** Services whose required settings must be present; defaults to SERVICES. Tools that serve no service (npm run migrate) pass []. */
  requireFor?: readonly ServiceName[];
}

/**
 * Parses every setting from `env`. A required setting is enforced only when one of the selected
 * services reads it, so a payment-only app does not need identity's signing keys. All problems are
 * reported together so one failed start names everything that needs fixing.
 */
export function parseConfig(env: NodeJS.ProcessEnv = process.env, options: ParseOptions = {}): Config {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  let services: readonly ServiceName[] = SERVICE_NAMES;
  try {
    services = SETTINGS.SERVICES.parse(env.SERVICES?.trim() || SETTINGS.SERVICES.default!);
  } catch (error) {
    problems.push(`SERVICES: ${(error as Error).message}`);
  }
  for (const [name, setting] of Object.entries(SETTINGS) as [SettingName, Setting<unknown>][]) {
    const raw = env[name];
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
  return Object.freeze(values) as Config;
}

let current: Config | undefined;

/** The process's configuration, parsed from the environment on first use. */
export function config(): Config {
  current ??= parseConfig();
  return current;
}

/** Re-reads the environment (the dev host calls this after loading local.settings.json). */
export function reloadConfig(env: NodeJS.ProcessEnv = process.env, options?: ParseOptions): Config {
  current = parseConfig(env, options);
  return current;
}

export function publicUrl(cfg: Config = config()): string {
  if (cfg.PUBLIC_URL) return cfg.PUBLIC_URL;
  if (cfg.WEBSITE_HOSTNAME) return `https://${cfg.WEBSITE_HOSTNAME}`;
  return `http://${cfg.HOST}:${cfg.PORT}`;
}

const URL_SETTINGS: Partial<Record<ServiceName, 'IDENTITY_URL' | 'PAYMENT_URL' | 'VISUAL_URL'>> = { identity: 'IDENTITY_URL', payment: 'PAYMENT_URL', visual: 'VISUAL_URL' };

/** Base URL of a service ({auth_url}, {payment_url}, {base_url}, {visual_url}). */
export function serviceUrl(service: ServiceName, cfg: Config = config()): string {
  const setting = URL_SETTINGS[service];
  return (setting && cfg[setting]) || `${publicUrl(cfg)}/${service}`;
}

/** Every setting's embedded default, for resolving `%SETTING%` trigger properties on a laptop whose local.settings.json predates the setting. */
export function settingDefaults(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, setting] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) if (setting.default !== undefined) out[name] = setting.default;
  return out;
}
