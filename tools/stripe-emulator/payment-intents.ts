import { randomBytes } from 'node:crypto';
import type Stripe from 'stripe';
import type { Ctx } from './account';
import { openDispute } from './disputes';
import { invalid, newId, StripeApiError, type Fields } from './errors';
import { render } from './expand';
import { metadata, text } from './params';
import type { Route } from './router';

/**
 * PaymentIntents (create, retrieve, confirm, cancel) and their charges (refunds are refunds.ts's),
 * with Stripe's test payment methods: `pm_card_visa` (and any other `pm_`) pays; `pm_card_chargeDeclined`,
 * `pm_card_visa_chargeDeclined`, `pm_card_chargeDeclinedInsufficientFunds` and
 * `pm_card_chargeCustomerFail` (a card that can be saved but whose charges fail, Stripe's way to
 * test failed renewals) are declined; `pm_card_createDispute` pays, then is disputed.
 * An invoice's PaymentIntent is confirmed the same way; what it means for the invoice is
 * `settle`'s, handed in by the server (invoices.ts).
 */

const DECLINING_METHODS = new Set([
  'pm_card_chargeDeclined',
  'pm_card_visa_chargeDeclined',
  'pm_card_chargeDeclinedInsufficientFunds',
  'pm_card_chargeCustomerFail',
]);
const DISPUTING_METHOD = 'pm_card_createDispute';
/** Stripe's minimum charge is about 50 cents in USD. */
const MINIMUM_AMOUNT = 50;

export interface IntentFields {
  amount: number;
  currency: string;
  customer?: string | null;
  description?: string | null;
  metadata?: Record<string, string>;
  paymentMethod?: string | null;
  methods?: string[];
  receiptEmail?: string | null;
  setupFutureUsage?: Stripe.PaymentIntent.SetupFutureUsage | null;
}

export function newIntent(ctx: Ctx, fields: IntentFields): Stripe.PaymentIntent {
  const id = newId('pi');
  const methods = fields.methods ?? ['card'];
  const pi: Stripe.PaymentIntent = {
    id,
    object: 'payment_intent',
    allowed_payment_method_types: methods,
    amount: fields.amount,
    amount_capturable: 0,
    amount_received: 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: 'automatic',
    client_secret: `${id}_secret_${randomBytes(18).toString('base64url').replace(/[-_]/g, '')}`,
    confirmation_method: 'automatic',
    created: ctx.account.time(ctx.account.clockOfCustomer(fields.customer)),
    currency: fields.currency,
    customer: fields.customer ?? null,
    customer_account: null,
    description: fields.description ?? null,
    excluded_payment_method_types: null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    managed_payments: null,
    metadata: fields.metadata ?? {},
    next_action: null,
    on_behalf_of: null,
    payment_method: fields.paymentMethod ?? null,
    payment_method_configuration_details: null,
    payment_method_options: null,
    payment_method_types: methods,
    payment_record: null,
    processing: null,
    receipt_email: fields.receiptEmail ?? null,
    review: null,
    setup_future_usage: fields.setupFutureUsage ?? null,
    shipping: null,
    source: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: fields.paymentMethod ? 'requires_confirmation' : 'requires_payment_method',
    transfer_data: null,
    transfer_group: null,
  };
  ctx.account.intents.set(id, pi);
  return pi;
}

function chargeOf(ctx: Ctx, pi: Stripe.PaymentIntent, method: string, created: number): Stripe.Charge {
  const charge: Stripe.Charge = {
    id: newId('ch'),
    object: 'charge',
    amount: pi.amount,
    amount_captured: pi.amount,
    amount_refunded: 0,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    balance_transaction: null,
    billing_details: { address: null, email: null, name: null, phone: null, tax_id: null },
    calculated_statement_descriptor: 'LOCAL STRIPE',
    captured: true,
    created,
    currency: pi.currency,
    customer: pi.customer,
    description: pi.description,
    disputed: false,
    failure_balance_transaction: null,
    failure_code: null,
    failure_message: null,
    fraud_details: {},
    livemode: false,
    metadata: pi.metadata,
    on_behalf_of: null,
    outcome: {
      advice_code: null,
      network_advice_code: null,
      network_decline_code: null,
      network_status: 'approved_by_network',
      reason: null,
      risk_level: 'normal',
      seller_message: 'Payment complete.',
      type: 'authorized',
    },
    paid: true,
    payment_intent: pi.id,
    payment_method: method,
    payment_method_details: null,
    receipt_email: pi.receipt_email,
    receipt_number: null,
    receipt_url: null,
    refunded: false,
    review: null,
    shipping: null,
    source: null,
    source_transfer: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: 'succeeded',
    transfer_data: null,
    transfer_group: null,
  };
  ctx.account.charges.set(charge.id, charge);
  return charge;
}

/** Whether charging this test payment method is declined. */
export const declines = (method: string | null | undefined) => !method || DECLINING_METHODS.has(method);

export interface Decline {
  decline_code: string;
  message: string;
}

/**
 * Charges `pi` with `method`: paid (a charge, `payment_intent.succeeded`, and a dispute when the
 * method is `pm_card_createDispute`), or declined (`payment_intent.payment_failed`, the intent
 * back to `requires_payment_method`), which it answers.
 */
