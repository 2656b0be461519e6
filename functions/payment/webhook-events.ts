import type { Transaction } from 'kysely';
import type Stripe from 'stripe';
import type { Plan } from '../../shared/auth/access-token';
import { param, precompiled } from '../../shared/sql/precompiled';
import { isDuplicateKey } from '../../shared/sql/dialect';
import type { PaymentNeeds } from './context';
import type { DisputeStatus, PaymentDb, PaymentStatus, PaymentTables, SyncState } from './db/tables';
import { findPayment, oneOffPeriodEnd, OWED_STATES, planAfterRefund, planDecidingPayment, standingPayment, stands, type Payment } from './payments';
import { inlineSyncGraceMs } from './plan-sync';
import { billingFact, billingPaymentId, recordBilling } from './subscription-events';
import type { Email } from '../../shared/mail/mailer';

export { HANDLED_EVENT_TYPES } from './event-types';

export interface RecordedEvent {
  duplicate: boolean;
  /** What the event did: applied, or why it did not. */
  action:
    | 'applied'
    | 'duplicate'
    | 'ignored_type'
    | 'stale'
    | 'partial_refund'
    | 'unknown_payment'
    | 'unattributable'
    | 'contradicts_record'
    | 'manual_review'
    | 'invoice_payment';
  paymentIntentId?: string;
  /** Set when the event left a plan to push to identity for this user. */
  syncUserId?: string;
  /** A notice to the customer, sent once the event is committed (payment failed, plan ending). */
  email?: Email;
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

/** A `charge.refunded` event: the charge's cumulative refunded amount, and whether it is refunded in full. */
interface RefundFact {
  paymentIntentId: string;
  amountRefunded: number;
  full: boolean;
}

/** A `charge.dispute.created` (open) or `charge.dispute.closed` (won or lost) event. */
interface DisputeFact {
  paymentIntentId: string;
  dispute: DisputeStatus;
  disputeId: string;
  reason: string;
}

function disputeFact(dispute: Stripe.Dispute, status: DisputeStatus): DisputeFact | 'ignored_type' {
  const pi = typeof dispute.payment_intent === 'string' ? dispute.payment_intent : dispute.payment_intent?.id;
  return pi ? { paymentIntentId: pi, dispute: status, disputeId: dispute.id, reason: dispute.reason } : 'ignored_type';
}

function factOf(event: Stripe.Event): Fact | RefundFact | DisputeFact | 'ignored_type' | 'partial_refund' {
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
      const pi = typeof charge.payment_intent === 'string' ? charge.payment_intent : charge.payment_intent?.id;
      // A charge without a PaymentIntent was not made by this service's checkout: nothing to record it on.
      if (!pi) return 'partial_refund';
      return { paymentIntentId: pi, amountRefunded: charge.amount_refunded, full: charge.refunded && charge.amount_refunded >= charge.amount };
    }
    case 'charge.dispute.created':
      return disputeFact(event.data.object, 'open');
    case 'charge.dispute.closed':
      // Stripe closes a dispute won, lost, or (an inquiry) warning_closed: only a lost one keeps the money away.
      return disputeFact(event.data.object, event.data.object.status === 'lost' ? 'lost' : 'won');
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
    source: 'one_off',
    period_end: param<string | null>('periodEnd'),
    amount_refunded: 0,
    sync_state: param<SyncState>('syncState'),
    sync_plan: param<Plan>('syncPlan'),
    sync_attempts: 0,
    sync_error: param('syncError'),
    sync_next_at: param('syncNextAt'),
    created_at: param('now'),
    updated_at: param('now'),
  }),
);

