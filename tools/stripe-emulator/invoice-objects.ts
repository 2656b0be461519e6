import type Stripe from 'stripe';
import { decimalString, money, type Ctx, type InvoiceRecord, type SubscriptionRecord } from './account';
import { newId } from './errors';
import { invoiceView } from './expand';
import { clockOf } from './subscription-state';

/**
 * What an invoice of a subscription is: its lines (a period of a price, or a proration of part of
 * one) and the invoice itself, as Stripe's types describe them (since API 2025-03-31 an invoice
 * names its subscription under `parent.subscription_details`, and its payments are InvoicePayments,
 * not a `payment_intent`). invoices.ts moves it through its life.
 */

export interface LineSpec {
  amount: number;
  price: Stripe.Price;
  quantity: number;
  period: { start: number; end: number };
  /** A proration: what is credited or charged for part of a period when the price changes. */
  proration?: 'unused' | 'remaining';
}

const day = (seconds: number) => new Date(seconds * 1000).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

function productName(ctx: Ctx, price: Stripe.Price): string {
  return ctx.account.products.get(String(price.product))?.name ?? String(price.product);
}

export function lineItem(ctx: Ctx, record: SubscriptionRecord, spec: LineSpec): Stripe.InvoiceLineItem {
  const { price, quantity } = spec;
  const name = `${quantity} × ${productName(ctx, price)}`;
  const description =
    spec.proration === 'unused'
      ? `Unused time on ${name} after ${day(spec.period.start)}`
      : spec.proration === 'remaining'
        ? `Remaining time on ${name} after ${day(spec.period.start)}`
        : `${name} (at ${money(price.unit_amount ?? 0, price.currency)} / ${price.recurring?.interval ?? 'once'})`;
  return {
    id: newId('il'),
    object: 'line_item',
    amount: spec.amount,
    currency: price.currency,
    description,
    discount_amounts: [],
    discountable: !spec.proration,
    discounts: [],
    invoice: null,
    livemode: false,
    metadata: {},
    parent: {
      invoice_item_details: null,
      subscription_item_details: {
        invoice_item: spec.proration ? newId('ii') : null,
        proration: Boolean(spec.proration),
        proration_details: { credited_items: null },
        subscription: record.sub.id,
        subscription_item: record.sub.items.data[0].id,
      },
      type: 'subscription_item_details',
    },
    period: spec.period,
    pretax_credit_amounts: [],
    pricing: { price_details: { price: price.id, product: String(price.product) }, type: 'price_details', unit_amount_decimal: price.unit_amount_decimal },
    quantity,
    quantity_decimal: decimalString(quantity),
    subscription: record.sub.id,
    subtotal: spec.amount,
    taxes: [],
  };
}

/**
 * A draft invoice of the subscription for these lines (`invoice.created`); `period` is Stripe's
 * invoice period (the lines carry the service periods); `id` is chosen beforehand when the
 * subscription's own event must already name it.
 */
export function createInvoice(
  ctx: Ctx,
  record: SubscriptionRecord,
  lines: Stripe.InvoiceLineItem[],
  reason: Stripe.Invoice.BillingReason,
  period: { start: number; end: number },
  id = newId('in'),
): InvoiceRecord {
  const sub = record.sub;
  const customer = ctx.account.customer(String(sub.customer));
  const clock = clockOf(record);
  const now = ctx.account.time(clock);
  for (const line of lines) line.invoice = id;
  const total = lines.reduce((sum, line) => sum + line.amount, 0);
  const due = Math.max(0, total + customer.balance);
  const invoice: Stripe.Invoice = {
    id,
    object: 'invoice',
    account_country: 'US',
    account_name: 'Local Stripe',
    account_tax_ids: null,
    amount_due: due,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: due,
    amount_shipping: 0,
    application: null,
    attempt_count: 0,
    attempted: false,
    auto_advance: true,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
    automatically_finalizes_at: now + 3600,
    billing_reason: reason,
    collection_method: 'charge_automatically',
    created: now,
    currency: sub.currency,
    custom_fields: null,
    customer: customer.id,
    customer_account: null,
    customer_address: null,
    customer_email: customer.email,
    customer_name: customer.name ?? null,
    customer_phone: customer.phone ?? null,
    customer_shipping: null,
    customer_tax_exempt: 'none',
    customer_tax_ids: [],
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    due_date: null,
    effective_at: null,
    ending_balance: null,
    footer: null,
    from_invoice: null,
    hosted_invoice_url: null,
    invoice_pdf: null,
    issuer: { type: 'self' },
    last_finalization_error: null,
    latest_revision: null,
    lines: { object: 'list', data: lines, has_more: false, url: `/v1/invoices/${id}/lines` },
    livemode: false,
    metadata: {},
    next_payment_attempt: null,
    number: null,
    on_behalf_of: null,
    parent: { quote_details: null, subscription_details: { metadata: structuredClone(sub.metadata), subscription: sub.id }, type: 'subscription_details' },
    payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: sub.payment_settings?.payment_method_types ?? null },
    period_end: period.end,
    period_start: period.start,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: customer.balance,
    statement_descriptor: null,
    status: 'draft',
    status_transitions: { finalized_at: null, marked_uncollectible_at: null, paid_at: null, voided_at: null },
    subtotal: total,
    subtotal_excluding_tax: total,
    test_clock: clock,
    total,
    total_discount_amounts: [],
    total_excluding_tax: total,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: now,
  };
  const created: InvoiceRecord = { invoice, automaticFailures: 0 };
  ctx.account.invoices.set(id, created);
  sub.latest_invoice = id;
  ctx.emit('invoice.created', invoiceView(created), clock);
  return created;
}