export function chargeIntent(ctx: Ctx, pi: Stripe.PaymentIntent, method: string): Decline | undefined {
  const clock = ctx.account.clockOfCustomer(typeof pi.customer === 'string' ? pi.customer : null);
  pi.payment_method = method;
  if (DECLINING_METHODS.has(method)) {
    const decline = { decline_code: method.includes('Insufficient') ? 'insufficient_funds' : 'generic_decline', message: 'Your card was declined.' };
    pi.status = 'requires_payment_method';
    pi.last_payment_error = { type: 'card_error', code: 'card_declined', ...decline, payment_method: { id: method } as Stripe.PaymentMethod };
    ctx.emit('payment_intent.payment_failed', pi, clock);
    return decline;
  }
  const charge = chargeOf(ctx, pi, method, ctx.account.time(clock));
  Object.assign(pi, { status: 'succeeded', amount_received: pi.amount, latest_charge: charge.id, last_payment_error: null });
  ctx.emit('payment_intent.succeeded', pi, clock);
  if (method === DISPUTING_METHOD) openDispute(ctx, charge);
  return undefined;
}

const unexpectedState = (pi: Stripe.PaymentIntent, what: string) =>
  new StripeApiError(400, 'invalid_request_error', what, 'payment_intent_unexpected_state', undefined, { payment_intent: pi });

function createIntent(ctx: Ctx, params: Fields): Stripe.PaymentIntent {
  const amount = Number(params.amount);
  if (params.amount === undefined) throw invalid('Missing required param: amount.', 'amount', 'parameter_missing');
  if (!Number.isInteger(amount)) throw invalid('Invalid integer: ' + String(params.amount), 'amount', 'parameter_invalid_integer');
  if (amount < MINIMUM_AMOUNT) throw invalid(`Amount must be at least ${MINIMUM_AMOUNT} cents`, 'amount', 'amount_too_small');
  if (typeof params.currency !== 'string' || !/^[a-z]{3}$/.test(params.currency))
    throw invalid('Missing or invalid param: currency.', 'currency', 'parameter_missing');
  const customer = text(params, 'customer');
  if (customer) ctx.account.customer(customer);
  return newIntent(ctx, {
    amount,
    currency: params.currency,
    customer,
    description: text(params, 'description'),
    metadata: metadata(params),
    paymentMethod: text(params, 'payment_method'),
    methods: params.allowed_payment_method_types as string[] | undefined,
    receiptEmail: text(params, 'receipt_email'),
  });
}

/** The PaymentIntent routes; `settle` is told of every confirmation, paid or declined, before the answer (an invoice's intent pays the invoice). */
export function paymentIntentRoutes(settle: (ctx: Ctx, pi: Stripe.PaymentIntent) => void): Route[] {
  const confirm = (ctx: Ctx, pi: Stripe.PaymentIntent, params: Fields) => {
    if (!['requires_payment_method', 'requires_confirmation'].includes(pi.status))
      throw unexpectedState(pi, `This PaymentIntent's status is ${pi.status}, so it cannot be confirmed.`);
    const method = text(params, 'payment_method') ?? (pi.payment_method as string | null);
    if (!method)
      throw invalid('You cannot confirm this PaymentIntent because it is missing a payment method.', 'payment_method', 'payment_intent_unexpected_state');
    const decline = chargeIntent(ctx, pi, method);
    settle(ctx, pi);
    if (decline)
      throw new StripeApiError(402, 'card_error', decline.message, 'card_declined', undefined, { decline_code: decline.decline_code, payment_intent: pi });
    return { body: render(ctx.account, pi, params) };
  };
  return [
    [
      'POST',
      '/v1/payment_intents',
      (ctx, params) => {
        const pi = createIntent(ctx, params);
        return params.confirm === 'true' ? confirm(ctx, pi, params) : { body: render(ctx.account, pi, params) };
      },
    ],
    ['GET', '/v1/payment_intents/:id', (ctx, params, [id]) => ({ body: render(ctx.account, ctx.account.intent(id), params) })],
    ['POST', '/v1/payment_intents/:id/confirm', (ctx, params, [id]) => confirm(ctx, ctx.account.intent(id), params)],
    [
      'POST',
      '/v1/payment_intents/:id/cancel',
      (ctx, params, [id]) => {
        const pi = ctx.account.intent(id);
        if (pi.status === 'succeeded' || pi.status === 'canceled')
          throw unexpectedState(pi, `You cannot cancel this PaymentIntent because it has a status of ${pi.status}.`);
        if (ctx.account.invoiceOfIntent.has(pi.id))
          throw unexpectedState(pi, 'You cannot cancel this PaymentIntent because it was created by an invoice: void the invoice instead.');
        Object.assign(pi, { status: 'canceled', canceled_at: ctx.account.time(null), cancellation_reason: (params.cancellation_reason as string) ?? null });
        ctx.emit('payment_intent.canceled', pi, null);
        return { body: render(ctx.account, pi, params) };
      },
    ],
  ];
}
