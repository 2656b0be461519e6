import type Stripe from 'stripe';
import type { Ctx } from './account';
import { invalid, newId, refuseUnknown, StripeApiError, type Fields } from './errors';
import { render } from './expand';
import { boolean, integer, listOf, listParams, mergeMetadata, metadata, object, oneOf, text } from './params';
import type { Route } from './router';

/**
 * Disputes (chargebacks). A card payment is disputed when it was paid with `pm_card_createDispute`
 * (Stripe's test card that is always disputed), or through the local server's own test helper
 * `POST /v1/test_helpers/charges/:charge/dispute` (`reason`, `amount`): `charge.dispute.created` and
 * `charge.dispute.funds_withdrawn`. It closes as on Stripe: evidence submitted with
 * `uncategorized_text` `winning_evidence` or `losing_evidence` (`disputes.update(id, { evidence,
 * submit: true })`: `charge.dispute.updated`, then closed), or accepted (`disputes.close`: lost);
 * or through `POST /v1/test_helpers/disputes/:id/close` with `status` won or lost. Closing sends
 * `charge.dispute.closed`, and `charge.dispute.funds_reinstated` when won. A charge cannot be
 * refunded while its dispute is open, nor after it was lost.
 */

const REASONS = [
  'bank_cannot_process',
  'credit_not_processed',
  'customer_initiated',
  'debit_not_authorized',
  'duplicate',
  'fraudulent',
  'general',
  'incorrect_account_details',
  'insufficient_funds',
  'product_not_received',
  'product_unacceptable',
  'subscription_canceled',
  'unrecognized',
] as const;

const EVIDENCE_FIELDS = [
  'access_activity_log',
  'billing_address',
  'cancellation_policy_disclosure',
  'cancellation_rebuttal',
  'customer_email_address',
  'customer_name',
  'customer_purchase_ip',
  'duplicate_charge_explanation',
  'duplicate_charge_id',
  'product_description',
  'refund_policy_disclosure',
  'refund_refusal_explanation',
  'service_date',
  'shipping_address',
  'shipping_carrier',
  'shipping_date',
  'shipping_tracking_number',
  'uncategorized_text',
] as const;

const emptyEvidence = (): Stripe.Dispute.Evidence => ({
  access_activity_log: null,
  billing_address: null,
  cancellation_policy: null,
  cancellation_policy_disclosure: null,
  cancellation_rebuttal: null,
  customer_communication: null,
  customer_email_address: null,
  customer_name: null,
  customer_purchase_ip: null,
  customer_signature: null,
  duplicate_charge_documentation: null,
  duplicate_charge_explanation: null,
  duplicate_charge_id: null,
  enhanced_evidence: {},
  product_description: null,
  receipt: null,
  refund_policy: null,
  refund_policy_disclosure: null,
  refund_refusal_explanation: null,
  service_date: null,
  service_documentation: null,
  shipping_address: null,
  shipping_carrier: null,
  shipping_date: null,
  shipping_documentation: null,
  shipping_tracking_number: null,
  uncategorized_file: null,
  uncategorized_text: null,
});

const OPEN: readonly string[] = ['needs_response', 'under_review', 'warning_needs_response', 'warning_under_review'];
/** Days a merchant has to answer a dispute (Stripe's window is 7 to 21 days, depending on the network). */
const RESPONSE_DAYS = 7;

const clockOf = (ctx: Ctx, charge: Stripe.Charge) => ctx.account.clockOfCustomer(typeof charge.customer === 'string' ? charge.customer : null);

/** Opens a dispute on a paid charge: the charge is marked disputed, the funds are withdrawn. */
export function openDispute(ctx: Ctx, charge: Stripe.Charge, params: Fields = {}): Stripe.Dispute {
  if (charge.status !== 'succeeded') throw invalid(`Charge ${charge.id} was not paid: it cannot be disputed.`, 'charge');
  if (charge.disputed) throw invalid(`Charge ${charge.id} is already disputed.`, 'charge');
  const amount = integer(params, 'amount') ?? charge.amount - charge.amount_refunded;
  if (amount < 1 || amount > charge.amount - charge.amount_refunded)
    throw invalid(`A dispute's amount is between 1 and what was not refunded (${charge.amount - charge.amount_refunded}).`, 'amount');
  const clock = clockOf(ctx, charge);
  const now = ctx.account.time(clock);
  const dispute: Stripe.Dispute = {
    id: newId('dp'),
    object: 'dispute',
    amount,
    balance_transactions: [],
    charge: charge.id,
    created: now,
    currency: charge.currency,
    enhanced_eligibility_types: [],
    evidence: emptyEvidence(),
    evidence_details: {
      due_by: now + RESPONSE_DAYS * 86_400,
      enhanced_eligibility: {},
      has_evidence: false,
      past_due: false,
      submission_count: 0,
      submission_method: 'not_submitted',
    },
    intended_submission_method: null,
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    network_reason_code: null,
    payment_intent: charge.payment_intent,
    reason: oneOf(params, 'reason', REASONS) ?? 'fraudulent',
    status: 'needs_response',
  };
  ctx.account.disputes.set(dispute.id, dispute);
  charge.disputed = true;
  ctx.emit('charge.dispute.created', dispute, clock);
  ctx.emit('charge.dispute.funds_withdrawn', dispute, clock);
  return dispute;
}

