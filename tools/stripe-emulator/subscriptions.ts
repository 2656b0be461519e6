import type Stripe from 'stripe';
import { type Ctx, type SubscriptionRecord } from './account';
import { invalid, newId, refuseUnknown, StripeApiError, unsupported, type Fields } from './errors';
import { render, subscriptionView } from './expand';
import { amountOf, applyPlanChange, planChange, planOf, type ItemChange } from './billing-cycle';
import { createInvoice, lineItem } from './invoice-objects';
import { collect, defaultMethodOf, finalizeInvoice } from './invoices';
import { array, boolean, integer, listOf, listParams, mergeMetadata, metadata, object, oneOf, required, text } from './params';
import { declines } from './payment-intents';
import type { Route } from './router';
import { boundary, changeSubscription, clockOf, endSubscription, hasEnded, noCancellation, periodOf, scheduleCancel } from './subscription-state';

/**
 * Subscriptions of one recurring price (one item), the way Stripe recommends for a custom card
 * form: `payment_behavior: 'default_incomplete'` leaves the first invoice open for the client to
 * confirm (`latest_invoice.confirmation_secret.client_secret`), the subscription `incomplete` until
 * it is paid, then `active`, the paying method saved as its default with
 * `payment_settings.save_default_payment_method: 'on_subscription'`. `allow_incomplete` (the
 * default) and `error_if_incomplete` charge the default payment method at once. Update: a new price
 * (`items: [{ id, price }]`) with Stripe's proration (`proration_behavior` create_prorations: on the
 * next invoice; always_invoice: an invoice now; none), a change of interval or
 * `billing_cycle_anchor: { type: 'now' }` starting a new period invoiced now, `cancel_at_period_end`, the
 * default payment method, metadata. Cancel now (`customer.subscription.deleted`), or at the period
 * end. Periods follow the customer's test clock (clocks.ts).
 */

const CREATE = [
  'customer',
  'items',
  'payment_behavior',
  'payment_settings',
  'default_payment_method',
  'metadata',
  'description',
  'off_session',
  'collection_method',
  'proration_behavior',
  'cancel_at_period_end',
  'expand',
];
const UPDATE = [
  'items',
  'payment_behavior',
  'payment_settings',
  'default_payment_method',
  'metadata',
  'description',
  'off_session',
  'proration_behavior',
  'proration_date',
  'billing_cycle_anchor',
  'cancel_at_period_end',
  'cancellation_details',
  'expand',
];
const BEHAVIOURS = ['allow_incomplete', 'default_incomplete', 'error_if_incomplete', 'pending_if_incomplete'] as const;

function recurringPrice(ctx: Ctx, id: string, param: string): Stripe.Price {
  const price = ctx.account.price(id, param);
  if (!price.recurring) throw invalid('The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.', param);
  if (!price.active) throw invalid(`The price specified is inactive. This field only accepts active prices.`, param);
  return price;
}

/** The one item a subscription has after `items`: the local server keeps one recurring item per subscription. */
function itemOf(ctx: Ctx, params: Fields, current?: Stripe.SubscriptionItem): ItemChange | undefined {
  const items = array(params, 'items');
  if (!items) return undefined;
  const isDeletion = (raw: unknown) => Boolean(raw && typeof raw === 'object' && (raw as Fields).deleted === 'true');
  const kept = items.filter((raw) => !isDeletion(raw));
  const deleted = items.filter(isDeletion) as Fields[];
  const item = kept[0] as Fields | undefined;
  // One item before and after: an item changed in place, or deleted and replaced by a new one.
  const adds = current !== undefined && item !== undefined && item.id === undefined && !deleted.length;
  if (kept.length !== 1 || deleted.length > 1 || adds || !item || typeof item !== 'object')
    throw unsupported('items', "more than one item per subscription (name the item's id to change its price)");
  for (const gone of deleted) if (gone.id !== current?.id) throw invalid(`No such subscription item: '${String(gone.id)}'`, 'items', 'resource_missing');
  refuseUnknown(item, ['id', 'price', 'quantity', 'metadata']);
  const at = `items[${items.indexOf(item)}]`;
  const id = text(item, 'id');
  if (id !== undefined && id !== current?.id) throw invalid(`No such subscription item: '${id}'`, `${at}[id]`, 'resource_missing');
  const priceId = text(item, 'price') ?? (id ? current?.price.id : undefined);
  if (!priceId) throw invalid(`Missing required param: ${at}[price].`, `${at}[price]`, 'parameter_missing');
  const quantity = integer(item, 'quantity') ?? (id ? (current?.quantity ?? 1) : 1);
  if (quantity < 1) throw invalid('Invalid quantity: must be at least 1', `${at}[quantity]`);
  return { price: recurringPrice(ctx, priceId, `${at}[price]`), quantity, replaced: deleted.length === 1 };
}

