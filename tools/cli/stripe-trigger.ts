/**
 * `npm run stripe:trigger -- <paymentIntentId> [--decline] [--refund]`: like `stripe trigger`,
 * confirms a PaymentIntent on the local Stripe API server of the running dev host (offline mode),
 * which delivers the correctly signed payment_intent.succeeded (or payment_failed, or
 * charge.refunded) to {payment_url}/webhook, and prints how the webhook answered.
 */
import Stripe from 'stripe';
import { stripeApiBase, stripeClient, stripeMode } from '../../functions/payment/stripe-client';
import { paymentConfig } from '../../functions/payment/settings';
import { currentPlatform } from '../../shared/platform';
import { loadLocalEnv } from './local-env';

async function main() {
  loadLocalEnv(['payment']);
  const [id] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  if (!id || !id.startsWith('pi_')) {
    process.stderr.write('usage: npm run stripe:trigger -- <paymentIntentId> [--decline] [--refund]\n');
    process.exitCode = 2;
    return;
  }
  const platform = currentPlatform();
  if (stripeMode(paymentConfig(platform)).mode !== 'offline')
    throw new Error('stripe:trigger drives the local Stripe API server; with a real key use the Stripe CLI (stripe trigger)');
  if (!stripeApiBase(platform)) throw new Error('no local Stripe API server found: start the dev host (npm start) first');
  const stripe = stripeClient(platform);
  let response: Stripe.Response<Stripe.PaymentIntent> | Stripe.Response<Stripe.Refund>;
  if (process.argv.includes('--refund')) {
    response = await stripe.refunds.create({ payment_intent: id });
  } else {
    const method = process.argv.includes('--decline') ? 'pm_card_chargeDeclined' : 'pm_card_visa';
    response = await stripe.paymentIntents.confirm(id, { payment_method: method }).catch((error) => {
      if (error instanceof Stripe.errors.StripeCardError) {
        process.stdout.write(`card declined: ${error.message}\n`);
        return { lastResponse: { headers: error.headers ?? {} } } as unknown as Stripe.Response<Stripe.PaymentIntent>;
      }
      throw error;
    });
  }
  const delivery = response.lastResponse?.headers?.['emulator-webhook-delivery'];
  if ('status' in response && response.status) process.stdout.write(`${response.object} ${response.id}: ${response.status}\n`);
  process.stdout.write(`webhook: ${delivery ? decodeURIComponent(delivery) : 'no delivery reported'}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
});
