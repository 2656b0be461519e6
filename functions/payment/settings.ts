import { integer, secret, text, url } from '../../shared/config/parsers';
import { withDefault, required, optional, PAY, type Setting } from '../../shared/config/setting-kinds';
import type { Config, ConfigOf } from '../../shared/config';
import type { Platform } from '../../shared/platform';

/** payment's settings: Stripe, plans, the plan-sync retries. */
export const PAYMENT_SETTINGS = {
  // ---- payment -----------------------------------------------------------------------------
  AUTH_ADMIN_TOKEN: required(text, {
    services: PAY,
    deploy: 'secret',
    description: 'Service admin token the payment service sends to identity (npm run service-token).',
  }),
  STRIPE_SECRET_KEY: optional(text, { services: PAY, deploy: 'secret', unresolved: 'unset', description: 'Stripe secret key.' }),
  STRIPE_WEBHOOK_SECRET: required(secret(16), { services: PAY, deploy: 'secret', description: 'Signing secret of the Stripe webhook endpoint (whsec_...).' }),
  STRIPE_API_BASE: optional(url, { services: PAY, deploy: 'local', description: 'Point the Stripe client at another server (the local Stripe API server).' }),
  STRIPE_EMULATOR_PORT: withDefault(integer(0, 65535), '0', {
    services: PAY,
    deploy: 'local',
    description:
      'Port of the local Stripe API server started in offline mode (0 picks a free one; its address is written to <DATA_DIR>/stripe-emulator.json for the CLIs).',
  }),
  PAYMENT_SYNC_TIMEOUT_MS: withDefault(integer(100, 60_000), '5000', {
    services: PAY,
    deploy: 'tuning',
    description: 'Deadline of one plan-update call to identity.',
  }),
  PAYMENT_SYNC_RETRY_BASE_SECONDS: withDefault(integer(1, 86_400), '30', {
    services: PAY,
    deploy: 'tuning',
    description: 'Base of the exponential backoff (full jitter) between plan-sync retries.',
  }),
  PAYMENT_SYNC_RETRY_MAX_DELAY_SECONDS: withDefault(integer(1, 604_800), '3600', {
    services: PAY,
    deploy: 'tuning',
    description: 'Largest delay between two plan-sync retries.',
  }),
  PAYMENT_SYNC_MAX_ATTEMPTS: withDefault(integer(1, 1000), '36', {
    services: PAY,
    deploy: 'tuning',
    description: 'Failed plan-sync attempts after which the payment goes to manual review.',
  }),
  PAYMENT_SYNC_RETRY_SCHEDULE: withDefault(text, '0 */1 * * * *', {
    services: PAY,
    deploy: 'app',
    description: 'NCRONTAB schedule of the plan-sync retry timer (the timer reads it as %PAYMENT_SYNC_RETRY_SCHEDULE%, so it must be set).',
  }),
  PAYMENT_GRACE_DAYS: withDefault(integer(0, 60), '7', {
    services: PAY,
    deploy: 'tuning',
    description:
      "Days a subscriber keeps the plan after a renewal's payment failed (past due), while Stripe retries the card and the user can update it; then free unless the invoice is paid.",
  }),
  PAYMENT_FAILED_SYNC_TABLE: withDefault(text, 'paymentfailedsyncs', {
    services: PAY,
    deploy: 'tuning',
    description: 'Table Storage table holding the failed-sync records (key auth_sync_failed:<userId>, kept 24 hours).',
  }),
} satisfies Record<string, Setting<unknown>>;

/** The settings payment's code reads: the platform's and its own. */
export type PaymentConfig = Config & ConfigOf<typeof PAYMENT_SETTINGS>;

/** A platform's configuration as payment reads it (a member made from the platform, a host's banner). */
export const paymentConfig = (platform: Platform): PaymentConfig => platform.settingsOf(PAYMENT_SETTINGS, 'payment');
