/**
 * `npm run secrets` creates the stripe-webhook-secret Key Vault secret before any Stripe endpoint
 * exists, so that its Key Vault reference resolves: a random value that refuses every webhook, with
 * this prefix so the payment service can tell it apart from a real signing secret and report itself
 * not ready until `npm run stripe:webhook` stores the endpoint's secret.
 */
export const WEBHOOK_SECRET_PLACEHOLDER_PREFIX = 'whsec_placeholder_';

/** Why the configured webhook signing secret cannot verify Stripe's deliveries, or undefined when it can. */
export function webhookSecretProblem(secret: string | undefined): string | undefined {
  if (!secret?.trim()) return 'STRIPE_WEBHOOK_SECRET is not set: every webhook is refused';
  if (secret.startsWith(WEBHOOK_SECRET_PLACEHOLDER_PREFIX)) {
    return 'not ready: STRIPE_WEBHOOK_SECRET is the placeholder npm run secrets created, so every Stripe webhook is refused; run npm run stripe:webhook -- --url <payment URL>/webhook (it makes the payment app read the new secret)';
  }
  if (!secret.startsWith('whsec_')) return 'STRIPE_WEBHOOK_SECRET does not look like a webhook signing secret (whsec_...)';
  return undefined;
}
