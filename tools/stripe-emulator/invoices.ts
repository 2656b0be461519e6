import type Stripe from 'stripe';
import type { Ctx, InvoiceRecord, SubscriptionRecord } from './account';
import { invalid, missing, newId, refuseUnknown, StripeApiError, unsupported, type Fields } from './errors';
import { invoiceView, render } from './expand';
import { listOf, listParams, object, oneOf, text } from './params';
import { chargeIntent, newIntent } from './payment-intents';
import type { Route } from './router';
import { changeSubscription, clockOf, endSubscription } from './subscription-state';

/**
 * A subscription's invoices and their payments. An invoice is created (draft, `invoice.created`),
 * finalized (numbered `<customer prefix>-0001`, a hosted page and a PDF, a PaymentIntent for what
 * is due, `invoice.finalized`), then paid: by the client confirming its PaymentIntent (the first
 * invoice, `confirmation_secret`), by `invoices.pay`, or automatically with the subscription's
 * (else the customer's) default payment method. Paid: `invoice.paid`, `invoice.payment_succeeded`,
 * `invoice_payment.paid`, and the subscription active again. Declined: `invoice.payment_failed`,
 * the subscription past due, and automatic attempts retried on the account's schedule
 * (BillingSettings: 3, 5 and 7 days after the first failure), after which the subscription is
 * canceled (`cancellation_details.reason` payment_failed) or left unpaid. Nothing due (a credit):
 * paid at once, the rest kept as the customer's balance for the next invoice.
 */

const subscriptionOf = (ctx: Ctx, inv: InvoiceRecord) => ctx.account.subscription(String(inv.invoice.parent?.subscription_details?.subscription));

/**
 * Finalizes a draft: its number, its hosted page and PDF, the customer's balance applied, and for
 * what is due a PaymentIntent with its InvoicePayment (`invoice.finalized`). Nothing due: paid now.
 */
export function finalizeInvoice(ctx: Ctx, inv: InvoiceRecord): void {
  const invoice = inv.invoice;
  const record = subscriptionOf(ctx, inv);
  const customer = ctx.account.customer(String(invoice.customer));
  const clock = clockOf(record);
  const now = ctx.account.time(clock);
  const applied = invoice.total + invoice.starting_balance;
  Object.assign(invoice, {
    number: `${customer.invoice_prefix}-${String(customer.next_invoice_sequence ?? 1).padStart(4, '0')}`,
    status: 'open',
    amount_due: Math.max(0, applied),
    amount_remaining: Math.max(0, applied),
    ending_balance: Math.min(0, applied),
    effective_at: now,
    automatically_finalizes_at: null,
    hosted_invoice_url: `${ctx.account.baseUrl}/invoices/${invoice.id}`,
    invoice_pdf: `${ctx.account.baseUrl}/invoices/${invoice.id}/pdf`,
  });
  invoice.status_transitions.finalized_at = now;
  customer.next_invoice_sequence = (customer.next_invoice_sequence ?? 1) + 1;
  customer.balance = invoice.ending_balance ?? 0;
  if (invoice.amount_due > 0) {
    const saves = record.sub.payment_settings?.save_default_payment_method === 'on_subscription';
    const pi = newIntent(ctx, {
      amount: invoice.amount_due,
      currency: invoice.currency,
      customer: customer.id,
      description: invoice.billing_reason === 'subscription_create' ? 'Subscription creation' : 'Subscription update',
      methods: invoice.payment_settings.payment_method_types ?? ['card'],
      setupFutureUsage: saves ? 'off_session' : null,
    });
    ctx.account.invoiceOfIntent.set(pi.id, invoice.id);
    const payment: Stripe.InvoicePayment = {
      id: newId('inpay'),
      object: 'invoice_payment',
      amount_paid: null,
      amount_requested: invoice.amount_due,
      created: now,
      currency: invoice.currency,
      invoice: invoice.id,
      is_default: true,
      livemode: false,
      payment: { payment_intent: pi.id, type: 'payment_intent' },
      status: 'open',
      status_transitions: { canceled_at: null, paid_at: null },
    };
    ctx.account.invoicePayments.set(payment.id, payment);
    Object.assign(inv, { intent: pi.id, payment: payment.id });
  }
  ctx.emit('invoice.finalized', invoiceView(inv), clock);
  if (invoice.amount_due === 0) paid(ctx, inv, record);
}

/** Whether the subscription's latest invoice is still owed. */
function latestUnpaid(ctx: Ctx, record: SubscriptionRecord): boolean {
  const latest = typeof record.sub.latest_invoice === 'string' ? ctx.account.invoices.get(record.sub.latest_invoice) : undefined;
  return latest?.invoice.status === 'open' && latest.invoice.amount_remaining > 0;
}

