import type Stripe from 'stripe';
import type { LiveUser } from '../../shared/auth/live-session';
import { Code } from '../../shared/http/errors';
import { json } from '../../shared/http/handler';
import { op, refusal } from '../../shared/http/route';
import type { Infer } from '../../shared/http/schemas';
import { advertisedPlan, plans } from '../../shared/plans';
import { attentionList, replay } from './admin';
import { approvePayment, recentDecisions, rejectPayment } from './review';
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

export const replaySyncs = op<LiveUser>(
  'Replays every failed or pending plan sync now (what npm run payments:replay -- --apply does); payments in manual review are not included',
  async ({ principal, ctx }) => json(200, await replay(principal, ctx.log)),
);

/** The refusals of a decision on a payment: an unknown id, or a payment that is not in manual review. */
export const NO_PAYMENT = refusal([Code.PAYMENT_NOT_FOUND]);
export const NOT_IN_REVIEW = refusal([Code.PAYMENT_NOT_IN_REVIEW]);

type PaymentParam = Infer<typeof s.PAYMENT_PARAM>;
type DecisionBody = Infer<typeof s.DECISION_BODY.schema>;

export const approve = op<LiveUser, DecisionBody, unknown, PaymentParam>(
  "Approves a payment in manual review with the operator's reason (audited): its plan is pushed to identity now, through the ordered plan sync",
  async ({ principal, params, body, meta, ctx }) => json(200, await approvePayment(principal, params.paymentIntentId, body.reason, meta, ctx.log)),
);

export const reject = op<LiveUser, DecisionBody, unknown, PaymentParam>(
  "Rejects a payment in manual review with the operator's reason (audited): the plan is not changed and the payment owes identity nothing",
  async ({ principal, params, body, meta, ctx }) => json(200, await rejectPayment(principal, params.paymentIntentId, body.reason, meta, ctx.log)),
);

export const decisions = op<LiveUser, unknown, Infer<typeof s.DECISIONS_QUERY>>(
  'The latest decisions on payments in manual review (who, when, why), newest first',
  async ({ query }) => json(200, await recentDecisions(query.limit)),
);
