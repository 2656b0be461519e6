import { currentPlatform, member } from '../../shared/platform';
import type Stripe from 'stripe';
import { config } from '../../shared/config';
import { validate } from '../../shared/http/body';
import { badRequest, Code } from '../../shared/http/errors';
import { LATEST_UNIX_SECONDS } from '../../shared/http/schemas';
import type { Logger } from '../../shared/logging';
import { syncUser, type SyncResult } from './plan-sync';
import { stripeSdk } from './stripe-client';
import { markSyncWork } from './backlog';
import { recordEvent, type RecordedEvent } from './webhook-events';

/** The signature scheme is the processor's: Stripe's, with its default 300 s replay window. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;
/** Stripe events are a few KB; anything near this is not an event. */
export const WEBHOOK_BODY_LIMIT = 256 * 1024;

/** Verifies signatures only: it never calls Stripe, so any key will do. */
const VERIFIER = member('stripe signature verifier', () => new (stripeSdk())('sk_test_signature_verification_only'));
const signatureVerifier = (): Stripe => currentPlatform().get(VERIFIER);

export const EVENT_SCHEMA = {
  type: 'object',
  required: ['id', 'type', 'created', 'data'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 255 },
    type: { type: 'string', minLength: 1, maxLength: 100 },
    // Made into a date (ISO text) when recorded: an instant past LATEST_INSTANT would throw there.
    created: { type: 'integer', minimum: 0, maximum: LATEST_UNIX_SECONDS },
    data: {
      type: 'object',
      required: ['object'],
      properties: { object: { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 255 } } } },
    },
  },
};

/** Verifies the Stripe-Signature over the exact bytes received; a missing or bad signature is a 400 and nothing is written. */
export function verifiedEvent(raw: Buffer, signature: string | null): Stripe.Event {
  if (!signature) throw badRequest('The Stripe-Signature header is missing', Code.WEBHOOK_SIGNATURE_MISSING);
  let event: Stripe.Event;
  try {
    event = signatureVerifier().webhooks.constructEvent(raw, signature, config().STRIPE_WEBHOOK_SECRET, SIGNATURE_TOLERANCE_SECONDS);
  } catch (error) {
    throw badRequest(`Webhook signature verification failed: ${(error as Error).message}`, Code.WEBHOOK_SIGNATURE_INVALID);
  }
  return validate<Stripe.Event>(EVENT_SCHEMA, event, 'event');
}

export interface WebhookOutcome extends Omit<RecordedEvent, 'syncUserId'> {
  received: true;
  eventId: string;
  type: string;
  /** The result of pushing the plan to identity, when the event changed a plan (a failure keeps the payment successful and stores a failed-sync record). */
  sync?: SyncResult;
}

/** Records the event (deduplicated) and, when it decided a plan, pushes that plan to identity at once. */
export async function processEvent(event: Stripe.Event, log: Logger): Promise<WebhookOutcome> {
  // Before the write: a plan sync may become due, so the retry timer must query SQL again.
  await markSyncWork(log);
  const recorded = await recordEvent(event, log);
  const { syncUserId, ...rest } = recorded;
  const outcome: WebhookOutcome = { received: true, eventId: event.id, type: event.type, ...rest };
  if (syncUserId) outcome.sync = await syncUser(syncUserId, log.child({ eventId: event.id }));
  return outcome;
}
