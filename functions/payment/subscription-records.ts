import type { Plan } from '../../shared/auth/access-token';
import { first, isDuplicateKey, toIso } from '../../shared/sql/dialect';
import type { PaymentDb, SubscriptionsTable } from './db/tables';

// Payment's records of Stripe Customers and subscriptions. Each function takes the database it
// runs on first (the context's `db`, or a transaction of it).

export interface SubscriptionRecord {
  id: string;
  userId: string;
  customerId: string;
  planType: Plan;
  status: string;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
  pastDueSince: string | null;
  eventAt: string;
  createdAt: string;
}

type Row = { [K in keyof SubscriptionsTable]: SubscriptionsTable[K] extends string ? string | Date : SubscriptionsTable[K] | Date };

const toRecord = (row: Row): SubscriptionRecord => ({
  id: String(row.id),
  userId: String(row.user_id),
  customerId: String(row.customer_id),
  planType: row.plan_type as Plan,
  status: String(row.status),
  currentPeriodEnd: toIso(row.current_period_end as string | Date | null),
  cancelAtPeriodEnd: Number(row.cancel_at_period_end) === 1,
  pastDueSince: toIso(row.past_due_since as string | Date | null),
  eventAt: toIso(row.event_at as string | Date)!,
  createdAt: toIso(row.created_at as string | Date)!,
});

/** When the grace of a renewal past due since `pastDueSince` ends (the plan is kept until then); null when nothing is owed. */
export const graceEndOf = (pastDueSince: string | null, graceDays: number): string | null =>
  pastDueSince ? new Date(Date.parse(pastDueSince) + graceDays * 86_400_000).toISOString() : null;

/** Subscription statuses in which the user is still billed: a new subscription would bill twice. */
export const LIVE_STATUSES = ['incomplete', 'trialing', 'active', 'past_due', 'unpaid'];

export async function findCustomer(db: PaymentDb, userId: string): Promise<{ customerId: string; email: string } | undefined> {
  const row = await db.selectFrom('payment_customers').select(['customer_id', 'email']).where('user_id', '=', userId).executeTakeFirst();
  return row && { customerId: row.customer_id, email: row.email };
}

export async function customerEmail(db: PaymentDb, customerId: string): Promise<string | undefined> {
  return (await db.selectFrom('payment_customers').select('email').where('customer_id', '=', customerId).executeTakeFirst())?.email;
}

/** Records the user's Customer once; a concurrent first checkout made the same one (same idempotency key), so a repeat is a no-op. */
export async function insertCustomer(db: PaymentDb, row: { userId: string; customerId: string; email: string }, at: Date): Promise<void> {
  try {
    await db
      .insertInto('payment_customers')
      .values({ user_id: row.userId, customer_id: row.customerId, email: row.email, created_at: at.toISOString() })
      .execute();
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
}

export async function findSubscription(db: PaymentDb, id: string): Promise<SubscriptionRecord | undefined> {
  const row = await db.selectFrom('payment_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toRecord(row as Row);
}

/** The user's newest subscription that still bills them, if any. */
export async function liveSubscriptionOf(db: PaymentDb, userId: string): Promise<SubscriptionRecord | undefined> {
  const row = await db
    .selectFrom('payment_subscriptions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('status', 'in', LIVE_STATUSES)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row && toRecord(row as Row);
}

/** The user's subscriptions, newest first (the billing page and the console's timeline). */
export async function subscriptionsOf(db: PaymentDb, userId: string, count = 20): Promise<SubscriptionRecord[]> {
  const rows = await first(
    db,
    db.selectFrom('payment_subscriptions').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc'),
    count,
  ).execute();
  return rows.map((row) => toRecord(row as Row));
}

export type SubscriptionState = Omit<SubscriptionRecord, 'createdAt'>;

/**
 * Writes the subscription as an event at `state.eventAt` left it, unless a newer event was applied:
 * answers the record before the change (undefined when new) and whether it was applied.
 */
export async function saveSubscription(db: PaymentDb, state: SubscriptionState, now: Date): Promise<{ before?: SubscriptionRecord; applied: boolean }> {
  const before = await findSubscription(db, state.id);
  if (before && before.eventAt > state.eventAt) return { before, applied: false };
  const values = {
    user_id: state.userId,
    customer_id: state.customerId,
    plan_type: state.planType,
    status: state.status,
    current_period_end: state.currentPeriodEnd,
    cancel_at_period_end: state.cancelAtPeriodEnd ? 1 : 0,
    past_due_since: state.pastDueSince,
    event_at: state.eventAt,
    updated_at: now.toISOString(),
  };
  if (before) await db.updateTable('payment_subscriptions').set(values).where('id', '=', state.id).execute();
  else {
    try {
      await db
        .insertInto('payment_subscriptions')
        .values({ id: state.id, ...values, created_at: now.toISOString() })
        .execute();
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // Recorded meanwhile by the route that created it, or another event: the newer one stands.
      return saveSubscription(db, state, now);
    }
  }
  return { before, applied: true };
}