/** What recording an event reaches: the database, the clock, the plan table and its prices, the sync grace (settings), the log, and Stripe (a billing event's PaymentIntent). */
type EventRecorder = PaymentNeeds<'db' | 'now' | 'plans' | 'config' | 'log' | 'stripe'>;

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
      periodEnd: succeeded ? oneOffPeriodEnd(at) : null,
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
  // Stripe is asked what an event needs before the transaction: no call to Stripe holds it open.
  const billing = await billingFact(ctx, event);
  const fact = factOf(event);
  const now = ctx.now().toISOString();
  const at = new Date(event.created * 1000).toISOString();
  const paymentIntentId = billing ? billingPaymentId(billing) : typeof fact === 'object' ? fact.paymentIntentId : undefined;
  return ctx.db.transaction().execute(async (trx) => {
    try {
      await insertEventRow.executeChange({ id: event.id, type: event.type, paymentIntentId: paymentIntentId ?? null, eventCreated: at, receivedAt: now }, trx);
    } catch (error) {
      if (isDuplicateKey(error)) return { duplicate: true, action: 'duplicate', paymentIntentId };
      throw error;
    }
    if (billing) {
      const outcome = await recordBilling(ctx, trx, billing, at, now);
      return outcome.syncUserId ? reconciled(ctx, trx, { duplicate: false, ...outcome }, now) : { duplicate: false, ...outcome };
    }
    if (fact === 'ignored_type' || fact === 'partial_refund') return { duplicate: false, action: fact, paymentIntentId };
    if ('amountRefunded' in fact) return recordRefund(ctx, trx, fact, at, now);
    if ('dispute' in fact) return recordDispute(ctx, trx, fact, at, now);

    const payment = await findPayment(trx, fact.paymentIntentId);
    if (!payment) return reconciled(ctx, trx, await insertFromEvent(ctx, trx, fact, at, now), now);
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
        // A one-off's period starts when it is paid.
        ...(fact.status === 'succeeded' ? { source: 'one_off' as const, period_end: oneOffPeriodEnd(at) } : {}),
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
    return reconciled(ctx, trx, { duplicate: false, action: 'applied', paymentIntentId, ...(syncs ? { syncUserId: payment.userId } : {}) }, now);
  });
}

/**
 * A success recorded older than a refund that decided the plan (delivered late, or a refund of the
 * newer payment recorded before it) changes which payment stands behind that refund. The refund
 * stays the newest fact, so its plan is recomputed and pushed again: the user never keeps a plan of
 * a refunded payment nor loses one a standing payment gives. The plan sync recomputes it once more
 * under the user's lease (plan-sync.ts), so two refunds recorded at once cannot leave a wrong plan.
 */
async function reconciled(ctx: EventRecorder, trx: Transaction<PaymentTables>, recorded: RecordedEvent, now: string): Promise<RecordedEvent> {
  if (!recorded.syncUserId) return recorded;
  const newest = await planDecidingPayment(trx, recorded.syncUserId);
  if (!newest || stands(newest) || newest.id === recorded.paymentIntentId) return recorded;
  const plan = await planAfterRefund(trx, recorded.syncUserId);
  if (plan === newest.sync.plan) return recorded;
  await trx
    .updateTable('payment_payments')
    .set(pendingSync(ctx, plan, now))
    .where('id', '=', newest.id)
    .where('sync_state', '!=', 'manual_review')
    .execute();
  return recorded;
}

/** A plan sync due to the webhook that records it, left to the timer after the inline grace. */
function pendingSync(ctx: EventRecorder, plan: Plan, now: string) {
  return {
    sync_state: 'pending' as const,
    sync_plan: plan,
    sync_attempts: 0,
    sync_error: null,
    sync_next_at: new Date(Date.parse(now) + inlineSyncGraceMs(ctx.config)).toISOString(),
  };
}

/**
 * Records a `charge.refunded` event on its payment (what was refunded and when; Stripe's amount is
 * cumulative, so a refund event not above the amount recorded is stale). Only a FULL refund of the
 * payment that decides the plan (no other standing payment is newer) moves the plan: to that of the
 * newest payment still standing, else free, through the same ordered sync. A partial refund, or a
 * full refund of a payment a newer one superseded, changes no plan: it is recorded and logged, and
 * its payment keeps the time it succeeded, so it never becomes the newest fact; a superseded
 * payment's owed sync is superseded (a refunded payment's plan is never pushed).
 */