function paymentSettingsOf(params: Fields, current: Stripe.Subscription.PaymentSettings | null): Stripe.Subscription.PaymentSettings {
  const settings = object(params, 'payment_settings') ?? {};
  refuseUnknown(settings, ['save_default_payment_method', 'payment_method_types']);
  const types = array(settings, 'payment_method_types') as Stripe.Subscription.PaymentSettings.PaymentMethodType[] | undefined;
  return {
    payment_method_options: null,
    payment_method_types: types ?? current?.payment_method_types ?? null,
    save_default_payment_method: oneOf(settings, 'save_default_payment_method', ['off', 'on_subscription']) ?? current?.save_default_payment_method ?? 'off',
  };
}

function paymentMethodOf(params: Fields): string | undefined {
  const method = text(params, 'default_payment_method');
  if (method !== undefined && !method.startsWith('pm_')) throw invalid(`No such PaymentMethod: '${method}'`, 'default_payment_method', 'resource_missing');
  return method;
}

function newItem(sub: string, change: ItemChange, start: number, end: number): Stripe.SubscriptionItem {
  return {
    id: newId('si'),
    object: 'subscription_item',
    billing_thresholds: null,
    created: start,
    current_period_end: end,
    current_period_start: start,
    current_trial: null,
    discounts: [],
    metadata: {},
    plan: planOf(change.price),
    price: structuredClone(change.price),
    quantity: change.quantity,
    subscription: sub,
    tax_rates: [],
  };
}

function createSubscription(ctx: Ctx, params: Fields): Stripe.Subscription {
  refuseUnknown(params, CREATE);
  const customer = ctx.account.customer(required(params, 'customer'));
  const item = itemOf(ctx, params);
  if (!item) throw invalid('Missing required param: items.', 'items', 'parameter_missing');
  const behaviour = oneOf(params, 'payment_behavior', BEHAVIOURS) ?? 'allow_incomplete';
  if (behaviour === 'pending_if_incomplete') throw unsupported('payment_behavior', 'pending_if_incomplete');
  if ((oneOf(params, 'collection_method', ['charge_automatically', 'send_invoice']) ?? 'charge_automatically') !== 'charge_automatically')
    throw unsupported('collection_method', 'send_invoice');
  const method = paymentMethodOf(params) ?? null;
  const clock = typeof customer.test_clock === 'string' ? customer.test_clock : null;
  const now = ctx.account.time(clock);
  const defaultMethod = method ?? (customer.invoice_settings.default_payment_method as string | null);
  // error_if_incomplete: a payment that would fail creates nothing.
  if (behaviour === 'error_if_incomplete' && amountOf(item.price, item.quantity) > 0 && declines(defaultMethod))
    throw new StripeApiError(402, 'card_error', 'Your card was declined.', 'card_declined', undefined, { decline_code: 'generic_decline' });
  const id = newId('sub');
  const end = boundary(now, item.price.recurring!, 1);
  const sub: Stripe.Subscription = {
    id,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: now,
    billing_cycle_anchor_config: null,
    billing_mode: { flexible: null, type: 'classic' },
    billing_schedules: [],
    billing_thresholds: null,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: noCancellation(),
    collection_method: 'charge_automatically',
    created: now,
    currency: item.price.currency,
    customer: customer.id,
    customer_account: null,
    days_until_due: null,
    default_payment_method: method,
    default_source: null,
    default_tax_rates: [],
    description: text(params, 'description') ?? null,
    discounts: [],
    ended_at: null,
    invoice_settings: { account_tax_ids: null, custom_fields: null, description: null, footer: null, issuer: { type: 'self' } },
    items: { object: 'list', data: [newItem(id, item, now, end)], has_more: false, url: `/v1/subscription_items?subscription=${id}` },
    latest_invoice: null,
    livemode: false,
    managed_payments: null,
    metadata: metadata(params) ?? {},
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: paymentSettingsOf(params, null),
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: now,
    status: 'incomplete',
    test_clock: clock,
    transfer_data: null,
    trial_end: null,
    trial_settings: { end_behavior: { billing_cycle_anchor: null, missing_payment_method: 'create_invoice' } },
    trial_start: null,
  };
  const record: SubscriptionRecord = { sub, anchor: now, cycle: 0, pending: [] };
  ctx.account.subscriptions.set(id, record);
  customer.currency ??= sub.currency;
  if (boolean(params, 'cancel_at_period_end')) scheduleCancel(record, true, now);
  // As Stripe's, the subscription's first event already names its first invoice.
  sub.latest_invoice = newId('in');
  ctx.emit('customer.subscription.created', subscriptionView(ctx.account, record), clock);
  const line = lineItem(ctx, record, { amount: amountOf(item.price, item.quantity), price: item.price, quantity: item.quantity, period: { start: now, end } });
  const inv = createInvoice(ctx, record, [line], 'subscription_create', { start: now, end: now }, sub.latest_invoice);
  changeSubscription(ctx, record, () => {
    finalizeInvoice(ctx, inv);
    if (behaviour !== 'default_incomplete') collect(ctx, inv);
  });
  return subscriptionView(ctx.account, record);
}

