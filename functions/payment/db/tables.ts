import type { Generated, Kysely } from 'kysely';
import type { Plan } from '../../../shared/auth/access-token';
import type { Timestamp } from '../../../shared/sql/tables';

export type DisputeStatus = 'open' | 'won' | 'lost';
export type PaymentSource = 'one_off' | 'subscription';
export type PaymentStatus = 'pending' | 'succeeded' | 'failed' | 'canceled' | 'refunded';
/**
 * not_required: nothing to push (pending or failed payment). pending: a plan must be pushed to
 * identity. synced: identity has it. failed: the last push failed, retried at sync_next_at.
 * manual_review: retries exhausted or the event contradicts the payment record. superseded: a
 * newer payment of the same user decided the plan, so this one must never be pushed.
 */
export type SyncState = 'not_required' | 'pending' | 'synced' | 'failed' | 'manual_review' | 'superseded';

export interface PaymentsTable {
  id: string;
  user_id: string;
  plan_type: Plan;
  amount: number;
  currency: string;
  price_version: string | null;
  status: PaymentStatus;
  /** Stripe's `created` of the event that set `status`: the order in which facts about payments happened. */
  status_at: Timestamp | null;
  failure_message: string | null;
  /** What Stripe refunded of the charge so far (cumulative, in the currency's minor unit); 0 when nothing was (migration 012). */
  amount_refunded: number;
  /** Stripe's `created` of the last refund recorded. */
  refunded_at: Timestamp | null;
  /** The chargeback: open, then won or lost (migration 013); null when the payment was never disputed. */
  dispute_status: DisputeStatus | null;
  /** Stripe's `created` of the last dispute event recorded. */
  disputed_at: Timestamp | null;
  /** Where the payment comes from (migration 015): a one-off purchase of one period, or a subscription's invoice; null before periods. */
  source: PaymentSource | null;
  /** When the period it paid for ends; null before periods (no end). */
  period_end: Timestamp | null;
  invoice_id: string | null;
  subscription_id: string | null;
  sync_state: SyncState;
  sync_plan: Plan | null;
  sync_attempts: number;
  sync_error: string | null;
  sync_next_at: Timestamp | null;
  synced_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The Stripe Customer of each user (migration 015), made once: receipts and invoices go to its e-mail. */
export interface CustomersTable {
  user_id: string;
  customer_id: string;
  email: string;
  created_at: Timestamp;
}

/** Each subscription as its newest event left it (migration 015). */
export interface SubscriptionsTable {
  id: string;
  user_id: string;
  customer_id: string;
  plan_type: Plan;
  /** Stripe's status: incomplete, active, past_due, canceled, unpaid, incomplete_expired... */
  status: string;
  current_period_end: Timestamp | null;
  /** 1 when the subscription ends at its period end (cancelled, kept until then). */
  cancel_at_period_end: number;
  /** When the first unpaid renewal failed; null when nothing is owed. The plan is kept for PAYMENT_GRACE_DAYS from then. */
  past_due_since: Timestamp | null;
  /** Stripe's `created` of the newest event applied: an older one changes nothing. */
  event_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookEventsTable {
  id: string;
  type: string;
  payment_intent_id: string | null;
  event_created: Timestamp;
  received_at: Timestamp;
}

export interface SyncLeasesTable {
  user_id: string;
  holder: string;
  expires_at: Timestamp;
}

export type ReviewDecision = 'approved' | 'rejected';

/** An operator's decision on a payment held in manual review (migration 011). */
export interface ReviewDecisionsTable {
  id: Generated<number>;
  payment_intent_id: string;
  user_id: string;
  /** The plan that was at stake (the payment's sync plan). */
  plan: Plan | null;
  decision: ReviewDecision;
  reason: string;
  /** Why the payment was in manual review when decided (its sync error then). */
  held_for: string | null;
  actor_id: string;
  actor_email: string;
  decided_at: Timestamp;
  request_id: string | null;
}

/** Payment's tables (migrations 004, 006, 011, 012, 013 and 015). */
export type PaymentTables = {
  payment_payments: PaymentsTable;
  payment_customers: CustomersTable;
  payment_subscriptions: SubscriptionsTable;
  payment_webhook_events: WebhookEventsTable;
  payment_sync_leases: SyncLeasesTable;
  payment_review_decisions: ReviewDecisionsTable;
};

/** The database as payment sees it: its own tables. */
export type PaymentDb = Kysely<PaymentTables>;
