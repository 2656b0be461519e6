import { randomUUID } from 'node:crypto';
import type Stripe from 'stripe';
import type { LiveUser } from '../../shared/auth/live-session';
import { serviceUrl } from '../../shared/config';
import { badRequest, Code, conflict, notFound } from '../../shared/http/errors';
import type { Infer } from '../../shared/http/schemas';
import type { PlanDefinition } from '../../shared/plans';
import type { PaymentNeeds } from './context';
import { recentPaymentsOf } from './payments';
import type * as s from './schemas';
import { askStripe } from './stripe-client';
import { findCustomer, graceEndOf, insertCustomer, liveSubscriptionOf, saveSubscription, subscriptionsOf } from './subscription-records';

/**
 * Subscriptions on Stripe Billing for the signed-in user: a Stripe Customer per user, monthly and
 * yearly prices made from the plan table, a subscription confirmed by the client as a payment intent
 * is, plan changes, cancellation at the period end, the Customer Portal and the billing summary.
 */

type Billing = PaymentNeeds<'db' | 'stripe' | 'now' | 'log' | 'plans' | 'config'>;
export type Interval = 'month' | 'year';

/** A year costs ten months: two months free for paying ahead. */
export const YEARLY_MONTHS = 10;

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** A paid plan of the plan table, or 400 as the one-off checkout answers. */
function purchasable(ctx: Pick<Billing, 'plans'>, planType: string): PlanDefinition {
  const plan = ctx.plans.find((p) => p.id === planType);
  if (!plan) throw badRequest(`Unknown planType "${planType}"; expected pro or enterprise`, Code.UNKNOWN_PLAN);
  if (plan.price === 0) throw badRequest(`The ${plan.id} plan cannot be purchased`, Code.PLAN_NOT_PURCHASABLE);
  return plan;
}

/**
 * The user's Stripe Customer (e-mail set, so Stripe sends receipts and invoices; `metadata.userId`):
 * our record, else one found at Stripe by its metadata (made by an operator, or before our record
 * was written), else made now with an idempotency key per user, so two first checkouts make one.
 */
export async function ensureCustomer(ctx: Billing, user: LiveUser): Promise<string> {
  const known = await findCustomer(ctx.db, user.id);
  if (known) return known.customerId;
  const found = await askStripe(ctx.log, 'searching the customer', () => ctx.stripe.customers.search({ query: `metadata['userId']:'${user.id}'`, limit: 1 }));
  const customer =
    found.data[0] ??
    (await askStripe(ctx.log, 'creating the customer', () =>
      ctx.stripe.customers.create({ email: user.email, metadata: { userId: user.id } }, { idempotencyKey: `customer-${user.id}` }),
    ));
  await insertCustomer(ctx.db, { userId: user.id, customerId: customer.id, email: user.email }, ctx.now());
  return customer.id;
}

/** The lookup key of a plan's recurring price: a new price version is a new price, so a price change never reprices existing subscriptions. */
export const priceKey = (plan: PlanDefinition, interval: Interval) => `report-platform:${plan.id}:${interval}:${plan.priceVersion}`;

/** The recurring price of a plan, found by its lookup key, else made from the plan table (its product named after the plan). */
export async function ensurePrice(ctx: Billing, plan: PlanDefinition, interval: Interval): Promise<Stripe.Price> {
  const key = priceKey(plan, interval);
  const found = await askStripe(ctx.log, 'finding the price', () => ctx.stripe.prices.list({ lookup_keys: [key], active: true, limit: 1 }));
  if (found.data[0]) return found.data[0];
  return askStripe(ctx.log, 'creating the price', () =>
    ctx.stripe.prices.create(
      {
        currency: plan.currency,
        unit_amount: interval === 'year' ? plan.price * YEARLY_MONTHS : plan.price,
        recurring: { interval },
        lookup_key: key,
        metadata: { planType: plan.id, priceVersion: plan.priceVersion },
        product_data: { name: `${plan.name} plan`, metadata: { planType: plan.id } },
      },
      { idempotencyKey: `price-${key}` },
    ),
  );
}

