import { PLAN_IDS } from '../../shared/plan-ids';
import { LATEST_UNIX_SECONDS, PAGING, arr, bool, dateTime, idParam, int, nullable, obj, oneOfValues, query, str } from '../../shared/http/schemas';

/**
 * Every request and answer schema of payment's route table (routes.ts). A request schema is the
 * validator: the route helper checks the input with it (the webhook's guard, after the signature),
 * the API reference documents it, and the handlers' input types are inferred from it.
 */

const PLAN_ID = oneOfValues(PLAN_IDS);
const SYNC_STATES = ['not_required', 'pending', 'synced', 'failed', 'manual_review', 'superseded'];
const PAYMENT_STATUSES = ['pending', 'succeeded', 'failed', 'canceled', 'refunded'];
const FAILED_SYNC_RECORD = nullable(
  obj({ userId: str(), planType: str(), error: str(), timestamp: dateTime(), retryCount: int(), expiresAt: dateTime() }, { optional: ['expiresAt'] }),
);

/** A checkout: the plan, its price as the client was shown it (checked against the plan table), and the signed-in user's id. */
export const INTENT_BODY = {
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['amount', 'planType', 'userId'],
    properties: {
      amount: { type: 'integer', minimum: 0, maximum: 100_000_000 },
      planType: { type: 'string', minLength: 1, maxLength: 32 },
      userId: { type: 'string', minLength: 1, maxLength: 64 },
    },
  } as const,
  limit: 4 * 1024,
};

/**
 * A Stripe event, as the webhook reads it once its signature is verified over the raw bytes (the
 * route hands the guard the bytes unparsed). Stripe events are a few KB; anything near the limit
 * is not an event.
 */
export const WEBHOOK_BODY = {
  schema: obj({
    id: str({ minLength: 1, maxLength: 255 }),
    type: str({ minLength: 1, maxLength: 100 }),
    // Made into a date (ISO text) when recorded: an instant past LATEST_INSTANT would throw there.
    created: int({ minimum: 0, maximum: LATEST_UNIX_SECONDS }),
    data: obj({ object: obj({ id: str({ minLength: 1, maxLength: 255 }) }) }),
  }),
  limit: 256 * 1024,
  raw: true as const,
};
const PAID_PLAN = { type: 'string', minLength: 1, maxLength: 32 } as const;
const INTERVAL = { enum: ['month', 'year'] } as const;
/** A subscription: the plan and the billing interval (a month by default; a year costs ten months). */
export const SUBSCRIBE_BODY = {
  schema: { type: 'object', additionalProperties: false, required: ['planType'], properties: { planType: PAID_PLAN, interval: INTERVAL } } as const,
  limit: 4 * 1024,
};
/** A plan change of the user's subscription: an upgrade at once (prorated), a downgrade at the period end. */
export const CHANGE_PLAN_BODY = SUBSCRIBE_BODY;
export const CANCEL_BODY = { schema: { type: 'object', additionalProperties: false, properties: {} } as const, limit: 1024, optional: true };
/** Where the Customer Portal returns to (the console's billing page by default). */
export const PORTAL_BODY = {
  schema: {
    type: 'object',
    additionalProperties: false,
    properties: { returnUrl: { type: 'string', format: 'uri', maxLength: 2000, pattern: '^https?://' } },
  } as const,
  limit: 4 * 1024,
  optional: true,
};
export const UNSYNCED_QUERY = query({ limit: PAGING.limit });
export const REPLAY_BODY = { schema: { type: 'object', additionalProperties: false, properties: {} }, limit: 1024, optional: true };
/** A Stripe PaymentIntent id in the path (pi_…; letters, digits, '_'). */
export const PAYMENT_PARAM = idParam('paymentIntentId', { maxLength: 255, pattern: '^[A-Za-z0-9_]+$', description: "The payment's Stripe PaymentIntent id" });
/** Why the operator decided: required, 1-500 characters with at least one that is not a space, no control characters. */
export const DECISION_BODY = {
  schema: obj(
    {
      reason: str({
        minLength: 1,
        maxLength: 500,
        // Spaces, one character that is neither a space nor a control character, then no control character:
        // the first two classes do not overlap, so the match never backtracks (linear in the length).
        pattern: '^[^\\S\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$',
        description: 'Why the operator decided so, kept in the audit (1-500 characters, not only spaces, no control characters)',
      }),
    },
    { closed: true },
  ),
  limit: 4 * 1024,
};
export const DECISIONS_QUERY = query({ limit: PAGING.limit });

