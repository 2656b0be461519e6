import type { Plan } from '../../shared/auth/access-token';
import type { PlanHolding } from '../../shared/plan-ids';
import { first, isDuplicateKey, sql, toIso } from '../../shared/sql/dialect';
import { param, precompiled } from '../../shared/sql/precompiled';
import type { Timestamp } from '../../shared/sql/tables';
import type { DisputeStatus, PaymentDb, PaymentSource, PaymentStatus, PaymentsTable, SyncState } from './db/tables';

// Payment's records in SQL. Each function takes the database it runs on first (the context's
// `db`, or a transaction of it: a Transaction is a Kysely of the same tables) and, when it writes
// a time, that time: its signature says what it reaches.

export interface Payment {
  id: string;
  userId: string;
  planType: Plan;
  amount: number;
  currency: string;
  priceVersion: string | null;
  status: PaymentStatus;
  statusAt: string | null;
  failureMessage: string | null;
  /** What was refunded so far (a partial refund leaves the payment succeeded) and the time of the last refund. */
  refund: { amount: number; at: string | null };
  /** The chargeback, if any: open, won or lost, and the time of its last event. */
  dispute: { status: DisputeStatus | null; at: string | null };
  /** Where it comes from (null: before periods), the end of the period it paid for (null: no end), and its invoice and subscription. */
  source: PaymentSource | null;
  periodEnd: string | null;
  invoiceId: string | null;
  subscriptionId: string | null;
  sync: { state: SyncState; plan: Plan | null; attempts: number; error: string | null; nextAttemptAt: string | null; syncedAt: string | null };
  createdAt: string;
  updatedAt: string;
}

type PaymentRow = {
  [K in keyof PaymentsTable]: PaymentsTable[K] extends Timestamp
    ? string | Date
    : PaymentsTable[K] extends Timestamp | null
      ? string | Date | null
      : PaymentsTable[K];
};

export function toPayment(row: PaymentRow): Payment {
  return {
    id: row.id,
    userId: row.user_id,
    planType: row.plan_type,
    amount: row.amount,
    currency: row.currency,
    priceVersion: row.price_version,
    status: row.status,
    statusAt: toIso(row.status_at),
    failureMessage: row.failure_message,
    refund: { amount: row.amount_refunded, at: toIso(row.refunded_at) },
    dispute: { status: row.dispute_status, at: toIso(row.disputed_at) },
    source: row.source,
    periodEnd: toIso(row.period_end),
    invoiceId: row.invoice_id,
    subscriptionId: row.subscription_id,
    sync: {
      state: row.sync_state,
      plan: row.sync_plan,
      attempts: row.sync_attempts,
      error: row.sync_error,
      nextAttemptAt: toIso(row.sync_next_at),
      syncedAt: toIso(row.synced_at),
    },
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
  };
}

