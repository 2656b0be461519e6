import type Stripe from 'stripe';
import type { LiveUser } from '../../shared/auth/live-session';
import { Code } from '../../shared/http/errors';
import { json } from '../../shared/http/handler';
import { op, refusal } from '../../shared/http/route';
import type { Infer } from '../../shared/http/schemas';
import { advertisedPlan, plans } from '../../shared/plans';
import { attentionList, replay } from './admin';
import { createPaymentIntent, type CreatePaymentIntentBody } from './create-payment-intent';
import { userStatus } from './user-status';
import { processEvent } from './webhook';
import type * as s from './schemas';

/** The webhook's one failure: identity failing never fails it (the sync is retried), our own database does. */
export const WEBHOOK_FAILED = refusal([Code.INTERNAL], { when: 'Our own database failed: nothing was recorded, and Stripe delivers the event again.' });

/** Stripe refusing the intent, and our own database failing to record it (no client secret leaves unrecorded). */
export const STRIPE_REFUSED = refusal([Code.STRIPE_ERROR], { when: 'Stripe refused the request.' });
export const INTENT_NOT_RECORDED = refusal([Code.INTERNAL], {
  when: 'Our own database failed: the intent was not recorded, so no client secret is returned; a retry with the same Idempotency-Key gets the same intent.',
});

export const listPlans = op('The plans on sale: price, currency, monthly report quota and features', async () =>
  json(200, { plans: plans().map(advertisedPlan) }, { 'Cache-Control': 'public, max-age=300' }),
);

export const createIntent = op<LiveUser, CreatePaymentIntentBody>(
  'Creates a card PaymentIntent for a plan at its price; answers its client secret',
  async ({ principal, body, request, ctx }) => json(200, await createPaymentIntent(principal, body, request.headers.get('idempotency-key'), ctx.log)),
);

export const status = op<LiveUser>("The signed-in user's plan, recent payments and the state of their plan sync", async ({ principal, ctx }) =>
  json(200, await userStatus(principal, ctx.log)),
);

export const webhook = op<Stripe.Event>(
  'Receives Stripe events (deduplicated, ordered by lifecycle) and syncs the plan to identity',
  async ({ principal, ctx }) => json(200, await processEvent(principal, ctx.log)),
);

export const unsynced = op<LiveUser, unknown, Infer<typeof s.UNSYNCED_QUERY>>(
  'Plan syncs still owed to identity (pending, failed, manual review), oldest first',
  async ({ query, ctx }) => json(200, await attentionList(query.limit, ctx.log)),
);

export const replaySyncs = op<LiveUser>('Replays every unsynced plan now (what npm run payments:replay -- --apply does)', async ({ principal, ctx }) =>
  json(200, await replay(principal, ctx.log)),
);