function paid(ctx: Ctx, inv: InvoiceRecord, record: SubscriptionRecord): void {
  const invoice = inv.invoice;
  const clock = clockOf(record);
  const now = ctx.account.time(clock);
  Object.assign(invoice, { status: 'paid', amount_paid: invoice.amount_due, amount_remaining: 0, next_payment_attempt: null });
  invoice.status_transitions.paid_at = now;
  ctx.emit('invoice.paid', invoiceView(inv), clock);
  ctx.emit('invoice.payment_succeeded', invoiceView(inv), clock);
  const payment = inv.payment ? ctx.account.invoicePayments.get(inv.payment) : undefined;
  if (payment) {
    Object.assign(payment, { status: 'paid', amount_paid: invoice.amount_paid });
    payment.status_transitions.paid_at = now;
    ctx.emit('invoice_payment.paid', payment, clock);
  }
  const sub = record.sub;
  const pi = inv.intent ? ctx.account.intents.get(inv.intent) : undefined;
  // save_default_payment_method=on_subscription: the method that paid becomes the subscription's default.
  if (sub.payment_settings?.save_default_payment_method === 'on_subscription' && typeof pi?.payment_method === 'string')
    sub.default_payment_method = pi.payment_method;
  // As Stripe's, the status follows the latest invoice: paid, the subscription is active again.
  if (['incomplete', 'past_due', 'unpaid'].includes(sub.status) && !latestUnpaid(ctx, record)) sub.status = 'active';
  ctx.account.customer(String(sub.customer)).delinquent = false;
}

function failed(ctx: Ctx, inv: InvoiceRecord, record: SubscriptionRecord, automatic: boolean): void {
  const invoice = inv.invoice;
  const clock = clockOf(record);
  const now = ctx.account.time(clock);
  const { retryDays, afterRetries } = ctx.account.billing;
  const retried = automatic && invoice.billing_reason !== 'subscription_create' && invoice.auto_advance !== false;
  if (retried) {
    inv.automaticFailures += 1;
    inv.firstFailure ??= now;
    const next = retryDays[inv.automaticFailures - 1];
    invoice.next_payment_attempt = next === undefined ? null : inv.firstFailure + next * 86_400;
  }
  ctx.emit('invoice.payment_failed', invoiceView(inv), clock);
  ctx.account.customer(String(record.sub.customer)).delinquent = true;
  if (invoice.billing_reason === 'subscription_create') return;
  if (record.sub.status === 'active' && latestUnpaid(ctx, record)) record.sub.status = 'past_due';
  if (retried && invoice.next_payment_attempt === null) {
    if (afterRetries === 'unpaid') record.sub.status = 'unpaid';
    else endSubscription(ctx.account, record, 'payment_failed', now);
  }
}

/**
 * What a confirmation of the invoice's PaymentIntent (paid or declined) does to the invoice and its
 * subscription. `automatic`: Stripe's own attempt, which the retry schedule counts.
 */
function applyOutcome(ctx: Ctx, inv: InvoiceRecord, pi: Stripe.PaymentIntent, automatic: boolean): void {
  const record = subscriptionOf(ctx, inv);
  inv.invoice.attempted = true;
  inv.invoice.attempt_count += 1;
  if (pi.status === 'succeeded') paid(ctx, inv, record);
  else failed(ctx, inv, record, automatic);
}

/** The payment method renewals are charged with: the subscription's default, else the customer's. */
export function defaultMethodOf(ctx: Ctx, record: SubscriptionRecord): string | null {
  const own = record.sub.default_payment_method;
  if (typeof own === 'string') return own;
  const customer = ctx.account.customer(String(record.sub.customer));
  const fallback = customer.invoice_settings.default_payment_method;
  return typeof fallback === 'string' ? fallback : null;
}

/** Stripe's automatic attempt to collect an open invoice with the default payment method (a missing one is a failed attempt). */
export function collect(ctx: Ctx, inv: InvoiceRecord): void {
  if (inv.invoice.status !== 'open' || !inv.intent) return;
  const pi = ctx.account.intent(inv.intent);
  const method = defaultMethodOf(ctx, subscriptionOf(ctx, inv));
  if (method) chargeIntent(ctx, pi, method);
  applyOutcome(ctx, inv, pi, true);
}

/** The server's `settle` for PaymentIntent confirmations: an invoice's intent pays (or fails to pay) the invoice. */
export function settleIntent(ctx: Ctx, pi: Stripe.PaymentIntent): void {
  const invoiceId = ctx.account.invoiceOfIntent.get(pi.id);
  if (!invoiceId) return;
  const inv = ctx.account.invoice(invoiceId);
  changeSubscription(ctx, subscriptionOf(ctx, inv), () => applyOutcome(ctx, inv, pi, false));
}

