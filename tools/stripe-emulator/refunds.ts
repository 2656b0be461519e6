import type Stripe from 'stripe';
import type { Ctx } from './account';
import { invalid, missing, newId, refuseUnknown, type Fields } from './errors';
import { render } from './expand';
import { integer, listOf, listParams, metadata, oneOf, text } from './params';
import type { Route } from './router';

/**
 * Refunds of a paid charge (a one-off payment's, or an invoice's: `refunds.create` by `charge` or
 * `payment_intent`), in full or in part, and the charges themselves (retrieve, list). A refund
 * sends `charge.refunded` with the charge's `amount_refunded` (and `refunded` once it is whole).
 */

/** Refunds a paid charge in full or in part: `charge.refunded` carries the charge with its `amount_refunded`. */
function refund(ctx: Ctx, params: Fields): Stripe.Refund {
  refuseUnknown(params, ['payment_intent', 'charge', 'amount', 'reason', 'metadata', 'expand']);
  const intentId = text(params, 'payment_intent');
  const chargeId = text(params, 'charge');
  if (!intentId && !chargeId) throw invalid('Missing required param: charge or payment_intent.', 'charge', 'parameter_missing');
  const pi = intentId ? ctx.account.intent(intentId, 'payment_intent') : undefined;
  if (pi && pi.status !== 'succeeded') throw invalid(`PaymentIntent ${pi.id} has no successful charge to refund.`, 'payment_intent', 'charge_not_refundable');
  const charge = ctx.account.charge(chargeId ?? String(pi?.latest_charge), chargeId ? 'charge' : 'payment_intent');
  if (pi && charge.payment_intent !== pi.id) throw invalid(`Charge ${charge.id} does not belong to PaymentIntent ${pi.id}.`, 'charge');
  // A charge under dispute, or whose dispute was lost, cannot be refunded (the bank already took the money back); once won, it can.
  const dispute = [...ctx.account.disputes.values()].find((d) => d.charge === charge.id);
  if (dispute && dispute.status !== 'won') throw invalid(`Charge ${charge.id} has been charged back; cannot issue a refund.`, 'charge', 'charge_disputed');
  if (charge.refunded) throw invalid(`Charge ${charge.id} has already been refunded.`, 'charge', 'charge_already_refunded');
  const left = charge.amount - charge.amount_refunded;
  const amount = integer(params, 'amount') ?? left;
  if (amount <= 0 || amount > left)
    throw invalid(`Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`, 'amount', 'amount_too_large');
  const clock = ctx.account.clockOfCustomer(typeof charge.customer === 'string' ? charge.customer : null);
  const created: Stripe.Refund = {
    id: newId('re'),
    object: 'refund',
    amount,
    balance_transaction: null,
    charge: charge.id,
    created: ctx.account.time(clock),
    currency: charge.currency,
    customer: charge.customer,
    customer_account: null,
    metadata: metadata(params) ?? {},
    payment_intent: charge.payment_intent,
    payment_method: charge.payment_method,
    reason: oneOf(params, 'reason', ['duplicate', 'fraudulent', 'requested_by_customer']) ?? null,
    receipt_number: null,
    source_transfer_reversal: null,
    status: 'succeeded',
    transfer_reversal: null,
  };
  ctx.account.refunds.set(created.id, created);
  charge.amount_refunded += amount;
  charge.refunded = charge.amount_refunded >= charge.amount;
  ctx.emit('charge.refunded', charge, clock);
  return created;
}

export const refundRoutes: Route[] = [
  ['POST', '/v1/refunds', (ctx, params) => ({ body: render(ctx.account, refund(ctx, params), params) })],
  [
    'GET',
    '/v1/refunds/:id',
    (ctx, params, [id]) => {
      const found = ctx.account.refunds.get(id);
      if (!found) throw missing('refund', id, 'refund');
      return { body: render(ctx.account, found, params) };
    },
  ],
  [
    'GET',
    '/v1/refunds',
    (ctx, params) => {
      refuseUnknown(params, listParams('charge', 'payment_intent'));
      const charge = text(params, 'charge');
      const intent = text(params, 'payment_intent');
      const all = [...ctx.account.refunds.values()].filter((r) => (!charge || r.charge === charge) && (!intent || r.payment_intent === intent));
      return { body: render(ctx.account, listOf(all, params, '/v1/refunds', 'refund'), params) };
    },
  ],
  ['GET', '/v1/charges/:id', (ctx, params, [id]) => ({ body: render(ctx.account, ctx.account.charge(id), params) })],
  [
    'GET',
    '/v1/charges',
    (ctx, params) => {
      refuseUnknown(params, listParams('customer', 'payment_intent'));
      const customer = text(params, 'customer');
      const intent = text(params, 'payment_intent');
      const all = [...ctx.account.charges.values()].filter((c) => (!customer || c.customer === customer) && (!intent || c.payment_intent === intent));
      return { body: render(ctx.account, listOf(all, params, '/v1/charges', 'charge'), params) };
    },
  ],
];
