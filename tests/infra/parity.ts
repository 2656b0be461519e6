import { SERVICE_NAMES, type Setting } from '../../shared/config';

/** Settings of the Functions host itself that our code never reads; allowed in hostSettings only. */
export const HOST_SETTING_PATTERNS = [/^FUNCTIONS_EXTENSION_VERSION$/, /^FUNCTIONS_WORKER_RUNTIME$/, /^AzureWebJobsStorage__\w+$/, /^APPLICATIONINSIGHTS_\w+$/];

/** A Key Vault reference to one secret of the vault, as the compiled template writes it. */
const KEY_VAULT_REFERENCE = /^\[format\('@Microsoft\.KeyVault\(SecretUri=\{0\}secrets\/([a-z0-9-]+)\/\)', parameters\('keyVaultUri'\)\)\]$/;

type Entries = Record<string, unknown>;

/**
 * The app settings of app-settings.bicep as its compiled template holds them: the variables
 * plainSettingsByService and keyVaultSecretsByService (service group -> setting -> value or ARM
 * expression) and hostSettings.
 */
export interface AppSettingsObjects {
  plainSettingsByService: Record<string, Entries>;
  keyVaultSecretsByService: Record<string, Entries>;
  hostSettings: Entries;
}

export const appSettingsObjects = (variables: Record<string, any>): AppSettingsObjects => ({
  plainSettingsByService: variables.plainSettingsByService,
  keyVaultSecretsByService: variables.keyVaultSecretsByService,
  hostSettings: variables.hostSettings,
});

/** The Key Vault secret a setting refers to: JWT_SIGNING_KEYS -> jwt-signing-keys. */
export const keyVaultSecretName = (setting: string) => setting.toLowerCase().replace(/_/g, '-');

function appliesTo(setting: Setting<unknown>, service: string): boolean {
  return setting.services === 'all' || (setting.services as readonly string[]).includes(service);
}

/**
 * Compares the app settings of app-settings.bicep (compiled) with the settings list. For each service, every
 * `app` setting it reads must be set plainly, every `secret` one as a Key Vault reference; nothing
 * may be set that the service does not read, that is `local` or `platform`, or that is undeclared.
 * Returns the problems found (none: in parity).
 */
export function checkSettingsParity(objects: AppSettingsObjects, settings: Record<string, Setting<unknown>>): string[] {
  const plain = objects.plainSettingsByService;
  const secrets = objects.keyVaultSecretsByService;
  const host = objects.hostSettings;
  const problems: string[] = [];
  const groups = ['all', ...SERVICE_NAMES];
  for (const group of new Set([...Object.keys(plain), ...Object.keys(secrets), ...groups])) {
    if (!groups.includes(group)) problems.push(`unknown service group "${group}" in the Bicep`);
    else if (!plain[group] || !secrets[group]) problems.push(`service group "${group}" missing in plainSettingsByService or keyVaultSecretsByService`);
  }
  for (const name of Object.keys(host)) {
    if (!HOST_SETTING_PATTERNS.some((p) => p.test(name)) || name in settings)
      problems.push(`${name}: not a host setting (declare it in SETTINGS and set it per service)`);
  }
  for (const service of SERVICE_NAMES) {
    const setPlain: Entries = { ...plain.all, ...plain[service] };
    const setSecret: Entries = { ...secrets.all, ...secrets[service] };
    for (const [name, setting] of Object.entries(settings)) {
      if (!appliesTo(setting, service)) continue;
      if (setting.deploy === 'app' && !(name in setPlain)) problems.push(`${name}: read by ${service} (deploy 'app') but not in its plain app settings`);
      if (setting.deploy === 'secret' && !(name in setSecret))
        problems.push(`${name}: read by ${service} (deploy 'secret') but not a Key Vault reference in its app settings`);
    }
    for (const [name, value] of Object.entries({ ...setPlain, ...setSecret })) {
      const setting = settings[name];
      const asSecret = name in setSecret;
      if (asSecret && name in setPlain) problems.push(`${name}: set for ${service} both as a plain value and as a Key Vault reference`);
      if (!setting) problems.push(`${name}: set for ${service} but not declared in SETTINGS`);
      else if (!appliesTo(setting, service)) problems.push(`${name}: set for ${service}, which does not read it`);
      else if (setting.deploy === 'local' || setting.deploy === 'platform') problems.push(`${name}: deploy '${setting.deploy}' must not be set in Azure`);
      else if (setting.deploy === 'app' && asSecret) problems.push(`${name}: deploy 'app' but set as a Key Vault reference`);
      else if (setting.deploy === 'secret' && !asSecret) problems.push(`${name}: deploy 'secret' but set as a plain value`);
      if (asSecret && KEY_VAULT_REFERENCE.exec(String(value))?.[1] !== keyVaultSecretName(name)) {
        problems.push(`${name}: expected a Key Vault reference to secrets/${keyVaultSecretName(name)}/, got ${String(value)}`);
      }
    }
  }
  return [...new Set(problems)];
}