async function recordRefund(ctx: EventRecorder, trx: Transaction<PaymentTables>, fact: RefundFact, at: string, now: string): Promise<RecordedEvent> {
  const { log } = ctx;
  const paymentIntentId = fact.paymentIntentId;
  const payment = await findPayment(trx, paymentIntentId);
  if (!payment) {
    log.warn('refund for a payment this service never recorded; acknowledged without action', { paymentIntentId });
    return { duplicate: false, action: 'unknown_payment', paymentIntentId };
  }
  if (payment.status === 'refunded' || fact.amountRefunded <= payment.refund.amount) return { duplicate: false, action: 'stale', paymentIntentId };
  const refund = { amount_refunded: fact.amountRefunded, refunded_at: at, updated_at: now };
  const fields = { userId: payment.userId, paymentIntentId, amountRefunded: fact.amountRefunded, amount: payment.amount, currency: payment.currency };
  if (!fact.full) {
    await trx.updateTable('payment_payments').set(refund).where('id', '=', payment.id).execute();
    log.info('partial refund recorded; the plan is unchanged', fields);
    return { duplicate: false, action: 'partial_refund', paymentIntentId };
  }
  const standing = await standingPayment(trx, payment.userId);
  // A payment that never stood (its success not yet recorded) decides only when no other stands.
  const decides = payment.status === 'succeeded' ? standing?.id === payment.id : !standing;
  if (!decides) {
    await trx
      .updateTable('payment_payments')
      .set({
        ...refund,
        status: 'refunded',
        ...(OWED_STATES.includes(payment.sync.state) ? { sync_state: 'superseded' as const, sync_next_at: null } : {}),
      })
      .where('id', '=', payment.id)
      .execute();
    log.info('refund of a payment a newer one superseded recorded; the plan is unchanged', { ...fields, decidingPaymentIntentId: standing?.id });
    return { duplicate: false, action: 'applied', paymentIntentId };
  }
  await trx
    .updateTable('payment_payments')
    .set({ ...refund, status: 'refunded', status_at: at, failure_message: null, ...pendingSync(ctx, 'free', now) })
    .where('id', '=', payment.id)
    .execute();
  const plan = await planAfterRefund(trx, payment.userId);
  if (plan !== 'free') await trx.updateTable('payment_payments').set({ sync_plan: plan }).where('id', '=', payment.id).execute();
  log.info('full refund of the payment deciding the plan recorded; the plan follows the payments still standing', { ...fields, plan });
  // A newer refund recorded earlier (delivered first) counted this payment as standing.
  return reconciled(ctx, trx, { duplicate: false, action: 'applied', paymentIntentId, syncUserId: payment.userId }, now);
}

/** A dispute only moves forward: opened, then closed (won or lost); a replayed or late event is stale. */
const DISPUTE_RANK: Record<DisputeStatus, number> = { open: 1, won: 2, lost: 2 };

/**
 * Records a chargeback on its payment. Opened (or lost without its opening recorded), the payment
 * stops standing: when it was the one deciding the plan, the plan is suspended at once through the
 * same ordered sync (to that of the newest payment still standing, else free), and the operators
 * are alerted by an error line (`category: dispute`). Won, the payment stands again: when it is
 * then the newest standing one (not refunded, no newer purchase since), its plan is restored. A
 * dispute of a payment that decides nothing is recorded and changes no plan.
 */
async function recordDispute(ctx: EventRecorder, trx: Transaction<PaymentTables>, fact: DisputeFact, at: string, now: string): Promise<RecordedEvent> {
  const { log } = ctx;
  const paymentIntentId = fact.paymentIntentId;
  const payment = await findPayment(trx, paymentIntentId);
  if (!payment) {
    log.warn('dispute of a payment this service never recorded; acknowledged without action', { paymentIntentId, disputeId: fact.disputeId });
    return { duplicate: false, action: 'unknown_payment', paymentIntentId };
  }
  if (payment.dispute.status && DISPUTE_RANK[payment.dispute.status] >= DISPUTE_RANK[fact.dispute])
    return { duplicate: false, action: 'stale', paymentIntentId };
  const before = await standingPayment(trx, payment.userId);
  await trx.updateTable('payment_payments').set({ dispute_status: fact.dispute, disputed_at: at, updated_at: now }).where('id', '=', payment.id).execute();
  const after = await standingPayment(trx, payment.userId);
  const fields = {
    userId: payment.userId,
    paymentIntentId,
    disputeId: fact.disputeId,
    reason: fact.reason,
    amount: payment.amount,
    currency: payment.currency,
  };
  // The plan moves when this payment starts or stops being the one the user's plan comes from.
  const decides = fact.dispute === 'won' ? after?.id === payment.id : before?.id === payment.id;
  if (fact.dispute !== 'won' && payment.dispute.status !== 'open')
    log.error(`DISPUTE: a card payment was disputed (${fact.dispute}); ${decides ? 'its plan is suspended' : 'it decides no plan'}`, {
      ...fields,
      category: 'dispute',
    });
  if (!decides) {
    if (fact.dispute !== 'won' && OWED_STATES.includes(payment.sync.state))
      await trx.updateTable('payment_payments').set({ sync_state: 'superseded', sync_next_at: null }).where('id', '=', payment.id).execute();
    log.info(`dispute ${fact.dispute} recorded; the plan is unchanged`, fields);
    return { duplicate: false, action: 'applied', paymentIntentId };
  }
  const plan = await planAfterRefund(trx, payment.userId);
  // The newest fact from now on: the suspension (or the restoration) is the plan's latest change.
  await trx
    .updateTable('payment_payments')
    .set({ status_at: at, ...pendingSync(ctx, plan, now) })
    .where('id', '=', payment.id)
    .execute();
  if (fact.dispute === 'won') log.info('dispute won; the plan is restored', { ...fields, plan });
  return reconciled(ctx, trx, { duplicate: false, action: 'applied', paymentIntentId, syncUserId: payment.userId }, now);
}
