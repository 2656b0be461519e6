import type { Selectable, Transaction } from 'kysely';
import type { LiveUser } from '../../shared/auth/live-session';
import type { RequestMeta } from '../../shared/http/client';
import { Code, conflict, notFound } from '../../shared/http/errors';
import type { PaymentConfig } from './settings';
import { first, toIso } from '../../shared/sql/dialect';
import { markSyncWork } from './backlog';
import type { PaymentNeeds } from './context';
import type { PaymentDb, PaymentTables, ReviewDecision, ReviewDecisionsTable } from './db/tables';
import { findPayment, type Payment } from './payments';
import { inlineSyncGraceMs, syncUser, type PlanSyncer, type SyncResult } from './plan-sync';

/**
 * An operator's decision on a payment in manual review. Manual review holds a paid plan back from
 * identity until a person looks (docs/payment.md, "Manual review"); nothing automatic (the retry
 * timer, the webhook, the replay) ever takes a payment out of it. Approving puts the payment back
 * in the plan-sync loop and pushes the user's plan now through the same ordered path as a payment
 * (syncUser: one push at a time per user, the newest payment decides, identity refuses a stale
 * update); rejecting leaves the plan as it is and the payment owes identity nothing. Either way the
 * decision (who, when, why, and what the payment was held for) is written in the transaction that
 * changes the payment, to payment_review_decisions.
 */

export interface DecisionView {
  paymentIntentId: string;
  userId: string;
  plan: string | null;
  decision: ReviewDecision;
  reason: string;
  heldFor: string | null;
  decidedBy: { id: string; email: string };
  decidedAt: string;
}

const decisionView = (row: Omit<Selectable<ReviewDecisionsTable>, 'id'>): DecisionView => ({
  paymentIntentId: row.payment_intent_id,
  userId: row.user_id,
  plan: row.plan,
  decision: row.decision,
  reason: row.reason,
  heldFor: row.held_for,
  decidedBy: { id: row.actor_id, email: row.actor_email },
  decidedAt: toIso(row.decided_at as string | Date)!,
});

/** The latest decision on a payment, if any. */
async function latestDecision(paymentIntentId: string, executor: Transaction<PaymentTables>): Promise<DecisionView | undefined> {
  const [row] = await first(
    executor,
    executor.selectFrom('payment_review_decisions').selectAll().where('payment_intent_id', '=', paymentIntentId).orderBy('id', 'desc'),
    1,
  ).execute();
  return row && decisionView(row);
}

/** The refusal of a decision on a payment that is not in manual review: its state, and the last decision taken on it. */
async function notInReview(payment: Payment, trx: Transaction<PaymentTables>) {
  const last = await latestDecision(payment.id, trx);
  const decided = last ? `; it was ${last.decision} by ${last.decidedBy.email} at ${last.decidedAt}` : '';
  return conflict(
    `Payment ${payment.id} is not in manual review (its plan sync is ${payment.sync.state}${decided}); only a payment in manual review is approved or rejected.`,
    Code.PAYMENT_NOT_IN_REVIEW,
    { syncState: payment.sync.state, decision: last ?? null },
  );
}

/** What each decision does to the payment: back into the sync loop, due after the push this request makes; or nothing owed. */
function changeFor(cfg: PaymentConfig, decision: ReviewDecision, now: Date) {
  const at = now.toISOString();
  return decision === 'approved'
    ? { sync_state: 'pending' as const, sync_attempts: 0, sync_next_at: new Date(now.getTime() + inlineSyncGraceMs(cfg)).toISOString(), updated_at: at }
    : { sync_state: 'not_required' as const, sync_next_at: null, updated_at: at };
}

/**
 * Takes the payment out of manual review and records the decision, in one transaction: the update
 * only matches a payment still in manual review, so of two operators deciding at once one wins
 * and the other is refused (409), and no decision is ever recorded without its effect.
 */
async function recordDecision(
  ctx: PaymentNeeds<'db' | 'config' | 'now'>,
  admin: LiveUser,
  paymentIntentId: string,
  decision: ReviewDecision,
  reason: string,
  meta: RequestMeta,
) {
  const now = ctx.now();
  return ctx.db.transaction().execute(async (trx) => {
    const payment = await findPayment(trx, paymentIntentId);
    if (!payment) throw notFound(`No payment has the PaymentIntent id ${paymentIntentId}.`, Code.PAYMENT_NOT_FOUND);
    const changed = await trx
      .updateTable('payment_payments')
      .set(changeFor(ctx.config, decision, now))
      .where('id', '=', payment.id)
      .where('sync_state', '=', 'manual_review')
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) !== 1) throw await notInReview((await findPayment(trx, paymentIntentId)) ?? payment, trx);
    const row = {
      payment_intent_id: payment.id,
      user_id: payment.userId,
      plan: payment.sync.plan,
      decision,
      reason,
      held_for: payment.sync.error,
      actor_id: admin.id,
      actor_email: admin.email,
      decided_at: now.toISOString(),
      request_id: meta.requestId.slice(0, 100),
    };
    await trx.insertInto('payment_review_decisions').values(row).execute();
    return { payment, decision: decisionView(row) };
  });
}

/**
 * POST payment/admin/payments/{id}/approve: the operator grants what the payment paid for. The
 * plan goes through syncUser like any payment's, so when a newer payment of the user decides the
 * plan, that one is pushed and this one is superseded; identity unreachable leaves it failed, for
 * the retry timer.
 */
export async function approvePayment(
  ctx: PlanSyncer,
  admin: LiveUser,
  paymentIntentId: string,
  reason: string,
  meta: RequestMeta,
): Promise<{ decision: DecisionView; sync: SyncResult; syncState: string }> {
  // Marked before the write, as every plan-sync write is (backlog.ts): the timer must look while this sync is owed.
  await markSyncWork(ctx);
  const { payment, decision } = await recordDecision(ctx, admin, paymentIntentId, 'approved', reason.trim(), meta);
  ctx.log.info('manual review: payment approved', { adminId: admin.id, paymentIntentId, userId: payment.userId, plan: payment.sync.plan });
  const sync = await syncUser(ctx, payment.userId);
  const after = await findPayment(ctx.db, paymentIntentId);
  return { decision, sync, syncState: after!.sync.state };
}

/** POST payment/admin/payments/{id}/reject: the operator refuses the plan; identity is not asked and the plan stays as it is. */
export async function rejectPayment(
  ctx: PaymentNeeds<'db' | 'config' | 'now' | 'log'>,
  admin: LiveUser,
  paymentIntentId: string,
  reason: string,
  meta: RequestMeta,
): Promise<{ decision: DecisionView; syncState: string }> {
  const { payment, decision } = await recordDecision(ctx, admin, paymentIntentId, 'rejected', reason.trim(), meta);
  ctx.log.info('manual review: payment rejected', { adminId: admin.id, paymentIntentId, userId: payment.userId, plan: payment.sync.plan });
  return { decision, syncState: 'not_required' };
}

/** GET payment/admin/review-decisions: the latest decisions, newest first. */
export async function recentDecisions(db: PaymentDb, limit: number): Promise<{ decisions: DecisionView[] }> {
  const rows = await first(db, db.selectFrom('payment_review_decisions').selectAll().orderBy('id', 'desc'), limit).execute();
  return { decisions: rows.map(decisionView) };
}
