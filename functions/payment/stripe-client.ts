import fs from 'node:fs';
import path from 'node:path';
import type Stripe from 'stripe';
import { KEY_VAULT_REFERENCE, runsInAzure } from '../../shared/config';
import { type PaymentConfig, paymentConfig } from './settings';
import { member, type Platform } from '../../shared/platform';
import { badGateway, Code, serviceUnavailable } from '../../shared/http/errors';
import type { Logger } from '../../shared/logging';

/**
 * The stripe library, loaded by the first call that needs it (about 60 ms): the health, plan and
 * status routes never do, so a cold start does not pay for it.
 */
export const stripeSdk = () => require('stripe') as typeof import('stripe');

/** A key Stripe itself would accept (secret or restricted, test or live). */
const REAL_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9]{10,}$/;
/** The key sent to the local server when no real one is configured. */
export const OFFLINE_KEY = 'sk_test_offline_emulator';

/**
 * offline: the Stripe client talks to a local Stripe API server, either STRIPE_API_BASE or the
 * emulator the payment service starts (locally, when no real key is set: npm start, and func start,
 * whose WEBSITE_HOSTNAME is localhost:<port>). stripe: the real API. unconfigured: in Azure with
 * no key; payment routes answer 503 and health says why.
 */
export type StripeMode = { mode: 'offline'; apiBase?: string } | { mode: 'stripe' } | { mode: 'unconfigured' };

export function stripeMode(cfg: PaymentConfig): StripeMode {
  if (cfg.STRIPE_API_BASE) return { mode: 'offline', apiBase: cfg.STRIPE_API_BASE };
  if (cfg.STRIPE_SECRET_KEY && REAL_KEY.test(cfg.STRIPE_SECRET_KEY)) return { mode: 'stripe' };
  if (!runsInAzure(cfg)) return { mode: 'offline' };
  return { mode: 'unconfigured' };
}

/**
 * Why payments cannot be created without a usable key: the setting is unset, its Key Vault secret
 * does not exist yet, or it holds something that is no secret key (a publishable key pasted by
 * mistake is the usual one). The value itself is never repeated: it may be a secret. `setting` is
 * STRIPE_SECRET_KEY as the platform was given it (an unresolved reference is not a parsed value).
 */
export function missingKeyProblem(setting: string | undefined): string {
  const raw = setting ?? '';
  if (KEY_VAULT_REFERENCE.test(raw))
    return 'STRIPE_SECRET_KEY is an unresolved Key Vault reference (store the stripe-secret-key secret: docs/deploy.md): payments cannot be created';
  if (!raw.trim()) return 'STRIPE_SECRET_KEY is not set: payments cannot be created';
  return 'STRIPE_SECRET_KEY is not a Stripe secret or restricted key (sk_live_, sk_test_, rk_live_ or rk_test_; a publishable pk_ key cannot create payments): payments cannot be created';
}

/** The platform's Stripe client (made for one API base and key: either changing makes a new one) and the local Stripe server it knows. */
const STRIPE = member('stripe client', () => ({}) as { client?: { base: string; key: string; stripe: Stripe }; emulatorUrl?: string });

/** The local Stripe server's address, set by whoever started it for `platform` (tools/stripe-emulator/local.ts; undefined again after it stops). */
export function useEmulator(platform: Platform, url: string | undefined): void {
  platform.get(STRIPE).emulatorUrl = url;
}

/** Where the payment service (under func start) and the CLIs find the local Stripe server of another process. */
export const emulatorAddressFile = (cfg: PaymentConfig) => path.join(cfg.DATA_DIR, 'stripe-emulator.json');

export function emulatorAddressFromFile(cfg: PaymentConfig): string | undefined {
  try {
    return (JSON.parse(fs.readFileSync(emulatorAddressFile(cfg), 'utf8')) as { url?: string }).url;
  } catch {
    return undefined;
  }
}

/** The API base `platform`'s client uses under its settings now: STRIPE_API_BASE, its local Stripe server, or Stripe itself. */
export function stripeApiBase(platform: Platform): string | undefined {
  const cfg = paymentConfig(platform);
  const mode = stripeMode(cfg);
  if (mode.mode === 'stripe') return 'https://api.stripe.com';
  if (mode.mode === 'offline') return mode.apiBase ?? platform.get(STRIPE).emulatorUrl ?? emulatorAddressFromFile(cfg);
  return undefined;
}

/**
 * `platform`'s Stripe client, pointed by `host`/`port`/`protocol` at the server of the mode in
 * force (payment's code reaches it as `ctx.stripe`); a 503 STRIPE_NOT_CONFIGURED when there is none.
 */
export function stripeClient(platform: Platform): Stripe {
  const cfg = paymentConfig(platform);
  const base = stripeApiBase(platform);
  if (!base) throw serviceUnavailable(`Stripe is not configured: ${missingKeyProblem(platform.settings.STRIPE_SECRET_KEY)}`, Code.STRIPE_NOT_CONFIGURED);
  // A real key in stripe mode; in offline mode whatever is set, or a key the local server accepts.
  const key = cfg.STRIPE_SECRET_KEY || OFFLINE_KEY;
  const made = platform.get(STRIPE);
  if (made.client?.base !== base || made.client.key !== key) {
    const url = new URL(base);
    const protocol = url.protocol === 'http:' ? 'http' : 'https';
    const stripe = new (stripeSdk())(key, {
      host: url.hostname,
      port: Number(url.port) || (protocol === 'http' ? 80 : 443),
      protocol,
      maxNetworkRetries: 2,
      timeout: 10_000,
      telemetry: false,
      appInfo: { name: 'report-platform-payment' },
    });
    made.client = { base, key, stripe };
  }
  return made.client.stripe;
}

/**
 * A call to Stripe on a buyer's request: Stripe unreachable or overloaded is a 503 (try again
 * shortly), a refusal a 502 STRIPE_ERROR; neither leaks Stripe's message to the caller (it is logged).
 */
export async function askStripe<T>(log: Logger, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const { errors } = stripeSdk();
    if (error instanceof errors.StripeConnectionError || error instanceof errors.StripeAPIError || error instanceof errors.StripeRateLimitError) {
      log.warn(`stripe unavailable: ${what}`, { error: (error as Error).message });
      throw serviceUnavailable('The payment processor is unavailable; try again shortly', Code.STRIPE_UNAVAILABLE);
    }
    if (error instanceof errors.StripeError) {
      log.error(`stripe refused: ${what}`, { type: error.type, stripeCode: error.code, message: error.message });
      throw badGateway('The payment processor refused the request', Code.STRIPE_ERROR);
    }
    throw error;
  }
}
