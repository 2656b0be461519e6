import type Stripe from 'stripe';
import type { Account, Ctx, SubscriptionRecord } from './account';
import { subscriptionView } from './expand';

/**
 * What a subscription is, and the one event that says what became of it: an operation (an update,
 * a payment of its invoice, a renewal) changes the subscription, raising its invoice events as it
 * goes, and then one `customer.subscription.updated` with the fields that changed as they were
 * (`previous_attributes`), or `customer.subscription.deleted` when it ended.
 */

const ENDED: readonly string[] = ['canceled', 'incomplete_expired'];
export const hasEnded = (sub: Stripe.Subscription) => ENDED.includes(sub.status);

export const clockOf = (record: SubscriptionRecord) => (typeof record.sub.test_clock === 'string' ? record.sub.test_clock : null);

/** Runs `change` on the subscription, then raises the subscription's event for what changed (none if nothing did). */
export function changeSubscription<T>(ctx: Ctx, record: SubscriptionRecord, change: () => T): T {
  const before = subscriptionView(ctx.account, record);
  const result = change();
  const after = subscriptionView(ctx.account, record);
  if (!hasEnded(before) && hasEnded(after)) ctx.emit('customer.subscription.deleted', after, clockOf(record));
  else ctx.emitChanges('customer.subscription.updated', before, after, clockOf(record));
  return result;
}

/** The current period, as its (single) item carries it since API 2025-03-31. */
export function periodOf(record: SubscriptionRecord): { start: number; end: number } {
  const [item] = record.sub.items.data;
  return { start: item.current_period_start, end: item.current_period_end };
}

export function setPeriod(record: SubscriptionRecord, start: number, end: number): void {
  for (const item of record.sub.items.data) Object.assign(item, { current_period_start: start, current_period_end: end });
}

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/**
 * The `k`-th period boundary after `anchor` for a price billed every `count` `interval`s: months
 * and years keep the anchor's day of the month and time of day, on the month's last day when it is
 * shorter (an anchor on 31 January renews on 28 or 29 February, then on 31 March), as Stripe bills.
 */
export function boundary(anchor: number, recurring: Pick<Stripe.Price.Recurring, 'interval' | 'interval_count'>, k: number): number {
  const steps = k * recurring.interval_count;
  if (recurring.interval === 'day') return anchor + steps * 86_400;
  if (recurring.interval === 'week') return anchor + steps * 7 * 86_400;
  const start = new Date(anchor * 1000);
  const months = start.getUTCMonth() + steps * (recurring.interval === 'year' ? 12 : 1);
  const year = start.getUTCFullYear() + Math.floor(months / 12);
  const month = ((months % 12) + 12) % 12;
  const day = Math.min(start.getUTCDate(), daysInMonth(year, month));
  return Date.UTC(year, month, day, start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds()) / 1000;
}

export const recurringOf = (record: SubscriptionRecord): Stripe.Price.Recurring => record.sub.items.data[0].price.recurring!;

/** The open invoices of a subscription stop being collected (Stripe stops collecting when a subscription is canceled). */
function stopCollecting(account: Account, record: SubscriptionRecord): void {
  for (const inv of account.invoices.values()) {
    const parent = inv.invoice.parent?.subscription_details?.subscription;
    if (parent === record.sub.id && inv.invoice.status === 'open') Object.assign(inv.invoice, { auto_advance: false, next_payment_attempt: null });
  }
}

/** Ends the subscription now: canceled, collection of its open invoices stopped. */
export function endSubscription(account: Account, record: SubscriptionRecord, reason: Stripe.Subscription.CancellationDetails.Reason, now: number): void {
  const sub = record.sub;
  sub.status = 'canceled';
  sub.ended_at = now;
  sub.canceled_at ??= now;
  sub.cancel_at = null;
  sub.cancellation_details = { ...(sub.cancellation_details ?? noCancellation()), reason };
  stopCollecting(account, record);
}

/** `cancel_at_period_end`: set, the subscription ends when its period does (`cancel_at`); cleared, it renews again. */
export function scheduleCancel(
  record: SubscriptionRecord,
  atPeriodEnd: boolean,
  now: number,
  details: Partial<Stripe.Subscription.CancellationDetails> = {},
): void {
  const sub = record.sub;
  if (atPeriodEnd === sub.cancel_at_period_end) return;
  sub.cancel_at_period_end = atPeriodEnd;
  sub.cancel_at = atPeriodEnd ? periodOf(record).end : null;
  sub.canceled_at = atPeriodEnd ? now : null;
  sub.cancellation_details = atPeriodEnd ? { ...noCancellation(), ...details, reason: 'cancellation_requested' } : noCancellation();
}

export const noCancellation = (): Stripe.Subscription.CancellationDetails => ({ comment: null, feedback: null, feedback_option: null, reason: null });
