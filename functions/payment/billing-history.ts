import type Stripe from 'stripe';
import type { Plan } from '../../shared/auth/access-token';
import { page, toIso } from '../../shared/sql/dialect';
import type { PaymentNeeds } from './context';
import type { SyncState } from './db/tables';
import { recentPaymentsOf, toPayment, type Payment } from './payments';
import { askStripe } from './stripe-client';
import { findCustomer, graceEndOf, subscriptionsOf, type SubscriptionRecord } from './subscription-records';

/**
 * What the console shows an operator about a user's money (issue 50, item 8): the billing timeline
 * of one user, and the accounts that need a person (a renewal past due, a chargeback open). Read
 * only: every fact comes from payment's own records, and the invoices and billing intervals from
 * Stripe, which may be down without taking the rest of the answer with it.
 */

type Reader = PaymentNeeds<'db' | 'stripe' | 'now' | 'log' | 'config'>;

/** How many of each record the timeline reads: a few years of monthly billing. */
export const TIMELINE_DEPTH = 50;

/** What a fact did to the plan, where payment recorded it: the plan it pushed to identity and how that push stands. */
export interface PlanEffect {
  plan: Plan | null;
  /** The push's state; null for a fact that moved no plan. */
  sync: SyncState | null;
  note: string;
}

export interface TimelineEntry {
  at: string;
  kind: 'payment' | 'invoice' | 'subscription' | 'refund' | 'dispute';
  id: string;
  amount: number | null;
  currency: string | null;
  status: string;
  planType: Plan | null;
  /** A payment's or subscription's period end; null for the rest. */
  periodEnd: string | null;
  effect: PlanEffect | null;
  subscription: { interval: string | null; cancelAtPeriodEnd: boolean; pastDueSince: string | null; graceEndsAt: string | null } | null;
}

const SYNC_NOTES: Record<SyncState, string> = {
  not_required: 'owes identity nothing',
  pending: 'owed to identity (pending)',
  synced: 'pushed to identity',
  failed: 'owed to identity (the last push failed; retried)',
  manual_review: 'held in manual review',
  superseded: 'superseded by a newer fact; never pushed',
};

/**
 * A payment row keeps one plan sync: that of its newest fact (the success, or a full refund or a
 * dispute that moved the plan, which then rewrite status_at to their own time). So the effect is
 * told on the entry of that fact; an older fact of the same payment shows none, as none is kept.
 */
function newestFact(p: Payment): 'refund' | 'dispute' | 'payment' {
  if (p.dispute.at && p.statusAt === p.dispute.at) return 'dispute';
  if (p.status === 'refunded' && p.refund.at && p.statusAt === p.refund.at) return 'refund';
  return 'payment';
}

const effect = (p: Payment, note?: string): PlanEffect => ({ plan: p.sync.plan, sync: p.sync.state, note: note ?? SYNC_NOTES[p.sync.state] });
/** A fact recorded on the payment that moved no plan (a partial refund, a refund or dispute of a payment that decided nothing). */
const NO_CHANGE = (why: string): PlanEffect => ({ plan: null, sync: null, note: `no plan change: ${why}` });

/** The entries one payment row gives: its success (or failure), its refund, its dispute. */
function paymentEntries(p: Payment): TimelineEntry[] {
  const newest = newestFact(p);
  const base = { id: p.id, currency: p.currency, planType: p.planType, subscription: null };
  // A refund or dispute that moved the plan took over status_at; the purchase then dates from its
  // record, and never after that fact (Stripe's times are whole seconds, ours are not).
  const paidAt = newest === 'payment' ? (p.statusAt ?? p.createdAt) : [p.createdAt, p.statusAt!].sort()[0];
  const entries: TimelineEntry[] = [
    {
      ...base,
      at: paidAt,
      kind: 'payment',
      amount: p.amount,
      status: p.status === 'refunded' ? 'succeeded' : p.status,
      periodEnd: p.periodEnd,
      effect: newest === 'payment' && p.sync.state !== 'not_required' ? effect(p) : null,
    },
  ];
  if (p.refund.amount > 0 && p.refund.at) {
    const full = p.status === 'refunded';
    entries.push({
      ...base,
      at: p.refund.at,
      kind: 'refund',
      amount: p.refund.amount,
      status: full ? 'full' : 'partial',
      periodEnd: null,
      effect: newest === 'refund' ? effect(p) : NO_CHANGE(full ? 'a newer payment decides the plan' : 'a partial refund'),
    });
  }
  if (p.dispute.status && p.dispute.at) {
    entries.push({
      ...base,
      at: p.dispute.at,
      kind: 'dispute',
      amount: p.amount,
      status: p.dispute.status,
      periodEnd: null,
      effect: newest === 'dispute' ? effect(p) : NO_CHANGE('the payment decides no plan'),
    });
  }
  return entries;
}

