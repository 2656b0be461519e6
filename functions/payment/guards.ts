import type Stripe from 'stripe';
import type { Guard } from '../../shared/http/route';
import type { PaymentContext } from './context';
import { verifiedEvent } from './webhook';

/** Stripe's signature over the exact bytes received (the route hands the guard the raw body), with the endpoint's signing secret from the context. */
export const STRIPE_SIGNED: Guard<Stripe.Event, PaymentContext> = {
  describe: "Stripe (the Stripe-Signature header over the raw body, with the endpoint's signing secret)",
  scheme: {
    name: 'stripeSignature',
    definition: {
      type: 'apiKey',
      in: 'header',
      name: 'Stripe-Signature',
      description: 't=<timestamp>,v1=<HMAC-SHA256 of "<t>.<body>" with the webhook signing secret>',
    },
  },
  refusals: [400],
  check: async ({ request, rawBody, ctx }) => verifiedEvent(ctx, rawBody!, request.headers.get('stripe-signature')),
};
