/**
 * The app settings app-settings.bicep gives each service, read from the compiled template, against
 * SETTINGS in shared/config/settings.ts. Each way the two can drift is shown to be caught on a copy
 * of the compiled settings with one change.
 */
import { type Setting } from '../../shared/config';
import { SETTINGS } from '../../functions/settings';
import { compiledInfra, describeWithBicep, moduleTemplate } from '../helpers/bicep';
import { appSettingsObjects, checkSettingsParity, type AppSettingsObjects } from './parity';

const settings = SETTINGS as Record<string, Setting<unknown>>;

function withoutSetting(name: string): Record<string, Setting<unknown>> {
  const copy = { ...settings };
  delete copy[name];
  return copy;
}

describeWithBicep('Bicep app settings and SETTINGS agree', (bicep) => {
  let compiled: AppSettingsObjects;
  beforeAll(() => {
    compiled = appSettingsObjects(moduleTemplate(compiledInfra(bicep), 'appSettings').variables!);
  });
  /** A deep copy of the compiled settings, changed by `change`. */
  const changed = (change: (objects: AppSettingsObjects) => void): AppSettingsObjects => {
    const copy = structuredClone(compiled);
    change(copy);
    return copy;
  };

  it('are in parity today', () => {
    expect(checkSettingsParity(compiled, settings)).toEqual([]);
  });

  it('reads the per-service objects of the compiled app-settings module', () => {
    expect(Object.keys(compiled.plainSettingsByService)).toEqual(['all', 'identity', 'payment', 'orchestrator', 'visual']);
    expect(compiled.plainSettingsByService.all.SERVICES).toBe("[join(parameters('services'), ',')]");
    expect(compiled.keyVaultSecretsByService.all).toEqual({});
    expect(compiled.keyVaultSecretsByService.payment.STRIPE_WEBHOOK_SECRET).toBe(
      "[format('@Microsoft.KeyVault(SecretUri={0}secrets/stripe-webhook-secret/)', parameters('keyVaultUri'))]",
    );
  });

  it('fails when a plain setting is removed from the Bicep', () => {
    const objects = changed((o) => delete o.plainSettingsByService.all.SQL_DATABASE);
    expect(checkSettingsParity(objects, settings)).toEqual(
      expect.arrayContaining([expect.stringContaining("SQL_DATABASE: read by identity (deploy 'app') but not in its plain app settings")]),
    );
  });

  it('fails when a secret is removed from the Bicep', () => {
    const objects = changed((o) => delete o.keyVaultSecretsByService.payment.STRIPE_WEBHOOK_SECRET);
    expect(checkSettingsParity(objects, settings)).toEqual([
      "STRIPE_WEBHOOK_SECRET: read by payment (deploy 'secret') but not a Key Vault reference in its app settings",
    ]);
  });

  it('fails when a service that reads a shared setting loses it', () => {
    const objects = changed((o) => delete o.keyVaultSecretsByService.visual.VISUAL_API_TOKEN);
    expect(checkSettingsParity(objects, settings)).toEqual([
      "VISUAL_API_TOKEN: read by visual (deploy 'secret') but not a Key Vault reference in its app settings",
    ]);
  });

  it('fails when a setting is removed from SETTINGS but still set in the Bicep', () => {
    expect(checkSettingsParity(compiled, withoutSetting('BOOTSTRAP_ADMIN_EMAIL'))).toEqual([
      'BOOTSTRAP_ADMIN_EMAIL: set for identity but not declared in SETTINGS',
    ]);
    expect(checkSettingsParity(compiled, withoutSetting('OTP_HMAC_KEY'))).toEqual(['OTP_HMAC_KEY: set for identity but not declared in SETTINGS']);
  });

  it('fails when SETTINGS gains an app or secret setting the Bicep does not set', () => {
    const added = {
      ...settings,
      REPORTS_CONTAINER: { ...settings.SQL_DATABASE, services: ['orchestrator'], deploy: 'app' },
      AI_API_KEY: { ...settings.OTP_HMAC_KEY, services: ['orchestrator'], deploy: 'secret' },
    } as Record<string, Setting<unknown>>;
    expect(checkSettingsParity(compiled, added)).toEqual([
      "REPORTS_CONTAINER: read by orchestrator (deploy 'app') but not in its plain app settings",
      "AI_API_KEY: read by orchestrator (deploy 'secret') but not a Key Vault reference in its app settings",
    ]);
  });

  it('fails when a setting is set for a service that does not read it, or is local, or has the wrong kind', () => {
    const objects = changed((o) => {
      delete o.keyVaultSecretsByService.identity.OTP_HMAC_KEY;
      o.plainSettingsByService.identity = {
        IDENTITY_URL: "[parameters('serviceUrls').identity]",
        DATA_DIR: '/tmp',
        OTP_HMAC_KEY: 'plain',
        ...o.plainSettingsByService.identity,
      };
    });
    expect(checkSettingsParity(objects, settings)).toEqual([
      "OTP_HMAC_KEY: read by identity (deploy 'secret') but not a Key Vault reference in its app settings",
      'IDENTITY_URL: set for identity, which does not read it',
      "DATA_DIR: deploy 'local' must not be set in Azure",
      "OTP_HMAC_KEY: deploy 'secret' but set as a plain value",
    ]);
  });

  it('fails when a setting is set both plainly and as a Key Vault reference', () => {
    const objects = changed((o) => (o.plainSettingsByService.payment = { STRIPE_SECRET_KEY: 'sk_live_in_plain_sight', ...o.plainSettingsByService.payment }));
    expect(checkSettingsParity(objects, settings)).toEqual(['STRIPE_SECRET_KEY: set for payment both as a plain value and as a Key Vault reference']);
  });

  it('fails when a Key Vault reference names another secret', () => {
    const objects = changed(
      (o) => (o.keyVaultSecretsByService.identity.OTP_HMAC_KEY = "[format('@Microsoft.KeyVault(SecretUri={0}secrets/otp-key/)', parameters('keyVaultUri'))]"),
    );
    expect(checkSettingsParity(objects, settings)).toEqual([
      "OTP_HMAC_KEY: expected a Key Vault reference to secrets/otp-hmac-key/, got [format('@Microsoft.KeyVault(SecretUri={0}secrets/otp-key/)', parameters('keyVaultUri'))]",
    ]);
  });

  it('allows only host settings in hostSettings', () => {
    const objects = changed((o) => (o.hostSettings = { LOG_LEVEL: 'debug', FUNCTIONS_EXTENSION_VERSION: '~4', ...o.hostSettings }));
    expect(checkSettingsParity(objects, settings)).toEqual(['LOG_LEVEL: not a host setting (declare it in SETTINGS and set it per service)']);
  });
});