function updateSubscription(ctx: Ctx, record: SubscriptionRecord, params: Fields): Stripe.Subscription {
  refuseUnknown(params, UPDATE);
  const sub = record.sub;
  if (hasEnded(sub) && Object.keys(params).some((k) => !['metadata', 'cancellation_details', 'expand'].includes(k)))
    throw invalid('A canceled subscription can only update its cancellation_details and metadata.', undefined, 'invalid_canceled_subscription_fields');
  const behaviour = oneOf(params, 'payment_behavior', BEHAVIOURS) ?? 'allow_incomplete';
  if (behaviour === 'pending_if_incomplete') throw unsupported('payment_behavior', 'pending_if_incomplete');
  const proration = oneOf(params, 'proration_behavior', ['create_prorations', 'always_invoice', 'none']) ?? 'create_prorations';
  // Since API 2026, `billing_cycle_anchor` of an update is an object: `{ type: 'now' | 'unchanged' }`.
  const anchor = object(params, 'billing_cycle_anchor');
  if (anchor) refuseUnknown(anchor, ['type']);
  const anchorNow = (anchor ? oneOf(anchor, 'type', ['now', 'unchanged']) : 'unchanged') === 'now';
  const change = itemOf(ctx, params, sub.items.data[0]);
  if (change && change.price.currency !== sub.currency) throw invalid('The price must be in the currency of the subscription.', 'items');
  const method = paymentMethodOf(params);
  const cancelAtEnd = boolean(params, 'cancel_at_period_end');
  const details = object(params, 'cancellation_details');
  if (details) refuseUnknown(details, ['comment', 'feedback']);
  const now = ctx.account.time(clockOf(record));
  const at = integer(params, 'proration_date') ?? now;
  const { start, end } = periodOf(record);
  if (at < start || at > end) throw invalid('proration_date must be within the current period of the subscription.', 'proration_date');
  const plan = change || anchorNow ? planChange(record, change, anchorNow, proration, at) : undefined;
  if (plan && sub.status === 'incomplete')
    throw invalid('You cannot update a subscription in `incomplete` status in a way that results in a new invoice or invoice items.', 'items');
  const charged = plan?.invoiceNow && plan.lines.reduce((sum, l) => sum + l.amount, 0) > 0;
  if (behaviour === 'error_if_incomplete' && charged && declines(method ?? defaultMethodOf(ctx, record)))
    throw new StripeApiError(402, 'card_error', 'Your card was declined.', 'card_declined', undefined, { decline_code: 'generic_decline' });
  changeSubscription(ctx, record, () => {
    sub.metadata = mergeMetadata(sub.metadata, metadata(params));
    const description = text(params, 'description');
    if (description !== undefined) sub.description = description || null;
    if (method !== undefined) sub.default_payment_method = method;
    if (params.payment_settings !== undefined) sub.payment_settings = paymentSettingsOf(params, sub.payment_settings);
    if (cancelAtEnd !== undefined) scheduleCancel(record, cancelAtEnd, now, (details ?? {}) as Partial<Stripe.Subscription.CancellationDetails>);
    else if (details)
      sub.cancellation_details = { ...(sub.cancellation_details ?? noCancellation()), ...(details as Partial<Stripe.Subscription.CancellationDetails>) };
    if (plan) applyPlanChange(ctx, record, plan, behaviour, at);
  });
  return subscriptionView(ctx.account, record);
}

