import { mintServiceToken, SERVICE_TOKEN_LIFETIME_SECONDS } from '../../shared/auth/service-token';
import { PLATFORM_SETTINGS as SETTINGS } from '../../shared/config';
import { applyLocalSettings } from '../../shared/config/local-settings';

/**
 * `npm run service-token`: prints a service admin token (one-year lifetime) signed with
 * SERVICE_TOKEN_SECRET from the environment or local.settings.json. Store it as the payment
 * service's AUTH_ADMIN_TOKEN secret. Only the token goes to stdout, so it can be piped.
 */
async function main(): Promise<void> {
  applyLocalSettings();
  const secret = process.env.SERVICE_TOKEN_SECRET?.trim();
  if (!secret || secret.length < 32) {
    process.stderr.write('SERVICE_TOKEN_SECRET is not set (or shorter than 32 characters) in the environment or local.settings.json\n');
    process.exit(1);
  }
  const issuer = process.env.PAYMENT_SERVICE_ID?.trim() || SETTINGS.PAYMENT_SERVICE_ID.default!;
  const audience = process.env.IDENTITY_SERVICE_ID?.trim() || SETTINGS.IDENTITY_SERVICE_ID.default!;
  const token = await mintServiceToken({ secret, issuer, audience });
  const expires = new Date(Date.now() + SERVICE_TOKEN_LIFETIME_SECONDS * 1000).toISOString();
  process.stderr.write(`Service admin token for ${issuer} -> ${audience}, expires ${expires}\n`);
  process.stdout.write(`${token}\n`);
}

void main();
