import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadSigningKeys } from '../../shared/auth/keys';
import { verifyServiceToken } from '../../shared/auth/service-token';
import { ConfigError } from '../../shared/config';
import { parseAppConfig, SETTINGS } from '../../functions/settings';
import { loadLocalSettings } from '../../devhost/settings';
import { PROJECT_ROOT } from '../../devhost/host';

const SAMPLE = path.join(PROJECT_ROOT, 'local.settings.sample.json');

describe('local.settings.json generation', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'settings-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a missing file is created from the sample with fresh secrets that the services accept', async () => {
    const file = path.join(dir, 'local.settings.json');
    const { values, created } = await loadLocalSettings(file, SAMPLE);
    expect(created).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    for (const name of ['JWT_SIGNING_KEYS', 'SERVICE_TOKEN_SECRET', 'OTP_HMAC_KEY', 'AUTH_ADMIN_TOKEN', 'STRIPE_WEBHOOK_SECRET', 'VISUAL_API_TOKEN']) {
      expect(values[name]).toBeTruthy();
    }
    expect(values.STRIPE_WEBHOOK_SECRET).toMatch(/^whsec_/);
    const [key] = await loadSigningKeys(JSON.parse(values.JWT_SIGNING_KEYS));
    expect(key).toMatchObject({ alg: 'ES256' });
    expect(key.publicJwk.d).toBeUndefined();
    // The payment side's token verifies under the identity side's secret.
    const claims = await verifyServiceToken(values.AUTH_ADMIN_TOKEN, {
      secrets: [values.SERVICE_TOKEN_SECRET],
      issuer: 'payment-service',
      audience: 'identity-service',
    });
    expect(claims.exp - claims.iat).toBe(365 * 24 * 3600);
    // The whole generated file is a valid configuration.
    expect(() => parseAppConfig(values)).not.toThrow();
  });

  test('an existing file is read as it is, never regenerated', async () => {
    const file = path.join(dir, 'local.settings.json');
    const first = await loadLocalSettings(file, SAMPLE);
    const second = await loadLocalSettings(file, SAMPLE);
    expect(second.created).toBe(false);
    expect(second.values).toEqual(first.values);
  });

  test('two generated files never share a secret', async () => {
    const a = await loadLocalSettings(path.join(dir, 'a.json'), SAMPLE);
    const b = await loadLocalSettings(path.join(dir, 'b.json'), SAMPLE);
    expect(a.values.SERVICE_TOKEN_SECRET).not.toBe(b.values.SERVICE_TOKEN_SECRET);
    expect(a.values.JWT_SIGNING_KEYS).not.toBe(b.values.JWT_SIGNING_KEYS);
  });
});

describe('config', () => {
  const problems = (env: Record<string, string>): string[] => {
    try {
      parseAppConfig(env);
      return [];
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).problems;
    }
  };

  test('every missing required setting of the selected services is named at once', () => {
    const found = problems({});
    const required = Object.entries(SETTINGS)
      .filter(([, s]) => s.kind === 'required')
      .map(([name]) => name);
    expect(required.length).toBeGreaterThan(3);
    for (const name of required) expect(found.some((p) => p.startsWith(`${name}: missing`))).toBe(true);
  });

  test('a setting is required only for the services that read it', () => {
    const found = problems({ SERVICES: 'visual' });
    expect(found).toEqual([]);
    expect(
      problems({ SERVICES: 'payment' })
        .map((p) => p.split(':')[0])
        .sort(),
    ).toEqual(['AUTH_ADMIN_TOKEN', 'STRIPE_WEBHOOK_SECRET']);
  });

  test('invalid values are reported with what was expected', () => {
    const found = problems({ SERVICES: 'visual,billing', PORT: 'eighty', SQL_POOL_MAX: '0', LOG_LEVEL: 'loud', PUBLIC_URL: 'ftp://x' });
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^SERVICES: unknown value\(s\) billing/),
        expect.stringMatching(/^PORT: expected an integer, got "eighty"/),
        expect.stringMatching(/^SQL_POOL_MAX: expected an integer from 1 to 100, got 0/),
        expect.stringMatching(/^LOG_LEVEL: expected one of debug, info, warn, error/),
        expect.stringMatching(/^PUBLIC_URL: expected an http\(s\) URL/),
      ]),
    );
  });

  test('defaults apply when unset, and values are typed', () => {
    const cfg = parseAppConfig({ SERVICES: 'visual', PORT: '8080' });
    expect(cfg.PORT).toBe(8080);
    expect(cfg.SERVICES).toEqual(['visual']);
    expect(cfg.DATA_DIR).toBe('.data');
    expect(cfg.ALLOW_SIGNUP).toBe(true);
  });

  test('the error message lists every problem for a failed start', () => {
    expect(() => parseAppConfig({ SERVICES: 'payment' })).toThrow(/Invalid configuration:\n {2}- AUTH_ADMIN_TOKEN: missing/);
  });
});

describe('where the app runs', () => {
  const base = { SERVICES: 'payment', AUTH_ADMIN_TOKEN: 'token', STRIPE_WEBHOOK_SECRET: 'whsec_0123456789abcdef' };
  const { publicUrl, runsInAzure, serviceUrl } = require('../../shared/config') as typeof import('../../shared/config');
  const { stripeMode } = require('../../functions/payment/stripe-client') as typeof import('../../functions/payment/stripe-client');

  test.each(['localhost:7071', 'localhost:8080', '127.0.0.1:7071', 'LOCALHOST:7071'])(
    'WEBSITE_HOSTNAME=%s (Core Tools) is local: http URLs, the local Stripe server',
    (hostname) => {
      const cfg = parseAppConfig({ ...base, WEBSITE_HOSTNAME: hostname });
      expect(runsInAzure(cfg)).toBe(false);
      expect(publicUrl(cfg)).toBe(`http://${hostname}`);
      expect(serviceUrl('identity', cfg)).toBe(`http://${hostname}/identity`);
      expect(stripeMode(cfg)).toEqual({ mode: 'offline' });
    },
  );

  test('an Azure host name is Azure: https, and without a Stripe key payment is unconfigured rather than offline', () => {
    const cfg = parseAppConfig({ ...base, WEBSITE_HOSTNAME: 'func-report-x7.azurewebsites.net' });
    expect(runsInAzure(cfg)).toBe(true);
    expect(publicUrl(cfg)).toBe('https://func-report-x7.azurewebsites.net');
    expect(stripeMode(cfg)).toEqual({ mode: 'unconfigured' });
    expect(runsInAzure(parseAppConfig({ ...base, WEBSITE_HOSTNAME: 'localhost.evil.example' }))).toBe(true);
  });

  test('a Key Vault reference is never taken as the value, nor reported missing: the setting is named as unresolved with the services that read it', () => {
    const { unresolvedSettings } = require('../../shared/config') as typeof import('../../shared/config');
    const env = {
      ...base,
      STRIPE_WEBHOOK_SECRET: '@Microsoft.KeyVault(SecretUri=https://kv.vault.azure.net/secrets/stripe-webhook-secret/)',
      SERVICE_TOKEN_SECRET: ' @microsoft.keyvault(VaultName=kv;SecretName=x)',
    };
    const cfg = parseAppConfig(env);
    expect(cfg.STRIPE_WEBHOOK_SECRET).toBeUndefined();
    expect(unresolvedSettings(SETTINGS, env).map((u) => [u.name, u.services])).toEqual([
      ['SERVICE_TOKEN_SECRET', ['identity']],
      ['STRIPE_WEBHOOK_SECRET', ['payment']],
    ]);
  });
});
