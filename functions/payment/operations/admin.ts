import type { LiveUser } from '../../../shared/auth/live-session';
import { json } from '../../../shared/http/handler';
import type { Infer } from '../../../shared/http/schemas';
import { attentionList, replay } from '../admin';
import { accountsIn, billingTimeline } from '../billing-history';
import { op } from '../context';
import { approvePayment, recentDecisions, rejectPayment } from '../review';
import type * as s from '../schemas';

// The operator's routes (the console's payments page): what is owed to identity, the replay, and
// the decisions on payments in manual review. Each reads its input and hands it, with the context,
// to one domain function.

export const unsynced = op<LiveUser, unknown, Infer<typeof s.UNSYNCED_QUERY>>(
  'Plan syncs still owed to identity (pending, failed, manual review), oldest first',
  async ({ query, ctx }) => json(200, await attentionList(ctx, query.limit)),
);

export const replaySyncs = op<LiveUser>(
  'Replays every failed or pending plan sync now (what npm run payments:replay -- --apply does); payments in manual review are not included',
  async ({ principal, ctx }) => json(200, await replay(ctx, principal)),
);

type PaymentParam = Infer<typeof s.PAYMENT_PARAM>;
type DecisionBody = Infer<typeof s.DECISION_BODY.schema>;

export const approve = op<LiveUser, DecisionBody, unknown, PaymentParam>(
  "Approves a payment in manual review with the operator's reason (audited): its plan is pushed to identity now, through the ordered plan sync",
  async ({ principal, params, body, meta, ctx }) => json(200, await approvePayment(ctx, principal, params.paymentIntentId, body.reason, meta)),
);

export const reject = op<LiveUser, DecisionBody, unknown, PaymentParam>(
  "Rejects a payment in manual review with the operator's reason (audited): the plan is not changed and the payment owes identity nothing",
  async ({ principal, params, body, meta, ctx }) => json(200, await rejectPayment(ctx, principal, params.paymentIntentId, body.reason, meta)),
);

export const decisions = op<LiveUser, unknown, Infer<typeof s.DECISIONS_QUERY>>(
  'The latest decisions on payments in manual review (who, when, why), newest first',
  async ({ query, ctx }) => json(200, await recentDecisions(ctx.db, query.limit)),
);

export const userBilling = op<LiveUser, unknown, unknown, Infer<typeof s.USER_PARAM>>(
  "A user's billing timeline, newest first: payments, invoices, subscription state, refunds and disputes, with what each did to the plan; an unknown user has an empty one",
  async ({ params, ctx }) => json(200, await billingTimeline(ctx, params.userId)),
);

export const accounts = op<LiveUser, unknown, Infer<typeof s.ACCOUNTS_QUERY>>(
  'Accounts that need a person: subscriptions past due (with the end of their grace) or payments under an open dispute, oldest first',
  async ({ query, ctx }) => json(200, await accountsIn(ctx, query.state, query.limit, query.offset)),
);
