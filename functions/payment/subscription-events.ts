import type { Transaction } from 'kysely';
import type Stripe from 'stripe';
import type { Plan } from '../../shared/auth/access-token';
import type { Email } from '../../shared/mail/mailer';
import { isPlan } from '../../shared/plan-ids';
import { paymentFailedEmail, planEndingEmail } from './billing-emails';
import type { PaymentNeeds } from './context';
import type { PaymentTables } from './db/tables';
import { findPayment, standingPayment } from './payments';
import { inlineSyncGraceMs } from './plan-sync';
import { askStripe } from './stripe-client';
import { customerEmail, findSubscription, saveSubscription, type SubscriptionRecord } from './subscription-records';

/**
 * Stripe Billing's events and what they do to the plan. Only a paid invoice grants a plan (the
 * renewal moves the period on; an upgrade's proration invoice raises the plan at once); a failed
 * renewal keeps the plan for the grace period; a cancellation or a deleted subscription changes
 * nothing before the end of what was paid, which then simply passes (identity reads an ended
 * period as free). Refunds and chargebacks of invoice payments follow the one-off rules
 * (webhook-events.ts), as each paid invoice is recorded as a payment under its PaymentIntent.
 */

/** What a billing event says, with what had to be asked of Stripe before the transaction. */
export type BillingFact =
  | { kind: 'invoice_paid'; invoice: Stripe.Invoice; paymentId: string }
  | { kind: 'invoice_failed'; invoice: Stripe.Invoice }
  | { kind: 'subscription'; subscription: Stripe.Subscription; deleted: boolean }
  /** A PaymentIntent an invoice made: its invoice's events record it. */
  | { kind: 'invoice_intent'; paymentIntentId: string };

export interface BillingOutcome {
  action: 'applied' | 'stale' | 'ignored_type' | 'unattributable' | 'invoice_payment';
  paymentIntentId?: string;
  syncUserId?: string;
  /** A notice to send once the event is committed. */
  email?: Email;
}

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : value?.id);
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

function subscriptionIdOf(invoice: Stripe.Invoice): string | undefined {
  return idOf(invoice.parent?.subscription_details?.subscription as string | Stripe.Subscription | undefined);
}

/** The end of the period an invoice paid for: the latest end among its lines (a proration's lines end with the period). */
const invoicePeriodEnd = (invoice: Stripe.Invoice) => iso(Math.max(...invoice.lines.data.map((line) => line.period.end), invoice.period_end));

/**
 * The Stripe reads an event needs before it is recorded: a paid invoice's PaymentIntent (refunds
 * and disputes name it), and whether a PaymentIntent without our metadata is an invoice's. Answers
 * undefined for an event that is not Stripe Billing's.
 */
export async function billingFact(ctx: PaymentNeeds<'stripe' | 'log'>, event: Stripe.Event): Promise<BillingFact | undefined> {
  switch (event.type) {
    case 'invoice.paid': {
      const invoice = event.data.object;
      if (!subscriptionIdOf(invoice)) return undefined;
      const payments = await askStripe(ctx.log, "finding a paid invoice's payment", () =>
        ctx.stripe.invoicePayments.list({ invoice: invoice.id!, status: 'paid', limit: 1 }),
      );
      const intent = payments.data[0]?.payment.payment_intent;
      // Nothing was charged (a credit paid it): the invoice itself is the payment.
      return { kind: 'invoice_paid', invoice, paymentId: idOf(intent as string | Stripe.PaymentIntent | undefined) ?? invoice.id! };
    }
    case 'invoice.payment_failed':
      return subscriptionIdOf(event.data.object) ? { kind: 'invoice_failed', invoice: event.data.object } : undefined;
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return { kind: 'subscription', subscription: event.data.object, deleted: event.type === 'customer.subscription.deleted' };
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed': {
      const intent = event.data.object;
      if (intent.metadata?.userId) return undefined;
      const payments = await askStripe(ctx.log, "finding a payment intent's invoice", () =>
        ctx.stripe.invoicePayments.list({ payment: { type: 'payment_intent', payment_intent: intent.id }, limit: 1 }),
      );
      return payments.data.length ? { kind: 'invoice_intent', paymentIntentId: intent.id } : undefined;
    }
    default:
      return undefined;
  }
}

