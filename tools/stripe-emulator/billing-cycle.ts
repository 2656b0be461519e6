import type Stripe from 'stripe';
import type { Ctx, SubscriptionRecord } from './account';
import { newId } from './errors';
import { createInvoice, lineItem, type LineSpec } from './invoice-objects';
import { collect, finalizeInvoice } from './invoices';
import { boundary, clockOf, endSubscription, periodOf, recurringOf, setPeriod } from './subscription-state';

/**
 * What a subscription is charged, and when: a new price mid-period (Stripe's proration of the
 * time left, on the next invoice or invoiced now), a new billing cycle (a change of interval, or
 * `billing_cycle_anchor: { type: 'now' }`: a new period from now, invoiced now), and the end of a
 * period (renewed and charged, or ended when it was to cancel).
 */

export function planOf(price: Stripe.Price): Stripe.Plan {
  return {
    id: price.id,
    object: 'plan',
    active: price.active,
    amount: price.unit_amount,
    amount_decimal: price.unit_amount_decimal,
    billing_scheme: 'per_unit',
    created: price.created,
    currency: price.currency,
    interval: price.recurring!.interval,
    interval_count: price.recurring!.interval_count,
    livemode: false,
    metadata: price.metadata,
    meter: null,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: null,
    usage_type: 'licensed',
  };
}

export interface ItemChange {
  price: Stripe.Price;
  quantity: number;
  /** The item was deleted and a new one added (`[{ id, deleted: true }, { price }]`): a new item id. */
  replaced: boolean;
}

export const amountOf = (price: Stripe.Price, quantity: number) => (price.unit_amount ?? 0) * quantity;

interface PlanChange {
  next: ItemChange;
  lines: LineSpec[];
  /** A new period starts at `at` (a new interval, or `billing_cycle_anchor: { type: 'now' }`), ending at `end`. */
  reset?: { at: number; end: number };
  invoiceNow: boolean;
}

/** What a change of price (or of billing cycle) costs at `at`: Stripe's proration of the period left, or a new period. */
export function planChange(record: SubscriptionRecord, change: ItemChange | undefined, anchorNow: boolean, proration: string, at: number): PlanChange {
  const item = record.sub.items.data[0];
  const old = { price: item.price, quantity: item.quantity ?? 1 };
  const next = change ?? { ...old, replaced: false };
  const { start, end } = periodOf(record);
  const newInterval =
    old.price.recurring!.interval !== next.price.recurring!.interval || old.price.recurring!.interval_count !== next.price.recurring!.interval_count;
  const prorate = proration !== 'none';
  const left = (end - at) / (end - start);
  const lines: LineSpec[] = [];
  const priced = next.price.id !== old.price.id || next.quantity !== old.quantity;
  if (prorate && (priced || anchorNow || newInterval) && at < end && amountOf(old.price, old.quantity) > 0)
    lines.push({ ...old, amount: -Math.round(amountOf(old.price, old.quantity) * left), period: { start: at, end }, proration: 'unused' });
  if (anchorNow || newInterval) {
    const newEnd = boundary(at, next.price.recurring!, 1);
    lines.push({ ...next, amount: amountOf(next.price, next.quantity), period: { start: at, end: newEnd } });
    return { next, lines, reset: { at, end: newEnd }, invoiceNow: true };
  }
  if (prorate && priced && at < end)
    lines.push({ ...next, amount: Math.round(amountOf(next.price, next.quantity) * left), period: { start: at, end }, proration: 'remaining' });
  return { next, lines, invoiceNow: proration === 'always_invoice' };
}

export function applyPlanChange(ctx: Ctx, record: SubscriptionRecord, plan: PlanChange, behaviour: string, at: number): void {
  const sub = record.sub;
  const item = sub.items.data[0];
  const lines = plan.lines.map((spec) => lineItem(ctx, record, spec));
  Object.assign(item, { price: structuredClone(plan.next.price), plan: planOf(plan.next.price), quantity: plan.next.quantity });
  if (plan.next.replaced) item.id = newId('si');
  if (plan.reset) {
    Object.assign(record, { anchor: plan.reset.at, cycle: 0 });
    sub.billing_cycle_anchor = plan.reset.at;
    setPeriod(record, plan.reset.at, plan.reset.end);
    if (sub.cancel_at_period_end) sub.cancel_at = plan.reset.end;
  }
  if (!plan.invoiceNow) {
    record.pending.push(...lines);
    return;
  }
  if (!lines.length && !record.pending.length) return;
  const inv = createInvoice(ctx, record, [...record.pending, ...lines], 'subscription_update', { start: at, end: at });
  record.pending = [];
  finalizeInvoice(ctx, inv);
  if (inv.invoice.status !== 'open') return;
  if (behaviour !== 'default_incomplete') collect(ctx, inv);
  else if (sub.status === 'active') sub.status = 'past_due';
}

/**
 * The subscription's period ends (a test clock reached it): it ends if it was to cancel, else a new
 * period starts, invoiced (`subscription_cycle`, with the prorations waiting) and charged to the
 * default payment method (not attempted while `unpaid`, as Stripe).
 */
export function reachPeriodEnd(ctx: Ctx, record: SubscriptionRecord): void {
  const sub = record.sub;
  const now = ctx.account.time(clockOf(record));
  if (sub.cancel_at !== null && sub.cancel_at <= now) {
    endSubscription(ctx.account, record, sub.cancellation_details?.reason ?? 'cancellation_requested', now);
    return;
  }
  const { start, end } = periodOf(record);
  record.cycle += 1;
  const nextEnd = boundary(record.anchor, recurringOf(record), record.cycle + 1);
  setPeriod(record, end, nextEnd);
  const item = sub.items.data[0];
  const quantity = item.quantity ?? 1;
  const line = lineItem(ctx, record, { amount: amountOf(item.price, quantity), price: item.price, quantity, period: { start: end, end: nextEnd } });
  const inv = createInvoice(ctx, record, [...record.pending, line], 'subscription_cycle', { start, end });
  record.pending = [];
  finalizeInvoice(ctx, inv);
  if (sub.status !== 'unpaid') collect(ctx, inv);
}