/** Records a payment intent just created at Stripe as pending, at `at`; a repeat of the same id is a no-op. */
export async function insertPendingPayment(
  db: PaymentDb,
  p: { id: string; userId: string; planType: Plan; amount: number; currency: string; priceVersion: string },
  at: Date,
): Promise<void> {
  const now = at.toISOString();
  try {
    await db
      .insertInto('payment_payments')
      .values({
        id: p.id,
        user_id: p.userId,
        plan_type: p.planType,
        amount: p.amount,
        currency: p.currency,
        price_version: p.priceVersion,
        status: 'pending',
        source: 'one_off',
        amount_refunded: 0,
        sync_state: 'not_required',
        sync_attempts: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
  } catch (error) {
    // A replayed idempotent create returns the same PaymentIntent: its row already exists.
    if (!isDuplicateKey(error)) throw error;
  }
}

// The statements every webhook event and plan sync runs are compiled once (shared/sql/precompiled.ts).
const paymentById = precompiled((database: PaymentDb) => database.selectFrom('payment_payments').selectAll().where('id', '=', param('id')));

export async function findPayment(db: PaymentDb, id: string): Promise<Payment | undefined> {
  const [row] = await paymentById.execute({ id }, db);
  return row && toPayment(row as PaymentRow);
}

export async function recentPaymentsOf(db: PaymentDb, userId: string, count = 10): Promise<Payment[]> {
  const rows = await first(
    db,
    db.selectFrom('payment_payments').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc'),
    count,
  ).execute();
  return rows.map((r) => toPayment(r as PaymentRow));
}

const decidingPayment = precompiled((database: PaymentDb) =>
  first(
    database,
    database
      .selectFrom('payment_payments')
      .selectAll()
      .where('user_id', '=', param('userId'))
      .where('status', 'in', ['succeeded', 'refunded'])
      .orderBy('status_at', 'desc')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc'),
    1,
  ),
);

/**
 * The payment whose plan the user should have: the newest fact that decides a plan (a success, or
 * a full refund of the payment that then decided the plan) by event time, ties broken by creation.
 * Older payments never decide the plan once a newer one exists. A refund that decided nothing keeps
 * the time its payment succeeded (webhook-events.ts), so it is never the newest fact.
 */
export async function planDecidingPayment(db: PaymentDb, userId: string): Promise<Payment | undefined> {
  const [row] = await decidingPayment.execute({ userId }, db);
  return row && toPayment(row as PaymentRow);
}

const newestStanding = precompiled((database: PaymentDb) =>
  first(
    database,
    database
      .selectFrom('payment_payments')
      .selectAll()
      .where('user_id', '=', param('userId'))
      .where('status', '=', 'succeeded')
      .where((eb) => eb.or([eb('dispute_status', 'is', null), eb('dispute_status', '=', 'won')]))
      .orderBy('status_at', 'desc')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc'),
    1,
  ),
);

/**
 * Whether a payment gives its plan: it succeeded, was not refunded in full, and no chargeback
 * against it is open or lost (a won one gives the plan back).
 */
export const stands = (p: Payment): boolean => p.status === 'succeeded' && (p.dispute.status === null || p.dispute.status === 'won');

/** The newest payment that still stands (see `stands`): the one whose plan the user holds when no refund decided since. */
export async function standingPayment(db: PaymentDb, userId: string): Promise<Payment | undefined> {
  const [row] = await newestStanding.execute({ userId }, db);
  return row && toPayment(row as PaymentRow);
}

/** A one-off purchase (POST create-payment-intent) buys one period of this length, prepaid, without renewal. */
export const ONE_OFF_PERIOD_DAYS = 30;

/** The end of the period a one-off payment that succeeded at `at` (ISO) paid for. */
export const oneOffPeriodEnd = (at: string): string => new Date(Date.parse(at) + ONE_OFF_PERIOD_DAYS * 24 * 60 * 60 * 1000).toISOString();

/**
 * What a standing payment gives: its plan until the end of the period it paid for (the source says
 * which kind of period). A payment recorded before periods gives its plan without an end; no
 * payment standing gives free.
 */
export function holdingOf(payment: Payment | undefined): PlanHolding {
  if (!payment) return { plan: 'free', periodEnd: null, source: null };
  return { plan: payment.planType, periodEnd: payment.periodEnd, source: payment.source ?? 'one_off' };
}

/** The plan a refund or chargeback that decides leaves the user: that of the newest payment still standing, else free. */
export async function planAfterRefund(db: PaymentDb, userId: string): Promise<Plan> {
  return (await standingPayment(db, userId))?.planType ?? 'free';
}

/** Sets the plan a refund's pending sync pushes (recomputed when the payments standing changed since it was recorded). */
export async function setSyncPlan(db: PaymentDb, id: string, plan: Plan, now: Date): Promise<void> {
  await db.updateTable('payment_payments').set({ sync_plan: plan, updated_at: now.toISOString() }).where('id', '=', id).execute();
}

/** The sync states in which a payment still owes identity a plan: the retry loop's two, and manual review (a person decides). */
export const OWED_STATES: readonly SyncState[] = ['pending', 'failed', 'manual_review'];
/** The sync states the retry loop (timer, webhook, replay) works on; manual review is never among them. */
export const RETRIED_STATES: readonly SyncState[] = ['pending', 'failed'];

/** How many payments are in each state that needs attention, over the whole table. */
export async function countsByState(db: PaymentDb): Promise<{ pending: number; failed: number; manual_review: number }> {
  const rows = await db
    .selectFrom('payment_payments')
    .select(['sync_state', sql<number>`count(*)`.as('count')])
    .where('sync_state', 'in', [...OWED_STATES])
    .groupBy('sync_state')
    .execute();
  const counts = { pending: 0, failed: 0, manual_review: 0 };
  for (const row of rows) counts[row.sync_state as keyof typeof counts] = Number(row.count);
  return counts;
}

/** Payments in these sync states (by default every one still owing identity a plan), oldest first. */
export async function unsyncedPayments(db: PaymentDb, count = 100, states: readonly SyncState[] = OWED_STATES): Promise<Payment[]> {
  const rows = await first(
    db,
    db
      .selectFrom('payment_payments')
      .selectAll()
      .where('sync_state', 'in', [...states])
      .orderBy('created_at')
      .orderBy('id'),
    count,
  ).execute();
  return rows.map((r) => toPayment(r as PaymentRow));
}

/** Users with a sync that is due now (pending past its grace, or failed past its backoff), most overdue first. */
export async function usersWithDueSyncs(db: PaymentDb, now: Date, count = 100): Promise<string[]> {
  const rows = await first(
    db,
    db
      .selectFrom('payment_payments')
      .select(['user_id'])
      .where('sync_state', 'in', ['pending', 'failed'])
      .where('sync_next_at', '<=', now.toISOString())
      .orderBy('sync_next_at')
      .orderBy('id'),
    count,
  ).execute();
  return [...new Set(rows.map((r) => r.user_id))];
}

const markPaymentSynced = precompiled((database: PaymentDb) =>
  database
    .updateTable('payment_payments')
    .set({ sync_state: 'synced', sync_error: null, sync_next_at: null, synced_at: param('at'), updated_at: param('at') })
    .where('id', '=', param('id'))
    .where('sync_state', 'in', ['pending', 'failed', 'manual_review']),
);

/**
 * Marks the payment synced and supersedes the older ones. Answers whether a failed-sync record may
 * exist (this payment failed before, or older ones were still waiting); otherwise Table Storage is not asked.
 */
export async function markSynced(db: PaymentDb, payment: Payment, now: Date): Promise<{ hadFailures: boolean }> {
  return db.transaction().execute(async (trx) => {
    await markPaymentSynced.executeChange({ id: payment.id, at: now.toISOString() }, trx);
    const supersededAny = await supersedeOlder(trx, payment, now);
    return { hadFailures: payment.sync.error !== null || supersededAny };
  });
}

const supersedeOlderPayments = precompiled((database: PaymentDb) =>
  database
    .updateTable('payment_payments')
    .set({ sync_state: 'superseded', sync_next_at: null, updated_at: param('now') })
    .where('user_id', '=', param('userId'))
    .where('id', '!=', param('id'))
    .where('sync_state', 'in', ['pending', 'failed', 'manual_review'])
    .where('status_at', '<=', param('statusAt')),
);

/**
 * Older payments of the user lost their say once `payment` decides the plan: they must never be
 * pushed. Answers whether any was superseded (one of them may have left a failed-sync record).
 */
export async function supersedeOlder(db: PaymentDb, payment: Payment, now: Date): Promise<boolean> {
  const changed = await supersedeOlderPayments.executeChange(
    { userId: payment.userId, id: payment.id, statusAt: payment.statusAt, now: now.toISOString() },
    db,
  );
  return changed > 0;
}

export async function markSyncFailed(
  db: PaymentDb,
  payment: Payment,
  change: { state: 'failed' | 'manual_review'; attempts: number; error: string; nextAt: Date | null },
  now: Date,
): Promise<void> {
  await db
    .updateTable('payment_payments')
    .set({
      sync_state: change.state,
      sync_attempts: change.attempts,
      sync_error: change.error,
      sync_next_at: change.nextAt?.toISOString() ?? null,
      updated_at: now.toISOString(),
    })
    .where('id', '=', payment.id)
    .where('sync_state', 'in', ['pending', 'failed', 'manual_review'])
    .execute();
}

/**
 * Makes failed (and pending) syncs due now (the replay command). Never a payment in manual review:
 * that one waits for an operator's decision (review.ts), whatever the replay was given.
 */
export async function reopenForReplay(db: PaymentDb, ids: string[], now: Date): Promise<void> {
  if (!ids.length) return;
  await db
    .updateTable('payment_payments')
    .set({ sync_state: 'pending', sync_attempts: 0, sync_next_at: now.toISOString(), updated_at: now.toISOString() })
    .where('id', 'in', ids)
    .where('sync_state', 'in', [...RETRIED_STATES])
    .execute();
}

const insertLease = precompiled((database: PaymentDb) =>
  database.insertInto('payment_sync_leases').values({ user_id: param('userId'), holder: param('holder'), expires_at: param('expires') }),
);
const takeOverExpiredLease = precompiled((database: PaymentDb) =>
  database
    .updateTable('payment_sync_leases')
    .set({ holder: param('holder'), expires_at: param('expires') })
    .where('user_id', '=', param('userId'))
    .where('expires_at', '<', param('now')),
);
const deleteLease = precompiled((database: PaymentDb) =>
  database.deleteFrom('payment_sync_leases').where('user_id', '=', param('userId')).where('holder', '=', param('holder')),
);

/**
 * A lease on pushing plans for one user, so two instances (webhook and timer, or two webhooks)
 * never race each other's PUTs. Insert when absent, take over when expired.
 */
export async function acquireSyncLease(db: PaymentDb, userId: string, holder: string, now: Date, ttlMs: number): Promise<boolean> {
  const expires = new Date(now.getTime() + ttlMs).toISOString();
  try {
    await insertLease.executeChange({ userId, holder, expires }, db);
    return true;
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
  return (await takeOverExpiredLease.executeChange({ userId, holder, expires, now: now.toISOString() }, db)) === 1;
}

const extendLease = precompiled((database: PaymentDb) =>
  database
    .updateTable('payment_sync_leases')
    .set({ expires_at: param('expires') })
    .where('user_id', '=', param('userId'))
    .where('holder', '=', param('holder')),
);

/** Extends a lease this holder still has; false when it was lost (it expired and another instance took it). */
export async function renewSyncLease(db: PaymentDb, userId: string, holder: string, now: Date, ttlMs: number): Promise<boolean> {
  return (await extendLease.executeChange({ userId, holder, expires: new Date(now.getTime() + ttlMs).toISOString() }, db)) === 1;
}

export async function releaseSyncLease(db: PaymentDb, userId: string, holder: string): Promise<void> {
  await deleteLease.executeChange({ userId, holder }, db);
}