/** The payment a billing fact is about, recorded with its event row. */
export function billingPaymentId(fact: BillingFact): string | undefined {
  if (fact.kind === 'invoice_paid') return fact.paymentId;
  return fact.kind === 'invoice_intent' ? fact.paymentIntentId : undefined;
}

type Recorder = PaymentNeeds<'now' | 'config' | 'log' | 'plans'>;

/** Records a billing fact in the event's transaction. */
export async function recordBilling(ctx: Recorder, trx: Transaction<PaymentTables>, fact: BillingFact, at: string, now: string): Promise<BillingOutcome> {
  switch (fact.kind) {
    case 'invoice_intent':
      return { action: 'invoice_payment', paymentIntentId: fact.paymentIntentId };
    case 'invoice_paid':
      return invoicePaid(ctx, trx, fact.invoice, fact.paymentId, at, now);
    case 'invoice_failed':
      return invoiceFailed(ctx, trx, fact.invoice, at, now);
    case 'subscription':
      return subscriptionChanged(ctx, trx, fact.subscription, fact.deleted, at, now);
  }
}

/** Whose subscription and which plan: our record of it, else the metadata the route set (userId, planType). */
function ownerOf(record: SubscriptionRecord | undefined, metadata: Stripe.Metadata | null | undefined): { userId?: string; planType?: Plan } {
  const planType = metadata?.planType;
  return { userId: record?.userId ?? metadata?.userId, planType: isPlan(planType) && planType !== 'free' ? planType : record?.planType };
}

/** A plan sync due to the webhook that records it, left to the timer after the inline grace (as every event's). */
function pendingSync(ctx: Recorder, now: string) {
  return {
    sync_state: 'pending' as const,
    sync_attempts: 0,
    sync_error: null,
    sync_next_at: new Date(Date.parse(now) + inlineSyncGraceMs(ctx.config)).toISOString(),
  };
}

async function invoicePaid(
  ctx: Recorder,
  trx: Transaction<PaymentTables>,
  invoice: Stripe.Invoice,
  paymentId: string,
  at: string,
  now: string,
): Promise<BillingOutcome> {
  const subscriptionId = subscriptionIdOf(invoice)!;
  const record = await findSubscription(trx, subscriptionId);
  const { userId, planType } = ownerOf(record, invoice.parent?.subscription_details?.metadata);
  if (!userId || !planType) {
    ctx.log.error('MANUAL REVIEW: a paid invoice of a subscription this service cannot attribute (no userId/planType); plan not changed', {
      invoiceId: invoice.id,
      subscriptionId,
      category: 'manual_review',
    });
    return { action: 'unattributable', paymentIntentId: paymentId };
  }
  if (await findPayment(trx, paymentId)) return { action: 'stale', paymentIntentId: paymentId };
  const periodEnd = invoicePeriodEnd(invoice);
  await trx
    .insertInto('payment_payments')
    .values({
      id: paymentId,
      user_id: userId,
      plan_type: planType,
      amount: invoice.amount_paid,
      currency: invoice.currency,
      price_version: null,
      status: 'succeeded',
      status_at: at,
      failure_message: null,
      source: 'subscription',
      period_end: periodEnd,
      invoice_id: invoice.id!,
      subscription_id: subscriptionId,
      amount_refunded: 0,
      sync_plan: planType,
      created_at: now,
      updated_at: now,
      ...pendingSync(ctx, now),
    })
    .execute();
  // Paid: the subscription is active with this period, and nothing is owed any more.
  await saveSubscription(
    trx,
    {
      id: subscriptionId,
      userId,
      customerId: idOf(invoice.customer as string | Stripe.Customer)!,
      planType: record?.planType ?? planType,
      status: 'active',
      currentPeriodEnd: record?.currentPeriodEnd && record.currentPeriodEnd > periodEnd ? record.currentPeriodEnd : periodEnd,
      cancelAtPeriodEnd: record?.cancelAtPeriodEnd ?? false,
      pastDueSince: null,
      eventAt: at,
    },
    new Date(now),
  );
  ctx.log.info('subscription invoice paid; the plan runs to the end of its period', {
    userId,
    planType,
    invoiceId: invoice.id,
    periodEnd,
    billingReason: invoice.billing_reason,
  });
  return { action: 'applied', paymentIntentId: paymentId, syncUserId: userId };
}

