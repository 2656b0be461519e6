import { PLATFORM_SETTINGS, SERVICE_NAMES, type Config, type ConfigOf, type ServiceName, type Setting, type SettingTable } from './settings';
import { currentPlatform, Platform, setProcessPlatform, type PlatformOptions } from '../platform';

export { PLATFORM_SETTINGS, SERVICE_NAMES };
export type { Config, ConfigOf, ServiceName, Setting, SettingTable };
export { ConfigError, KEY_VAULT_REFERENCE, parseConfig, settingApplies, unresolvedSettings } from './parse';
export type { ParseOptions, UnresolvedSetting } from './parse';

/** The configuration of the platform the running code belongs to (shared/platform.ts). */
export function config(): Config {
  return currentPlatform().config;
}

/**
 * A command's configuration: a platform of the process built from `env` (process.env, once a CLI
 * has read local.settings.json into it), which every later `config()` of the command reads.
 */
export function useProcessSettings<S extends SettingTable = typeof PLATFORM_SETTINGS>(
  env: NodeJS.ProcessEnv = process.env,
  options: PlatformOptions & { settings?: S } = {},
): Config & ConfigOf<S> {
  const platform = new Platform<Config & ConfigOf<S>>(env, undefined, options);
  setProcessPlatform(platform);
  return platform.config;
}

/** Core Tools sets WEBSITE_HOSTNAME=localhost:<port>: a loopback host name means a laptop, not Azure. */
export function isLoopbackHost(hostname: string): boolean {
  return /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/i.test(hostname.trim());
}

/** In Azure: WEBSITE_HOSTNAME is set and is not a loopback address (which is Core Tools on a laptop). */
export function runsInAzure(cfg: Config = config()): boolean {
  return Boolean(cfg.WEBSITE_HOSTNAME) && !isLoopbackHost(cfg.WEBSITE_HOSTNAME!);
}

export function publicUrl(cfg: Config = config()): string {
  if (cfg.PUBLIC_URL) return cfg.PUBLIC_URL;
  if (cfg.WEBSITE_HOSTNAME) return `${runsInAzure(cfg) ? 'https' : 'http'}://${cfg.WEBSITE_HOSTNAME}`;
  return `http://${cfg.HOST}:${cfg.PORT}`;
}

const URL_SETTINGS: Record<ServiceName, 'IDENTITY_URL' | 'PAYMENT_URL' | 'ORCHESTRATOR_URL' | 'VISUAL_URL'> = {
  identity: 'IDENTITY_URL',
  payment: 'PAYMENT_URL',
  orchestrator: 'ORCHESTRATOR_URL',
  visual: 'VISUAL_URL',
};

/** Base URL of a service ({auth_url}, {payment_url}, {base_url}, {visual_url}). */
export function serviceUrl(service: ServiceName, cfg: Config = config()): string {
  const setting = URL_SETTINGS[service];
  return (setting && cfg[setting]) || `${publicUrl(cfg)}/${service}`;
}

/** Every setting's embedded default, for resolving `%SETTING%` trigger properties on a laptop whose local.settings.json predates the setting. */
export function settingDefaults(table: SettingTable): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, setting] of Object.entries(table)) if (setting.default !== undefined) out[name] = setting.default;
  return out;
}