export const PLANS = obj({
  plans: arr(
    obj({
      id: PLAN_ID,
      name: str(),
      price: int({ description: 'Smallest currency unit (cents)' }),
      currency: str(),
      reportsPerMonth: nullable(int()),
      features: arr(str()),
      priceVersion: str(),
    }),
  ),
});
export const SUBSCRIBED = obj({
  subscriptionId: str(),
  status: str(),
  clientSecret: nullable(str({ description: "The first invoice's payment: confirm it as a payment intent's client secret" })),
  invoiceId: nullable(str()),
  amount: int(),
  currency: str(),
  planType: PLAN_ID,
  interval: oneOfValues(['month', 'year']),
});
export const PLAN_CHANGED = obj({
  subscriptionId: str(),
  planType: PLAN_ID,
  change: oneOfValues(['none', 'upgrade_now', 'downgrade_at_period_end']),
  status: str(),
});
export const CANCELLED = obj({ subscriptionId: str(), cancelAtPeriodEnd: bool(), endsAt: nullable(dateTime()) });
export const PORTAL = obj({ url: str({ format: 'uri' }) });
export const BILLING = obj({
  plan: PLAN_ID,
  planPeriodEnd: nullable(dateTime()),
  planSource: nullable(oneOfValues(['subscription', 'one_off', 'manual'])),
  reports: nullable(
    obj({ limit: nullable(int()), used: int(), remaining: nullable(int()), resetsAt: dateTime(), period: oneOfValues(['billing_period', 'calendar_month']) }),
  ),
  subscription: nullable(
    obj({
      id: str(),
      planType: PLAN_ID,
      status: str(),
      currentPeriodEnd: nullable(dateTime()),
      cancelAtPeriodEnd: bool(),
      renews: bool(),
      pastDueSince: nullable(dateTime()),
      graceEndsAt: nullable(dateTime()),
    }),
  ),
  payments: arr(
    obj({
      id: str(),
      planType: PLAN_ID,
      source: nullable(oneOfValues(['one_off', 'subscription'])),
      amount: int(),
      currency: str(),
      status: oneOfValues(PAYMENT_STATUSES),
      at: nullable(dateTime()),
      periodEnd: nullable(dateTime()),
      refunded: int(),
      dispute: nullable(oneOfValues(['open', 'won', 'lost'])),
    }),
  ),
  invoices: arr(
    obj({
      id: str(),
      number: nullable(str()),
      status: nullable(str()),
      amountDue: int(),
      amountPaid: int(),
      currency: str(),
      created: dateTime(),
      hostedInvoiceUrl: nullable(str()),
      invoicePdf: nullable(str()),
    }),
  ),
});
export const INTENT = obj({ clientSecret: nullable(str()), paymentIntentId: str(), amount: int(), currency: str(), planType: PLAN_ID });
export const USER_STATUS = obj({
  userId: str(),
  email: str(),
  plan: PLAN_ID,
  status: oneOfValues(['active', 'inactive']),
  planSource: oneOfValues(['identity']),
  sync: obj({ state: oneOfValues(['none', ...SYNC_STATES]) }),
  failedSyncRecord: FAILED_SYNC_RECORD,
  payments: arr(
    obj({
      paymentIntentId: str(),
      planType: PLAN_ID,
      amount: int(),
      currency: str(),
      status: oneOfValues(PAYMENT_STATUSES),
      syncState: oneOfValues(SYNC_STATES),
      createdAt: dateTime(),
      updatedAt: dateTime(),
    }),
  ),
});
/** A plan sync's outcome: synced (or already up to date), or not, with why and whether a retry is kept. */
const SYNC_RESULT = {
  oneOf: [
    obj(
      { success: { type: 'boolean', enum: [true] }, userId: str(), plan: str(), paymentIntentId: str(), upToDate: bool() },
      { optional: ['plan', 'paymentIntentId', 'upToDate'] },
    ),
    obj(
      {
        success: { type: 'boolean', enum: [false] },
        error: str(),
        details: str(),
        userId: str(),
        retryStored: bool(),
        state: oneOfValues(['failed', 'manual_review', 'deferred']),
        nextAttemptAt: nullable(dateTime()),
      },
      { optional: ['state', 'nextAttemptAt'] },
    ),
  ],
};
export const WEBHOOK_OUTCOME = obj(
  {
    received: bool(),
    eventId: str(),
    type: str(),
    duplicate: bool(),
    action: oneOfValues([
      'applied',
      'duplicate',
      'ignored_type',
      'stale',
      'partial_refund',
      'unknown_payment',
      'unattributable',
      'contradicts_record',
      'manual_review',
      'invoice_payment',
    ]),
    sync: SYNC_RESULT,
  },
  { optional: ['sync'] },
);
export const UNSYNCED = obj({
  generatedAt: dateTime(),
  summary: obj({ pending: int(), failed: int(), manual_review: int(), total: int() }),
  limit: int(),
  failedSyncRecordsAvailable: bool(),
  payments: arr(
    obj({
      paymentIntentId: str(),
      userId: str(),
      planType: PLAN_ID,
      amount: int(),
      currency: str(),
      status: oneOfValues(PAYMENT_STATUSES),
      sync: obj({ state: oneOfValues(SYNC_STATES), plan: nullable(str()), attempts: int(), lastError: nullable(str()), nextAttemptAt: nullable(dateTime()) }),
      createdAt: dateTime(),
      updatedAt: dateTime(),
      failedSyncRecord: FAILED_SYNC_RECORD,
    }),
  ),
});
export const REPLAYED = obj({
  success: bool(),
  replayedPayments: int(),
  users: int(),
  failedUsers: int(),
  results: arr(SYNC_RESULT),
  manualReview: obj({
    notReplayed: int({ description: 'Payments in manual review, which a replay never takes: each waits for an approve or reject' }),
    note: str(),
  }),
});
/** An operator's decision on a payment in manual review (payment_review_decisions). */
export const DECISION = obj({
  paymentIntentId: str(),
  userId: str(),
  plan: nullable(PLAN_ID),
  decision: oneOfValues(['approved', 'rejected']),
  reason: str(),
  heldFor: nullable(str({ description: 'Why the payment was in manual review when decided' })),
  decidedBy: obj({ id: str(), email: str() }),
  decidedAt: dateTime(),
});
export const APPROVED = obj({
  decision: DECISION,
  sync: SYNC_RESULT,
  syncState: oneOfValues(SYNC_STATES, { description: "The payment's plan-sync state after the push" }),
});
export const REJECTED = obj({ decision: DECISION, syncState: oneOfValues(['not_required']) });
export const DECISIONS = obj({ decisions: arr(DECISION) });