function cancelSubscription(ctx: Ctx, record: SubscriptionRecord, params: Fields): Stripe.Subscription {
  refuseUnknown(params, ['invoice_now', 'prorate', 'cancellation_details', 'expand']);
  if (boolean(params, 'invoice_now') || boolean(params, 'prorate')) throw unsupported('prorate', 'a final prorated invoice on cancellation');
  if (hasEnded(record.sub)) throw invalid(`This subscription is already ${record.sub.status}.`, undefined, 'resource_missing');
  const details = object(params, 'cancellation_details');
  if (details) refuseUnknown(details, ['comment', 'feedback']);
  changeSubscription(ctx, record, () => {
    if (details) record.sub.cancellation_details = { ...noCancellation(), ...(details as Partial<Stripe.Subscription.CancellationDetails>) };
    endSubscription(ctx.account, record, 'cancellation_requested', ctx.account.time(clockOf(record)));
  });
  return subscriptionView(ctx.account, record);
}

const STATUSES = ['active', 'all', 'canceled', 'ended', 'incomplete', 'incomplete_expired', 'past_due', 'paused', 'trialing', 'unpaid'] as const;

export const subscriptionRoutes: Route[] = [
  ['POST', '/v1/subscriptions', (ctx, params) => ({ body: render(ctx.account, createSubscription(ctx, params), params) })],
  [
    'GET',
    '/v1/subscriptions',
    (ctx, params) => {
      refuseUnknown(params, listParams('customer', 'price', 'status', 'test_clock'));
      const customer = text(params, 'customer');
      const price = text(params, 'price');
      const clock = text(params, 'test_clock');
      const status = oneOf(params, 'status', STATUSES);
      // As Stripe's: canceled subscriptions only when asked for; those on a test clock only for their customer or clock.
      const all = [...ctx.account.subscriptions.values()]
        .filter(({ sub }) => {
          const statusMatches = status === 'all' || (status === 'ended' ? hasEnded(sub) : status ? sub.status === status : sub.status !== 'canceled');
          return (
            statusMatches &&
            (!customer || sub.customer === customer) &&
            (!price || sub.items.data[0].price.id === price) &&
            (clock ? sub.test_clock === clock : customer !== undefined || sub.test_clock === null)
          );
        })
        .map((record) => subscriptionView(ctx.account, record));
      return { body: render(ctx.account, listOf(all, params, '/v1/subscriptions', 'subscription'), params) };
    },
  ],
  [
    'GET',
    '/v1/subscriptions/:id',
    (ctx, params, [id]) => ({ body: render(ctx.account, subscriptionView(ctx.account, ctx.account.subscription(id, 'id')), params) }),
  ],
  [
    'POST',
    '/v1/subscriptions/:id',
    (ctx, params, [id]) => ({ body: render(ctx.account, updateSubscription(ctx, ctx.account.subscription(id, 'id'), params), params) }),
  ],
  [
    'DELETE',
    '/v1/subscriptions/:id',
    (ctx, params, [id]) => ({ body: render(ctx.account, cancelSubscription(ctx, ctx.account.subscription(id, 'id'), params), params) }),
  ],
];