/**
 * A renewal that could not be charged: the subscription is past due, and the plan is kept until the
 * grace period after the first failure ends (the standing payment of this subscription runs until
 * then), while Stripe retries the card; the user is e-mailed once. A failed first payment grants
 * nothing and takes nothing: the subscription never started.
 */
async function invoiceFailed(ctx: Recorder, trx: Transaction<PaymentTables>, invoice: Stripe.Invoice, at: string, now: string): Promise<BillingOutcome> {
  const subscriptionId = subscriptionIdOf(invoice)!;
  const record = await findSubscription(trx, subscriptionId);
  if (!record || invoice.billing_reason === 'subscription_create') return { action: 'applied' };
  const firstFailure = !record.pastDueSince;
  const pastDueSince = record.pastDueSince ?? at;
  await saveSubscription(trx, { ...record, status: 'past_due', pastDueSince, eventAt: record.eventAt > at ? record.eventAt : at }, new Date(now));
  const graceEnd = new Date(Date.parse(pastDueSince) + ctx.config.PAYMENT_GRACE_DAYS * 24 * 60 * 60 * 1000).toISOString();
  const standing = await standingPayment(trx, record.userId);
  let syncUserId: string | undefined;
  if (standing?.subscriptionId === subscriptionId && standing.periodEnd !== null && standing.periodEnd < graceEnd) {
    await trx
      .updateTable('payment_payments')
      .set({ period_end: graceEnd, updated_at: now, ...pendingSync(ctx, now) })
      .where('id', '=', standing.id)
      .execute();
    syncUserId = record.userId;
  }
  ctx.log.warn('subscription renewal failed; the plan is kept through the grace period', {
    userId: record.userId,
    subscriptionId,
    invoiceId: invoice.id,
    graceEnd,
  });
  const to = firstFailure ? (invoice.customer_email ?? (await customerEmail(trx, record.customerId))) : undefined;
  return { action: 'applied', syncUserId, ...(to ? { email: paymentFailedEmail(to, record.planType, graceEnd) } : {}) };
}

/**
 * A subscription's new state: status, period, a cancellation at the period end. None of it moves
 * the plan (only money does): a cancelled or deleted subscription keeps what was paid until its
 * period ends. The user is told once when their plan will end.
 */
async function subscriptionChanged(
  ctx: Recorder,
  trx: Transaction<PaymentTables>,
  subscription: Stripe.Subscription,
  deleted: boolean,
  at: string,
  now: string,
): Promise<BillingOutcome> {
  const before = await findSubscription(trx, subscription.id);
  const { userId, planType } = ownerOf(before, subscription.metadata);
  if (!userId || !planType) {
    ctx.log.warn('subscription event for a subscription this service did not create; acknowledged without action', { subscriptionId: subscription.id });
    return { action: 'unattributable' };
  }
  const item = subscription.items.data[0];
  const periodEnd = item ? iso(item.current_period_end) : (before?.currentPeriodEnd ?? null);
  const ending = deleted || subscription.cancel_at_period_end || subscription.cancel_at !== null;
  const { applied } = await saveSubscription(
    trx,
    {
      id: subscription.id,
      userId,
      customerId: idOf(subscription.customer as string | Stripe.Customer)!,
      planType,
      status: deleted ? 'canceled' : subscription.status,
      currentPeriodEnd: periodEnd,
      cancelAtPeriodEnd: ending,
      pastDueSince: subscription.status === 'past_due' || (deleted && before?.pastDueSince) ? (before?.pastDueSince ?? at) : null,
      eventAt: at,
    },
    new Date(now),
  );
  if (!applied) return { action: 'stale' };
  const wasEnding = before ? before.cancelAtPeriodEnd || before.status === 'canceled' : false;
  if (!ending || wasEnding) return { action: 'applied' };
  const standing = await standingPayment(trx, userId);
  const endsAt = standing?.subscriptionId === subscription.id ? standing.periodEnd : null;
  ctx.log.info('subscription cancelled; the plan is kept to the end of what was paid', { userId, subscriptionId: subscription.id, deleted, endsAt });
  if (!endsAt || Date.parse(endsAt) <= Date.parse(now)) return { action: 'applied' };
  const to = await customerEmail(trx, before?.customerId ?? String(idOf(subscription.customer as string | Stripe.Customer)));
  return { action: 'applied', ...(to ? { email: planEndingEmail(to, planType, endsAt) } : {}) };
}