/** A subscription as its newest event left it (payment keeps no older states), at that event's time. */
function subscriptionEntry(s: SubscriptionRecord, interval: string | null, graceDays: number): TimelineEntry {
  return {
    at: s.eventAt,
    kind: 'subscription',
    id: s.id,
    amount: null,
    currency: null,
    status: s.status,
    planType: s.planType,
    periodEnd: s.currentPeriodEnd,
    effect: null,
    subscription: { interval, cancelAtPeriodEnd: s.cancelAtPeriodEnd, pastDueSince: s.pastDueSince, graceEndsAt: graceEndOf(s.pastDueSince, graceDays) },
  };
}

const invoiceEntry = (invoice: Stripe.Invoice): TimelineEntry => ({
  at: new Date(invoice.created * 1000).toISOString(),
  kind: 'invoice',
  id: invoice.id!,
  amount: invoice.amount_due,
  currency: invoice.currency,
  status: invoice.status ?? 'draft',
  planType: null,
  periodEnd: null,
  effect: null,
  subscription: null,
});

/**
 * The customer's invoices and each subscription's interval, from Stripe (payment records neither).
 * Stripe down or not configured leaves them out and says so: the operator still sees every record.
 */
async function fromStripe(ctx: Reader, userId: string): Promise<{ available: boolean; invoices: Stripe.Invoice[]; intervals: Map<string, string> }> {
  const customer = await findCustomer(ctx.db, userId);
  if (!customer) return { available: true, invoices: [], intervals: new Map() };
  try {
    const [invoices, subscriptions] = await Promise.all([
      askStripe(ctx.log, 'listing invoices', () => ctx.stripe.invoices.list({ customer: customer.customerId, limit: TIMELINE_DEPTH })),
      askStripe(ctx.log, 'listing subscriptions', () => ctx.stripe.subscriptions.list({ customer: customer.customerId, status: 'all', limit: TIMELINE_DEPTH })),
    ]);
    const intervals = new Map<string, string>();
    for (const s of subscriptions.data) {
      const interval = s.items.data[0]?.price.recurring?.interval;
      if (interval) intervals.set(s.id, interval);
    }
    return { available: true, invoices: invoices.data, intervals };
  } catch (error) {
    ctx.log.warn('billing timeline: Stripe could not be read; invoices and intervals left out', { userId, error });
    return { available: false, invoices: [], intervals: new Map() };
  }
}

/**
 * GET payment/admin/users/{userId}/billing: the user's timeline, newest first. A user payment has
 * no record of (never paid, or unknown to identity) has an empty one: payment cannot tell them apart.
 */
export async function billingTimeline(ctx: Reader, userId: string) {
  const [payments, subscriptions, stripe] = await Promise.all([
    recentPaymentsOf(ctx.db, userId, TIMELINE_DEPTH),
    subscriptionsOf(ctx.db, userId, TIMELINE_DEPTH),
    fromStripe(ctx, userId),
  ]);
  const graceDays = ctx.config.PAYMENT_GRACE_DAYS;
  const subscriptionEntries = subscriptions.map((s) => subscriptionEntry(s, stripe.intervals.get(s.id) ?? null, graceDays));
  const entries = [...payments.flatMap(paymentEntries), ...subscriptionEntries, ...stripe.invoices.map(invoiceEntry)];
  // Newest first; at one instant the kinds keep a fixed order, so the list reads the same every time.
  const KIND_ORDER = ['dispute', 'refund', 'subscription', 'invoice', 'payment'];
  entries.sort((a, b) => b.at.localeCompare(a.at) || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.id.localeCompare(b.id));
  // The newest subscription (subscriptionsOf orders them so), summed up above the timeline.
  const [current] = subscriptionEntries;
  return {
    userId,
    generatedAt: ctx.now().toISOString(),
    stripeAvailable: stripe.available,
    subscription: current
      ? { id: current.id, planType: current.planType, status: current.status, currentPeriodEnd: current.periodEnd, ...current.subscription }
      : null,
    entries,
  };
}