/**
 * Subscribes the signed-in user the way Stripe recommends for a custom card form: the subscription
 * is created incomplete (`default_incomplete`) and answers its first invoice's client secret, which
 * the client confirms exactly as a payment intent's; it turns active when paid (invoice.paid grants
 * the plan). A user already billed by a subscription changes it instead (409).
 */
export async function createSubscription(ctx: Billing, user: LiveUser, body: Infer<typeof s.SUBSCRIBE_BODY.schema>, clientKey: string | null) {
  const plan = purchasable(ctx, body.planType);
  const interval = body.interval ?? 'month';
  const live = await liveSubscriptionOf(ctx.db, user.id);
  if (live && live.status !== 'incomplete')
    throw conflict(`You already have a ${live.planType} subscription (${live.status}); change its plan or cancel it`, Code.SUBSCRIPTION_EXISTS, {
      subscriptionId: live.id,
    });
  const customer = await ensureCustomer(ctx, user);
  const price = await ensurePrice(ctx, plan, interval);
  const subscription = await askStripe(ctx.log, 'creating the subscription', () =>
    ctx.stripe.subscriptions.create(
      {
        customer,
        items: [{ price: price.id }],
        payment_behavior: 'default_incomplete',
        payment_settings: { save_default_payment_method: 'on_subscription', payment_method_types: ['card'] },
        metadata: { userId: user.id, planType: plan.id },
        expand: ['latest_invoice.confirmation_secret'],
      },
      { idempotencyKey: `create-sub:${user.id}:${plan.id}:${interval}:${plan.priceVersion}:${clientKey ?? randomUUID()}` },
    ),
  );
  await saveSubscription(
    ctx.db,
    {
      id: subscription.id,
      userId: user.id,
      customerId: customer,
      planType: plan.id,
      status: subscription.status,
      currentPeriodEnd: subscription.items.data[0] ? iso(subscription.items.data[0].current_period_end) : null,
      cancelAtPeriodEnd: false,
      pastDueSince: null,
      eventAt: iso(subscription.created),
    },
    ctx.now(),
  );
  const invoice = subscription.latest_invoice as Stripe.Invoice | null;
  ctx.log.info('subscription created', { userId: user.id, planType: plan.id, interval, subscriptionId: subscription.id });
  return {
    subscriptionId: subscription.id,
    status: subscription.status,
    clientSecret: invoice?.confirmation_secret?.client_secret ?? null,
    invoiceId: invoice?.id ?? null,
    amount: invoice?.amount_due ?? price.unit_amount ?? 0,
    currency: price.currency,
    planType: plan.id,
    interval,
  };
}

/** The user's subscription that bills them, or 404. */
async function liveOf(ctx: Billing, user: LiveUser) {
  const live = await liveSubscriptionOf(ctx.db, user.id);
  if (!live || live.status === 'incomplete') throw notFound('You have no subscription to change', Code.NO_SUBSCRIPTION);
  return live;
}

/**
 * A plan change: an upgrade at once, with Stripe's proration invoiced now (its payment raises the
 * plan through invoice.paid); a downgrade at the period end (no proration: the period paid for runs
 * on the plan it was paid for, the next invoice bills the new price and its payment sets the plan).
 */
export async function changeSubscription(ctx: Billing, user: LiveUser, body: Infer<typeof s.CHANGE_PLAN_BODY.schema>) {
  const live = await liveOf(ctx, user);
  const plan = purchasable(ctx, body.planType);
  if (plan.id === live.planType && !body.interval) return { subscriptionId: live.id, planType: plan.id, change: 'none' as const, status: live.status };
  const current = await askStripe(ctx.log, 'reading the subscription', () => ctx.stripe.subscriptions.retrieve(live.id));
  const item = current.items.data[0];
  const interval = body.interval ?? (item?.price.recurring?.interval as Interval | undefined) ?? 'month';
  const price = await ensurePrice(ctx, plan, interval);
  const rank = (id: string) => ctx.plans.findIndex((p) => p.id === id);
  const upgrade = rank(plan.id) > rank(live.planType);
  const updated = await askStripe(ctx.log, 'changing the subscription', () =>
    ctx.stripe.subscriptions.update(live.id, {
      items: [{ id: item.id, price: price.id }],
      proration_behavior: upgrade ? 'always_invoice' : 'none',
      payment_behavior: upgrade ? 'error_if_incomplete' : undefined,
      metadata: { userId: user.id, planType: plan.id },
      cancel_at_period_end: false,
    }),
  );
  ctx.log.info('subscription plan changed', { userId: user.id, subscriptionId: live.id, from: live.planType, to: plan.id, upgrade });
  return {
    subscriptionId: updated.id,
    planType: plan.id,
    change: upgrade ? ('upgrade_now' as const) : ('downgrade_at_period_end' as const),
    status: updated.status,
  };
}

