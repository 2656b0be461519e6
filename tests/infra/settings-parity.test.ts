import fs from 'node:fs';
import path from 'node:path';
import { SETTINGS, type Setting } from '../../shared/config';
import { checkSettingsParity, readBicepObject } from './parity';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const APP_SETTINGS_BICEP = fs.readFileSync(path.join(ROOT, 'infra', 'modules', 'app-settings.bicep'), 'utf8');
const settings = SETTINGS as Record<string, Setting<unknown>>;

/** The Bicep text without the line that sets `name` under `group` (the first such line after the group opens). */
function withoutBicepLine(bicep: string, variable: string, group: string, name: string): string {
  const lines = bicep.split('\n');
  const varStart = lines.findIndex((l) => l.startsWith(`var ${variable} = {`));
  const groupStart = lines.findIndex((l, i) => i > varStart && l.trim() === `${group}: {`);
  const index = lines.findIndex((l, i) => i > groupStart && l.trim().startsWith(`${name}:`));
  expect(index).toBeGreaterThan(groupStart);
  return [...lines.slice(0, index), ...lines.slice(index + 1)].join('\n');
}

function withoutSetting(name: string): Record<string, Setting<unknown>> {
  const copy = { ...settings };
  delete copy[name];
  return copy;
}

describe('Bicep app settings and SETTINGS agree', () => {
  it('are in parity today', () => {
    expect(checkSettingsParity(APP_SETTINGS_BICEP, settings)).toEqual([]);
  });

  it('reads the per-service object literals of app-settings.bicep', () => {
    const plain = readBicepObject(APP_SETTINGS_BICEP, 'plainSettingsByService', true);
    const secrets = readBicepObject(APP_SETTINGS_BICEP, 'keyVaultSecretsByService', true);
    expect(Object.keys(plain)).toEqual(['all', 'identity', 'payment', 'orchestrator', 'visual']);
    expect(plain.all.SERVICES).toBe("join(services, ',')");
    expect(secrets.all).toEqual({});
    expect(secrets.payment.STRIPE_WEBHOOK_SECRET).toBe("'@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/stripe-webhook-secret/)'");
  });

  it('fails when a plain setting is removed from the Bicep', () => {
    const bicep = withoutBicepLine(APP_SETTINGS_BICEP, 'plainSettingsByService', 'all', 'SQL_DATABASE');
    expect(checkSettingsParity(bicep, settings)).toEqual(
      expect.arrayContaining([expect.stringContaining("SQL_DATABASE: read by identity (deploy 'app') but not in its plain app settings")]),
    );
  });

  it('fails when a secret is removed from the Bicep', () => {
    const bicep = withoutBicepLine(APP_SETTINGS_BICEP, 'keyVaultSecretsByService', 'payment', 'STRIPE_WEBHOOK_SECRET');
    expect(checkSettingsParity(bicep, settings)).toEqual([
      "STRIPE_WEBHOOK_SECRET: read by payment (deploy 'secret') but not a Key Vault reference in its app settings",
    ]);
  });

  it('fails when a service that reads a shared setting loses it', () => {
    const bicep = withoutBicepLine(APP_SETTINGS_BICEP, 'keyVaultSecretsByService', 'visual', 'VISUAL_API_TOKEN');
    expect(checkSettingsParity(bicep, settings)).toEqual([
      "VISUAL_API_TOKEN: read by visual (deploy 'secret') but not a Key Vault reference in its app settings",
    ]);
  });

  it('fails when a setting is removed from SETTINGS but still set in the Bicep', () => {
    expect(checkSettingsParity(APP_SETTINGS_BICEP, withoutSetting('BOOTSTRAP_ADMIN_EMAIL'))).toEqual([
      'BOOTSTRAP_ADMIN_EMAIL: set for identity but not declared in SETTINGS',
    ]);
    expect(checkSettingsParity(APP_SETTINGS_BICEP, withoutSetting('OTP_HMAC_KEY'))).toEqual(['OTP_HMAC_KEY: set for identity but not declared in SETTINGS']);
  });

  it('fails when SETTINGS gains an app or secret setting the Bicep does not set', () => {
    const added = {
      ...settings,
      REPORTS_CONTAINER: { ...settings.SQL_DATABASE, services: ['orchestrator'], deploy: 'app' },
      AI_API_KEY: { ...settings.OTP_HMAC_KEY, services: ['orchestrator'], deploy: 'secret' },
    } as Record<string, Setting<unknown>>;
    expect(checkSettingsParity(APP_SETTINGS_BICEP, added)).toEqual([
      "REPORTS_CONTAINER: read by orchestrator (deploy 'app') but not in its plain app settings",
      "AI_API_KEY: read by orchestrator (deploy 'secret') but not a Key Vault reference in its app settings",
    ]);
  });

  it('fails when a setting is set for a service that does not read it, or is local, or has the wrong kind', () => {
    const misplaced = withoutBicepLine(APP_SETTINGS_BICEP, 'keyVaultSecretsByService', 'identity', 'OTP_HMAC_KEY').replace(
      '  identity: {\n',
      "  identity: {\n    IDENTITY_URL: serviceUrls.identity\n    DATA_DIR: '/tmp'\n    OTP_HMAC_KEY: 'plain'\n",
    );
    expect(checkSettingsParity(misplaced, settings)).toEqual([
      "OTP_HMAC_KEY: read by identity (deploy 'secret') but not a Key Vault reference in its app settings",
      'IDENTITY_URL: set for identity, which does not read it',
      "DATA_DIR: deploy 'local' must not be set in Azure",
      "OTP_HMAC_KEY: deploy 'secret' but set as a plain value",
    ]);
  });

  it('fails when a setting is set both plainly and as a Key Vault reference', () => {
    const twice = APP_SETTINGS_BICEP.replace('  payment: {\n', "  payment: {\n    STRIPE_SECRET_KEY: 'sk_live_in_plain_sight'\n");
    expect(checkSettingsParity(twice, settings)).toEqual(['STRIPE_SECRET_KEY: set for payment both as a plain value and as a Key Vault reference']);
  });

  it('fails when a Key Vault reference names another secret', () => {
    const wrong = APP_SETTINGS_BICEP.replace('secrets/otp-hmac-key/', 'secrets/otp-key/');
    expect(checkSettingsParity(wrong, settings)).toEqual([
      "OTP_HMAC_KEY: expected '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/otp-hmac-key/)', got '@Microsoft.KeyVault(SecretUri=${keyVaultUri}secrets/otp-key/)'",
    ]);
  });

  it('allows only host settings in hostSettings', () => {
    const extra = APP_SETTINGS_BICEP.replace('var hostSettings = {\n', "var hostSettings = {\n  LOG_LEVEL: 'debug'\n  FUNCTIONS_EXTENSION_VERSION: '~4'\n");
    expect(checkSettingsParity(extra, settings)).toEqual(['LOG_LEVEL: not a host setting (declare it in SETTINGS and set it per service)']);
  });
});