export type AccountState = 'past_due' | 'disputed';

/**
 * GET payment/admin/accounts: the accounts that need a person, oldest trouble first (limit/offset).
 * past_due: subscriptions whose renewal failed, with the end of the grace period after which the
 * plan goes free. disputed: payments under an open chargeback (their plan suspended when they
 * decided it). Each names the user, for the console to link to their page.
 */
export async function accountsIn(ctx: PaymentNeeds<'db' | 'now' | 'config'>, state: AccountState, limit: number, offset: number) {
  // One more than the page, to know whether another page follows.
  const rows = state === 'past_due' ? await pastDue(ctx, limit + 1, offset) : await disputed(ctx, limit + 1, offset);
  return {
    state,
    generatedAt: ctx.now().toISOString(),
    limit,
    offset,
    nextOffset: rows.length > limit ? offset + limit : null,
    accounts: rows.slice(0, limit),
  };
}

async function pastDue(ctx: PaymentNeeds<'db' | 'now' | 'config'>, count: number, offset: number) {
  const rows = await page(
    ctx.db,
    ctx.db
      .selectFrom('payment_subscriptions as s')
      .leftJoin('payment_customers as c', 'c.user_id', 's.user_id')
      .select(['s.id', 's.user_id', 's.plan_type', 's.status', 's.past_due_since', 's.current_period_end', 'c.email'])
      .where('s.status', '=', 'past_due')
      .orderBy('s.past_due_since')
      .orderBy('s.id'),
    count,
    offset,
  ).execute();
  const now = ctx.now().toISOString();
  return rows.map((r) => {
    const since = toIso(r.past_due_since as string | Date | null);
    const graceEndsAt = graceEndOf(since, ctx.config.PAYMENT_GRACE_DAYS);
    return {
      userId: r.user_id,
      email: r.email ?? null,
      state: 'past_due' as const,
      since,
      planType: r.plan_type,
      subscriptionId: r.id,
      paymentIntentId: null,
      amount: null,
      currency: null,
      graceEndsAt,
      // After the grace the plan is free already (identity's period ended); Stripe may still retry the card.
      graceOver: graceEndsAt !== null && graceEndsAt <= now,
    };
  });
}

async function disputed(ctx: PaymentNeeds<'db'>, count: number, offset: number) {
  const rows = await page(
    ctx.db,
    ctx.db.selectFrom('payment_payments').selectAll().where('dispute_status', '=', 'open').orderBy('disputed_at').orderBy('id'),
    count,
    offset,
  ).execute();
  const emails = await emailsOf(ctx, [...new Set(rows.map((r) => r.user_id))]);
  return rows.map((row) => {
    const p = toPayment(row as Parameters<typeof toPayment>[0]);
    return {
      userId: p.userId,
      email: emails.get(p.userId) ?? null,
      state: 'disputed' as const,
      since: p.dispute.at,
      planType: p.planType,
      subscriptionId: p.subscriptionId,
      paymentIntentId: p.id,
      amount: p.amount,
      currency: p.currency,
      graceEndsAt: null,
      graceOver: false,
    };
  });
}

/** The e-mail payment knows a user by (their Stripe Customer's), for the list to be read without opening each page. */
async function emailsOf(ctx: PaymentNeeds<'db'>, userIds: string[]): Promise<Map<string, string>> {
  if (!userIds.length) return new Map();
  const rows = await ctx.db.selectFrom('payment_customers').select(['user_id', 'email']).where('user_id', 'in', userIds).execute();
  return new Map(rows.map((r) => [r.user_id, r.email]));
}