/** Voids an open invoice: nothing is owed any more, its PaymentIntent is canceled (`invoice.voided`). */
export function voidInvoice(ctx: Ctx, inv: InvoiceRecord): void {
  const invoice = inv.invoice;
  if (invoice.status !== 'open' && invoice.status !== 'draft') return;
  const clock = typeof invoice.test_clock === 'string' ? invoice.test_clock : null;
  const now = ctx.account.time(clock);
  Object.assign(invoice, { status: 'void', amount_remaining: 0, next_payment_attempt: null, auto_advance: false });
  invoice.status_transitions.voided_at = now;
  const pi = inv.intent ? ctx.account.intents.get(inv.intent) : undefined;
  if (pi && pi.status !== 'succeeded') Object.assign(pi, { status: 'canceled', canceled_at: now, cancellation_reason: 'void_invoice' });
  const payment = inv.payment ? ctx.account.invoicePayments.get(inv.payment) : undefined;
  if (payment && payment.status === 'open') {
    payment.status = 'canceled';
    payment.status_transitions.canceled_at = now;
  }
  ctx.emit('invoice.voided', invoiceView(inv), clock);
}

/** `invoices.pay`: an open invoice charged now with `payment_method` (else the default); a decline is Stripe's 402. */
function pay(ctx: Ctx, inv: InvoiceRecord, params: Fields): Stripe.Invoice {
  refuseUnknown(params, ['payment_method', 'off_session', 'expand', 'paid_out_of_band', 'forgive']);
  if (params.paid_out_of_band !== undefined || params.forgive !== undefined) throw unsupported('paid_out_of_band');
  if (inv.invoice.status === 'paid') throw invalid('Invoice is already paid', undefined, 'invoice_not_editable');
  if (inv.invoice.status !== 'open' || !inv.intent)
    throw invalid(`This invoice is ${inv.invoice.status}: it cannot be paid.`, undefined, 'invoice_not_editable');
  const record = subscriptionOf(ctx, inv);
  const pi = ctx.account.intent(inv.intent);
  const method = text(params, 'payment_method') ?? defaultMethodOf(ctx, record);
  if (!method) throw invalid('This invoice cannot be paid: the customer has no default payment method.', 'payment_method', 'invoice_no_payment_method_types');
  const decline = changeSubscription(ctx, record, () => {
    const outcome = chargeIntent(ctx, pi, method);
    applyOutcome(ctx, inv, pi, false);
    return outcome;
  });
  if (decline) throw new StripeApiError(402, 'card_error', decline.message, 'card_declined', undefined, { decline_code: decline.decline_code });
  return inv.invoice;
}

export const invoiceRoutes: Route[] = [
  [
    'GET',
    '/v1/invoices',
    (ctx, params) => {
      refuseUnknown(params, listParams('customer', 'subscription', 'status', 'collection_method'));
      const customer = text(params, 'customer');
      const subscription = text(params, 'subscription');
      const status = oneOf(params, 'status', ['draft', 'open', 'paid', 'uncollectible', 'void']);
      const all = [...ctx.account.invoices.values()]
        .map((r) => r.invoice)
        .filter(
          (i) =>
            (!customer || i.customer === customer) &&
            (!subscription || i.parent?.subscription_details?.subscription === subscription) &&
            (!status || i.status === status),
        );
      return { body: render(ctx.account, listOf(all, params, '/v1/invoices', 'invoice'), params) };
    },
  ],
  ['GET', '/v1/invoices/:id', (ctx, params, [id]) => ({ body: render(ctx.account, invoiceView(ctx.account.invoice(id)), params) })],
  [
    'GET',
    '/v1/invoices/:id/lines',
    (ctx, params, [id]) => {
      refuseUnknown(params, listParams());
      // Lines are listed in the invoice's order: listOf walks its items from the last, so they go in reversed.
      const lines = [...ctx.account.invoice(id).invoice.lines.data].reverse();
      return { body: listOf(lines, params, `/v1/invoices/${id}/lines`, 'line_item') };
    },
  ],
  ['POST', '/v1/invoices/:id/pay', (ctx, params, [id]) => ({ body: render(ctx.account, pay(ctx, ctx.account.invoice(id), params), params) })],
  [
    'GET',
    '/v1/invoice_payments',
    (ctx, params) => {
      refuseUnknown(params, listParams('invoice', 'payment', 'status'));
      const invoice = text(params, 'invoice');
      const payment = object(params, 'payment');
      const intent = payment ? text(payment, 'payment_intent') : undefined;
      const status = oneOf(params, 'status', ['canceled', 'open', 'paid']);
      const all = [...ctx.account.invoicePayments.values()].filter(
        (p) => (!invoice || p.invoice === invoice) && (!intent || p.payment.payment_intent === intent) && (!status || p.status === status),
      );
      return { body: render(ctx.account, listOf(all, params, '/v1/invoice_payments', 'invoice_payment'), params) };
    },
  ],
  [
    'GET',
    '/v1/invoice_payments/:id',
    (ctx, params, [id]) => {
      const payment = ctx.account.invoicePayments.get(id);
      if (!payment) throw missing('invoice_payment', id, 'id');
      return { body: render(ctx.account, payment, params) };
    },
  ],
];
