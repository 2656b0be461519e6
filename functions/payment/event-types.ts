import { stripeSdk } from './stripe-client';

/**
 * The Stripe event types the webhook acts on (webhook-events.ts turns each into a payment fact;
 * every other type is acknowledged and ignored). The webhook endpoint subscribes to exactly these:
 * `npm run stripe:webhook` in Azure, and the local Stripe server the dev host starts.
 */
export const HANDLED_EVENT_TYPES = [
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'charge.refunded',
  'charge.dispute.created',
  'charge.dispute.closed',
  'invoice.paid',
  'invoice.payment_failed',
  'customer.subscription.updated',
  'customer.subscription.deleted',
] as const;
export type HandledEventType = (typeof HANDLED_EVENT_TYPES)[number];

/**
 * The API version event payloads are rendered in: the one the installed `stripe` library (an exact
 * dependency) is typed for, so the handler reads the shapes it was written against. The endpoint
 * is created with it; Stripe cannot change an existing endpoint's version (`--rotate` replaces it).
 */
export const stripeApiVersion = (): string => stripeSdk().API_VERSION;
