/**
 * `npm run stripe:trigger -- <paymentIntentId> [--decline] [--refund]`: like `stripe trigger`,
 * confirms a PaymentIntent on the local Stripe API server of the running dev host (offline mode),
 * which delivers the correctly signed payment_intent.succeeded (or payment_failed, or
 * charge.refunded) to {payment_url}/webhook, and prints how the webhook answered.
 * `npm run stripe:trigger -- <scenario> <id> [options]` plays a Billing scenario (renew,
 * fail-renewal, recover, retry, cancel, dispute-open, dispute-won, dispute-lost, refund-invoice:
 * stripe-scenarios.ts); `--help` lists them.
 */
import { parseArgs } from 'node:util';
import Stripe from 'stripe';
import { stripeApiBase, stripeClient, stripeMode } from '../../functions/payment/stripe-client';
import { paymentConfig } from '../../functions/payment/settings';
import { currentPlatform } from '../../shared/platform';
import { loadLocalEnv } from './local-env';
import { runScenario, scenarioHelp, SCENARIOS } from './stripe-scenarios';

const USAGE = `usage: npm run stripe:trigger -- <paymentIntentId> [--decline] [--refund]
       npm run stripe:trigger -- <scenario> <id> [options]

  <pi_...>                                                 confirm with pm_card_visa: payment_intent.succeeded
  <pi_...> --decline                                       confirm with pm_card_chargeDeclined: payment_intent.payment_failed
  <pi_...> --refund                                        full refund: charge.refunded

Billing scenarios (on a test clock, time moves with the clock; docs/payment.md, "Local Stripe: Billing"):
${scenarioHelp()}
`;

function localStripe(): Stripe {
  const platform = currentPlatform();
  if (stripeMode(paymentConfig(platform)).mode !== 'offline')
    throw new Error('stripe:trigger drives the local Stripe API server; with a real key use the Stripe CLI (stripe trigger)');
  if (!stripeApiBase(platform)) throw new Error('no local Stripe API server found: start the dev host (npm start) first');
  return stripeClient(platform);
}

async function confirmOrRefund(id: string, decline: boolean, refund: boolean): Promise<void> {
  let response: Stripe.Response<Stripe.PaymentIntent> | Stripe.Response<Stripe.Refund>;
  if (refund) {
    response = await localStripe().refunds.create({ payment_intent: id });
  } else {
    response = await localStripe()
      .paymentIntents.confirm(id, { payment_method: decline ? 'pm_card_chargeDeclined' : 'pm_card_visa' })
      .catch((error) => {
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

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      decline: { type: 'boolean' },
      refund: { type: 'boolean' },
      now: { type: 'boolean' },
      all: { type: 'boolean' },
      amount: { type: 'string' },
      reason: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  loadLocalEnv(['payment']);
  const [first, id] = positionals;
  if (first?.startsWith('pi_') && positionals.length === 1) return confirmOrRefund(first, Boolean(values.decline), Boolean(values.refund));
  if (!first || !Object.hasOwn(SCENARIOS, first) || !id) {
    process.stderr.write(USAGE);
    process.exitCode = 2;
    return;
  }
  const amount = values.amount === undefined ? undefined : Number(values.amount);
  if (amount !== undefined && !(Number.isInteger(amount) && amount > 0)) throw new Error('--amount is a positive number of cents');
  const outcome = await runScenario(localStripe(), first, id, { now: values.now, all: values.all, amount, reason: values.reason });
  for (const line of outcome.said) process.stdout.write(`${line}\n`);
  process.stdout.write(`webhook: ${outcome.deliveries.length ? outcome.deliveries.join('\n') : 'no delivery reported'}\n`);
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
});