/** A user's id in the path (identity's ids: letters, digits, '.', '_', ':', '@' or '-'). */
export const USER_PARAM = idParam('userId', { description: "The user's id (identity's)" });
const PLAN_EFFECT = nullable(
  obj({
    plan: nullable(PLAN_ID),
    sync: nullable(oneOfValues(SYNC_STATES, { description: "The plan push's state; null for a fact that moved no plan" })),
    note: str({ description: 'What the fact did to the plan, for a person' }),
  }),
);
/** An operator's view of one user's billing (the console's user page), newest first. */
export const BILLING_TIMELINE = obj({
  userId: str(),
  generatedAt: dateTime(),
  stripeAvailable: bool({ description: 'false: Stripe could not be read, so invoices and billing intervals are left out; the records are all there' }),
  subscription: nullable(
    obj({
      id: str(),
      planType: PLAN_ID,
      status: str(),
      interval: nullable(oneOfValues(['day', 'week', 'month', 'year'])),
      currentPeriodEnd: nullable(dateTime()),
      cancelAtPeriodEnd: bool(),
      pastDueSince: nullable(dateTime()),
      graceEndsAt: nullable(dateTime()),
    }),
  ),
  entries: arr(
    obj({
      at: dateTime(),
      kind: oneOfValues(['payment', 'invoice', 'subscription', 'refund', 'dispute']),
      id: str({ description: 'The PaymentIntent (payment, refund, dispute), invoice or subscription id' }),
      amount: nullable(int({ description: 'Smallest currency unit; a refund: the amount refunded so far' })),
      currency: nullable(str()),
      status: str({ description: "payment: its status; refund: full or partial; dispute: open, won or lost; invoice and subscription: Stripe's" }),
      planType: nullable(PLAN_ID),
      periodEnd: nullable(dateTime()),
      effect: PLAN_EFFECT,
      subscription: nullable(
        obj({
          interval: nullable(oneOfValues(['day', 'week', 'month', 'year'])),
          cancelAtPeriodEnd: bool(),
          pastDueSince: nullable(dateTime()),
          graceEndsAt: nullable(dateTime()),
        }),
      ),
    }),
  ),
});
/** Which accounts need a person: renewals past due, or chargebacks open; a page at a time. */
export const ACCOUNTS_QUERY = query({
  state: oneOfValues(['past_due', 'disputed'], {
    default: 'past_due',
    description: 'past_due: subscriptions whose renewal failed; disputed: open chargebacks',
  }),
  ...PAGING,
});
export const ACCOUNTS = obj({
  state: oneOfValues(['past_due', 'disputed']),
  generatedAt: dateTime(),
  limit: int(),
  offset: int(),
  nextOffset: nullable(int({ description: 'The offset of the next page; null on the last page' })),
  accounts: arr(
    obj({
      userId: str(),
      email: nullable(str({ description: "The e-mail of the user's Stripe Customer, when payment made one" })),
      state: oneOfValues(['past_due', 'disputed']),
      since: nullable(dateTime({ description: 'When the first renewal failed, or the dispute was opened' })),
      planType: PLAN_ID,
      subscriptionId: nullable(str()),
      paymentIntentId: nullable(str()),
      amount: nullable(int()),
      currency: nullable(str()),
      graceEndsAt: nullable(dateTime({ description: 'past_due: the plan is kept until then, free after' })),
      graceOver: bool(),
    }),
  ),
});
