import type { Transaction } from 'kysely';
import type Stripe from 'stripe';
import type { Plan } from '../../shared/auth/access-token';
import { param, precompiled } from '../../shared/sql/precompiled';
import { isDuplicateKey } from '../../shared/sql/dialect';
import type { PaymentNeeds } from './context';
import type { PaymentDb, PaymentStatus, PaymentTables, SyncState } from './db/tables';
import { findPayment, type Payment } from './payments';
import { inlineSyncGraceMs } from './plan-sync';

export { HANDLED_EVENT_TYPES } from './event-types';

export interface RecordedEvent {
  duplicate: boolean;
  /** What the event did: applied, or why it did not. */
  action: 'applied' | 'duplicate' | 'ignored_type' | 'stale' | 'partial_refund' | 'unknown_payment' | 'unattributable' | 'contradicts_record' | 'manual_review';
  paymentIntentId?: string;
  /** Set when the event left a plan to push to identity for this user. */
  syncUserId?: string;
}

/**
 * Lifecycle rank: a payment only moves forward (pending, then failed/canceled, then succeeded,
 * then refunded), and within a rank the newer event wins. So an older or replayed event can never
 * undo a newer fact, whatever order Stripe delivers them in.
 */
const RANK: Record<PaymentStatus, number> = { pending: 0, failed: 1, canceled: 1, succeeded: 2, refunded: 3 };

function supersedes(current: Payment, next: PaymentStatus, at: string): boolean {
  if (RANK[next] !== RANK[current.status]) return RANK[next] > RANK[current.status];
  return next !== current.status && (!current.statusAt || at > current.statusAt);
}

interface Fact {
  paymentIntentId: string;
  status: PaymentStatus;
  failureMessage?: string;
  /** The PaymentIntent itself, when the event carries it (cross-checked against our record). */
  intent?: Stripe.PaymentIntent;
}

function factOf(event: Stripe.Event): Fact | 'ignored_type' | 'partial_refund' {
  switch (event.type) {
    case 'payment_intent.succeeded':
      return { paymentIntentId: event.data.object.id, status: 'succeeded', intent: event.data.object };
    case 'payment_intent.payment_failed':
      return {
        paymentIntentId: event.data.object.id,
        status: 'failed',
        failureMessage: event.data.object.last_payment_error?.message ?? 'payment failed',
        intent: event.data.object,
      };
    case 'charge.refunded': {
      const charge = event.data.object;
      // Only a full refund takes the plan away; a partial refund is a goodwill credit.
      if (!charge.refunded || charge.amount_refunded < charge.amount) return 'partial_refund';
      const pi = typeof charge.payment_intent === 'string' ? charge.payment_intent : charge.payment_intent?.id;
      return pi ? { paymentIntentId: pi, status: 'refunded' } : 'partial_refund';
    }
    default:
      return 'ignored_type';
  }
}

const USER_ID = /^[A-Za-z0-9._@:-]{1,64}$/;

/** Differences between a signed PaymentIntent and the payment we recorded when creating it. */
function contradictions(payment: Payment, intent: Stripe.PaymentIntent): string[] {
  const problems: string[] = [];
  if (intent.metadata?.userId !== payment.userId) problems.push(`metadata.userId ${intent.metadata?.userId} != ${payment.userId}`);
  if (intent.metadata?.planType !== payment.planType) problems.push(`metadata.planType ${intent.metadata?.planType} != ${payment.planType}`);
  if (intent.amount !== payment.amount) problems.push(`amount ${intent.amount} != ${payment.amount}`);
  if (intent.currency !== payment.currency) problems.push(`currency ${intent.currency} != ${payment.currency}`);
  return problems;
}

// Every event runs these; compiled once (shared/sql/precompiled.ts).
const insertEventRow = precompiled((database: PaymentDb) =>
  database.insertInto('payment_webhook_events').values({
    id: param('id'),
    type: param('type'),
    payment_intent_id: param('paymentIntentId'),
    event_created: param('eventCreated'),
    received_at: param('receivedAt'),
  }),
);
const insertPaymentRow = precompiled((database: PaymentDb) =>
  database.insertInto('payment_payments').values({
    id: param('id'),
    user_id: param('userId'),
    plan_type: param<Plan>('planType'),
    amount: param<number>('amount'),
    currency: param('currency'),
    price_version: param('priceVersion'),
    status: param<PaymentStatus>('status'),
    status_at: param('statusAt'),
    failure_message: param('failureMessage'),
    sync_state: param<SyncState>('syncState'),
    sync_plan: param<Plan>('syncPlan'),
    sync_attempts: 0,
    sync_error: param('syncError'),
    sync_next_at: param('syncNextAt'),
    created_at: param('now'),
    updated_at: param('now'),
  }),
);

/** What recording an event reaches: the database, the clock, the plan table and its prices, the sync grace (settings), the log. */
type EventRecorder = PaymentNeeds<'db' | 'now' | 'plans' | 'config' | 'log'>;