function closeDispute(ctx: Ctx, dispute: Stripe.Dispute, status: 'won' | 'lost'): Stripe.Dispute {
  if (!OPEN.includes(dispute.status)) throw invalid(`This dispute is already closed (${dispute.status}).`, 'dispute');
  dispute.status = status;
  const clock = clockOf(ctx, ctx.account.charge(String(dispute.charge)));
  ctx.emit('charge.dispute.closed', dispute, clock);
  if (status === 'won') ctx.emit('charge.dispute.funds_reinstated', dispute, clock);
  return dispute;
}

/** Evidence and metadata; `submit` sends it to the bank (under review), and Stripe's magic evidence decides the outcome at once. */
function updateDispute(ctx: Ctx, dispute: Stripe.Dispute, params: Fields): Stripe.Dispute {
  refuseUnknown(params, ['evidence', 'metadata', 'submit', 'expand']);
  if (!OPEN.includes(dispute.status)) throw invalid(`This dispute is already closed (${dispute.status}).`, 'dispute');
  const evidence = object(params, 'evidence');
  if (evidence) {
    refuseUnknown(evidence, EVIDENCE_FIELDS);
    for (const field of EVIDENCE_FIELDS) {
      const value = text(evidence, field);
      if (value !== undefined) dispute.evidence[field] = value || null;
    }
    dispute.evidence_details.has_evidence = true;
  }
  dispute.metadata = mergeMetadata(dispute.metadata, metadata(params));
  if (boolean(params, 'submit') === true) {
    if (dispute.status === 'under_review') throw invalid('Evidence for this dispute was already submitted.', 'submit');
    dispute.status = 'under_review';
    dispute.evidence_details.submission_count += 1;
    dispute.evidence_details.submission_method = 'manual';
    ctx.emit('charge.dispute.updated', dispute, clockOf(ctx, ctx.account.charge(String(dispute.charge))));
    const magic = dispute.evidence.uncategorized_text;
    if (magic === 'winning_evidence') closeDispute(ctx, dispute, 'won');
    if (magic === 'losing_evidence') closeDispute(ctx, dispute, 'lost');
  }
  return dispute;
}

export const disputeRoutes: Route[] = [
  [
    'GET',
    '/v1/disputes',
    (ctx, params) => {
      refuseUnknown(params, listParams('charge', 'payment_intent'));
      const charge = text(params, 'charge');
      const intent = text(params, 'payment_intent');
      const all = [...ctx.account.disputes.values()].filter((d) => (!charge || d.charge === charge) && (!intent || d.payment_intent === intent));
      return { body: render(ctx.account, listOf(all, params, '/v1/disputes', 'dispute'), params) };
    },
  ],
  ['GET', '/v1/disputes/:id', (ctx, params, [id]) => ({ body: render(ctx.account, ctx.account.dispute(id), params) })],
  ['POST', '/v1/disputes/:id', (ctx, params, [id]) => ({ body: render(ctx.account, updateDispute(ctx, ctx.account.dispute(id), params), params) })],
  [
    'POST',
    '/v1/disputes/:id/close',
    (ctx, params, [id]) => {
      refuseUnknown(params, ['expand']);
      return { body: render(ctx.account, closeDispute(ctx, ctx.account.dispute(id), 'lost'), params) };
    },
  ],
  [
    'POST',
    '/v1/test_helpers/charges/:charge/dispute',
    (ctx, params, [charge]) => {
      refuseUnknown(params, ['reason', 'amount', 'expand']);
      return { body: render(ctx.account, openDispute(ctx, ctx.account.charge(charge), params), params) };
    },
  ],
  [
    'POST',
    '/v1/test_helpers/disputes/:id/close',
    (ctx, params, [id]) => {
      refuseUnknown(params, ['status', 'expand']);
      const status = oneOf(params, 'status', ['won', 'lost'] as const);
      if (!status) throw new StripeApiError(400, 'invalid_request_error', 'Missing required param: status (won or lost).', 'parameter_missing', 'status');
      return { body: render(ctx.account, closeDispute(ctx, ctx.account.dispute(id), status), params) };
    },
  ],
];
