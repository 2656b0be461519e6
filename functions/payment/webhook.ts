import type Stripe from 'stripe';
import { validate } from '../../shared/http/body';
import { badRequest, Code } from '../../shared/http/errors';
import { member } from '../../shared/platform';
import { markSyncWork } from './backlog';
import { withLog, type PaymentNeeds } from './context';
import { syncUser, type PlanSyncer, type SyncResult } from './plan-sync';
import { WEBHOOK_BODY } from './schemas';
import { stripeSdk } from './stripe-client';
import { recordEvent, type RecordedEvent } from './webhook-events';

/** The signature scheme is the processor's: Stripe's, with its default 300 s replay window. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Verifies signatures only: it never calls Stripe, so any key will do. One per platform. */
const VERIFIER = member('stripe signature verifier', () => new (stripeSdk())('sk_test_signature_verification_only'));

/**
 * Verifies the Stripe-Signature over the exact bytes received with the endpoint's signing secret
 * (STRIPE_WEBHOOK_SECRET), then reads the event with the route's body schema; a missing or bad
 * signature is a 400 and nothing is written.
 */
export function verifiedEvent(ctx: PaymentNeeds<'platform' | 'config'>, raw: Buffer, signature: string | null): Stripe.Event {
  if (!signature) throw badRequest('The Stripe-Signature header is missing', Code.WEBHOOK_SIGNATURE_MISSING);
  let event: Stripe.Event;
  try {
    event = ctx.platform.get(VERIFIER).webhooks.constructEvent(raw, signature, ctx.config.STRIPE_WEBHOOK_SECRET, SIGNATURE_TOLERANCE_SECONDS);
  } catch (error) {
    throw badRequest(`Webhook signature verification failed: ${(error as Error).message}`, Code.WEBHOOK_SIGNATURE_INVALID);
  }
  return validate<Stripe.Event>(WEBHOOK_BODY.schema, event, 'event');
}

export interface WebhookOutcome extends Omit<RecordedEvent, 'syncUserId' | 'email'> {
  received: true;
  eventId: string;
  type: string;
  /** The result of pushing the plan to identity, when the event changed a plan (a failure keeps the payment successful and stores a failed-sync record). */
  sync?: SyncResult;
}

/**
 * Records the event (deduplicated) and, when it decided a plan, pushes that plan to identity at
 * once; a notice the event calls for (payment failed, plan ending) is sent once it is committed.
 */
export async function processEvent(ctx: PlanSyncer & PaymentNeeds<'plans' | 'stripe' | 'mailer'>, event: Stripe.Event): Promise<WebhookOutcome> {
  // Before the write: a plan sync may become due, so the retry timer must query SQL again.
  await markSyncWork(ctx);
  const recorded = await recordEvent(ctx, event);
  const { syncUserId, email, ...rest } = recorded;
  const outcome: WebhookOutcome = { received: true, eventId: event.id, type: event.type, ...rest };
  if (syncUserId) outcome.sync = await syncUser(withLog(ctx, ctx.log.child({ eventId: event.id })), syncUserId);
  // The event is recorded whatever the mail does: a failed notice is logged, never a failed event.
  if (email) await ctx.mailer.send(email).catch((error) => ctx.log.warn('billing notice not sent', { eventId: event.id, subject: email.subject, error }));
  return outcome;
}