async function insertFromEvent(ctx: EventRecorder, trx: Transaction<PaymentTables>, fact: Fact, at: string, now: string): Promise<RecordedEvent> {
  const { log } = ctx;
  const intent = fact.intent;
  const userId = intent?.metadata?.userId;
  const planType = intent?.metadata?.planType as Plan | undefined;
  if (!intent) {
    log.warn('refund for a payment this service never recorded; acknowledged without action', { paymentIntentId: fact.paymentIntentId });
    return { duplicate: false, action: 'unknown_payment', paymentIntentId: fact.paymentIntentId };
  }
  const plan = planType && ctx.plans.find((p) => p.id === planType);
  if (!userId || !USER_ID.test(userId) || !planType || !plan || planType === 'free') {
    log.error('signed payment event without a usable userId/planType in its metadata; needs manual review', {
      paymentIntentId: fact.paymentIntentId,
      category: 'manual_review',
    });
    return { duplicate: false, action: 'unattributable', paymentIntentId: fact.paymentIntentId };
  }
  const succeeded = fact.status === 'succeeded';
  // A payment this service never created proves only what Stripe signed: it grants a plan only when
  // it paid that plan's price; anything else waits for a person (the plan stays as it is).
  const mispriced = succeeded && (intent.amount !== plan.price || intent.currency !== plan.currency);
  const syncError = mispriced
    ? `unrecorded payment of ${intent.amount} ${intent.currency} for the ${planType} plan, which costs ${plan.price} ${plan.currency}`
    : null;
  if (mispriced)
    log.error("MANUAL REVIEW: a payment this service never created does not match its plan's price; plan not changed", {
      paymentIntentId: intent.id,
      userId,
      planType,
      amount: intent.amount,
      currency: intent.currency,
      category: 'manual_review',
    });
  await insertPaymentRow.executeChange(
    {
      id: intent.id,
      userId,
      planType,
      amount: intent.amount,
      currency: intent.currency,
      priceVersion: intent.metadata?.priceVersion ?? null,
      status: fact.status,
      statusAt: at,
      failureMessage: fact.failureMessage ?? null,
      syncState: mispriced ? 'manual_review' : succeeded ? 'pending' : 'not_required',
      syncPlan: succeeded ? planType : null,
      syncError,
      syncNextAt: succeeded && !mispriced ? new Date(Date.parse(now) + inlineSyncGraceMs(ctx.config)).toISOString() : null,
      now,
    },
    trx,
  );
  if (mispriced) return { duplicate: false, action: 'manual_review', paymentIntentId: intent.id };
  return { duplicate: false, action: 'applied', paymentIntentId: intent.id, ...(succeeded ? { syncUserId: userId } : {}) };
}

/**
 * Records one verified event in a single transaction: the event id (a repeat is a no-op) and its
 * effect on the payment. A succeeded payment or a full refund leaves a pending plan sync in SQL
 * (the source of truth the retry timer works from) for the caller to push at once.
 */
export async function recordEvent(ctx: EventRecorder, event: Stripe.Event): Promise<RecordedEvent> {
  const { log } = ctx;
  const fact = factOf(event);
  const now = ctx.now().toISOString();
  const at = new Date(event.created * 1000).toISOString();
  const paymentIntentId = typeof fact === 'object' ? fact.paymentIntentId : undefined;
  return ctx.db.transaction().execute(async (trx) => {
    try {
      await insertEventRow.executeChange({ id: event.id, type: event.type, paymentIntentId: paymentIntentId ?? null, eventCreated: at, receivedAt: now }, trx);
    } catch (error) {
      if (isDuplicateKey(error)) return { duplicate: true, action: 'duplicate', paymentIntentId };
      throw error;
    }
    if (fact === 'ignored_type' || fact === 'partial_refund') return { duplicate: false, action: fact, paymentIntentId };

    const payment = await findPayment(trx, fact.paymentIntentId);
    if (!payment) return insertFromEvent(ctx, trx, fact, at, now);
    if (!supersedes(payment, fact.status, at)) return { duplicate: false, action: 'stale', paymentIntentId };

    const problems = fact.intent ? contradictions(payment, fact.intent) : [];
    const syncs = fact.status === 'succeeded' || fact.status === 'refunded';
    if (problems.length) {
      log.error('INCONSISTENCY: signed event contradicts the payment record; plan not changed, needs manual review', {
        paymentIntentId,
        problems,
        category: 'inconsistency',
      });
    }
    await trx
      .updateTable('payment_payments')
      .set({
        status: fact.status,
        status_at: at,
        failure_message: fact.failureMessage ?? null,
        updated_at: now,
        ...(syncs
          ? problems.length
            ? {
                // Only an event that carries the PaymentIntent (a success, never a refund) can contradict the record.
                sync_state: 'manual_review' as const,
                sync_plan: payment.planType,
                sync_error: `event contradicts the payment record: ${problems.join('; ')}`,
              }
            : {
                sync_state: 'pending' as const,
                sync_plan: fact.status === 'refunded' ? ('free' as const) : payment.planType,
                sync_attempts: 0,
                sync_error: null,
                sync_next_at: new Date(Date.parse(now) + inlineSyncGraceMs(ctx.config)).toISOString(),
              }
          : {}),
      })
      .where('id', '=', payment.id)
      .execute();
    if (problems.length) return { duplicate: false, action: 'contradicts_record', paymentIntentId };
    return { duplicate: false, action: 'applied', paymentIntentId, ...(syncs ? { syncUserId: payment.userId } : {}) };
  });
}
