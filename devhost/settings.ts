import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { generateSigningJwk } from '../shared/auth/keys';
import { mintServiceToken } from '../shared/auth/service-token';
import { PLATFORM_SETTINGS as SETTINGS } from '../shared/config';
import { readLocalSettings, type LocalSettings } from '../shared/config/local-settings';

export type { LocalSettings };

const randomSecret = () => randomBytes(32).toString('base64url');

/**
 * Fills every empty secret of the sample with a fresh random value. The payment side's
 * AUTH_ADMIN_TOKEN is minted from the generated SERVICE_TOKEN_SECRET, so the two services agree.
 */
export async function generateDevSecrets(values: Record<string, string>): Promise<Record<string, string>> {
  const out = { ...values };
  const fill = async (name: string, make: () => string | Promise<string>) => {
    if (name in out && !out[name]) out[name] = await make();
  };
  await fill('JWT_SIGNING_KEYS', async () => JSON.stringify([await generateSigningJwk()]));
  await fill('SERVICE_TOKEN_SECRET', randomSecret);
  await fill('OTP_HMAC_KEY', randomSecret);
  await fill('STRIPE_WEBHOOK_SECRET', () => `whsec_${randomSecret()}`);
  await fill('VISUAL_API_TOKEN', randomSecret);
  await fill('AUTH_ADMIN_TOKEN', () =>
    mintServiceToken({
      secret: out.SERVICE_TOKEN_SECRET,
      issuer: out.PAYMENT_SERVICE_ID || SETTINGS.PAYMENT_SERVICE_ID.default!,
      audience: out.IDENTITY_SERVICE_ID || SETTINGS.IDENTITY_SERVICE_ID.default!,
    }),
  );
  return out;
}

/**
 * `npm start`'s settings: local.settings.json read as every local entry point reads it
 * (shared/config/local-settings.ts); when it is missing, the dev host (and only it) creates it from
 * the sample with generated dev secrets (mode 0600; the file is git-ignored).
 */
export async function loadLocalSettings(file: string, sampleFile: string): Promise<{ values: Record<string, string>; created: boolean }> {
  const existing = readLocalSettings(file);
  if (existing) return { values: existing, created: false };
  const sample = JSON.parse(fs.readFileSync(sampleFile, 'utf8')) as LocalSettings;
  const values = await generateDevSecrets(sample.Values ?? {});
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...sample, Values: values }, null, 2) + '\n', { mode: 0o600 });
  return { values, created: true };
}