/** Cancels at the period end: the plan is kept until the end of what was paid, then free; Stripe sends customer.subscription.updated. */
export async function cancelSubscription(ctx: Billing, user: LiveUser) {
  const live = await liveOf(ctx, user);
  const updated = await askStripe(ctx.log, 'cancelling the subscription', () => ctx.stripe.subscriptions.update(live.id, { cancel_at_period_end: true }));
  const item = updated.items.data[0];
  return { subscriptionId: updated.id, cancelAtPeriodEnd: updated.cancel_at_period_end, endsAt: item ? iso(item.current_period_end) : live.currentPeriodEnd };
}

/** A Stripe Customer Portal session (cancel, change card, invoices), returning to the console's billing page. */
export async function portalSession(ctx: Billing, user: LiveUser, body: Infer<typeof s.PORTAL_BODY.schema>) {
  const customer = await findCustomer(ctx.db, user.id);
  if (!customer) throw notFound('You have no billing account yet: subscribe first', Code.NO_BILLING_ACCOUNT);
  const session = await askStripe(ctx.log, 'opening the customer portal', () =>
    ctx.stripe.billingPortal.sessions.create({ customer: customer.customerId, return_url: body?.returnUrl ?? `${serviceUrl('payment', ctx.config)}/billing` }),
  );
  return { url: session.url };
}

/**
 * The signed-in user's billing: their subscription (renewal or cancellation, past due and until
 * when the plan is kept), their payments and Stripe's invoices (number, amount, status, hosted
 * page, PDF). The plan itself, its period end and the reports left are the caller's (identity's
 * and the orchestrator's), joined by the route.
 */
export async function billingOf(ctx: Billing, user: LiveUser) {
  const [subscription] = await subscriptionsOf(ctx.db, user.id, 1);
  const customer = await findCustomer(ctx.db, user.id);
  const invoices = customer
    ? (await askStripe(ctx.log, 'listing invoices', () => ctx.stripe.invoices.list({ customer: customer.customerId, limit: 24 }))).data.map((invoice) => ({
        id: invoice.id!,
        number: invoice.number,
        status: invoice.status,
        amountDue: invoice.amount_due,
        amountPaid: invoice.amount_paid,
        currency: invoice.currency,
        created: iso(invoice.created),
        hostedInvoiceUrl: invoice.hosted_invoice_url ?? null,
        invoicePdf: invoice.invoice_pdf ?? null,
      }))
    : [];
  const graceDays = ctx.config.PAYMENT_GRACE_DAYS;
  return {
    subscription: subscription
      ? {
          id: subscription.id,
          planType: subscription.planType,
          status: subscription.status,
          currentPeriodEnd: subscription.currentPeriodEnd,
          cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
          renews: subscription.status === 'active' && !subscription.cancelAtPeriodEnd,
          pastDueSince: subscription.pastDueSince,
          graceEndsAt: graceEndOf(subscription.pastDueSince, graceDays),
        }
      : null,
    payments: (await recentPaymentsOf(ctx.db, user.id, 24)).map((p) => ({
      id: p.id,
      planType: p.planType,
      source: p.source,
      amount: p.amount,
      currency: p.currency,
      status: p.status,
      at: p.statusAt,
      periodEnd: p.periodEnd,
      refunded: p.refund.amount,
      dispute: p.dispute.status,
    })),
    invoices,
  };
}
