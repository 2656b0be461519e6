import type Stripe from 'stripe';

/**
 * The Billing scenarios of `npm run stripe:trigger`, each a few ordinary Stripe calls made with the
 * client it is handed (the local Stripe server's, in offline mode), so the local server answers
 * them exactly as Stripe would: time moves with the customer's test clock, and where there is none,
 * with what Stripe's API offers instead (a billing cycle reset to now, an immediate cancellation).
 * Each answers what it did and how the webhook endpoints answered each event (the local server's
 * `Emulator-Webhook-Delivery` header).
 */

export interface ScenarioOutcome {
  /** What happened, one line each. */
  said: string[];
  /** How each endpoint answered each event, in order. */
  deliveries: string[];
}

interface Scenario {
  args: string;
  help: string;
  run(stripe: Stripe, id: string, options: ScenarioOptions, out: ScenarioOutcome): Promise<void>;
}

export interface ScenarioOptions {
  now?: boolean;
  all?: boolean;
  amount?: number;
  reason?: string;
}

type Answered = { lastResponse?: { headers?: Record<string, string | string[] | undefined> } };

/** Keeps the deliveries an answer reports; answers it unchanged. */
function noted<T>(out: ScenarioOutcome, answer: T): T {
  const header = (answer as Answered).lastResponse?.headers?.['emulator-webhook-delivery'];
  if (typeof header === 'string') out.deliveries.push(...decodeURIComponent(header).split('\n'));
  return answer;
}

const day = (seconds: number | null | undefined) => (seconds ? new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ') : 'none');
const periodEnd = (sub: Stripe.Subscription) => sub.items.data[0].current_period_end;
const describe = (sub: Stripe.Subscription) =>
  `subscription ${sub.id}: ${sub.status}, period ends ${day(periodEnd(sub))}${sub.cancel_at_period_end ? ' (cancels then)' : ''}${sub.latest_invoice ? `, latest invoice ${typeof sub.latest_invoice === 'string' ? sub.latest_invoice : sub.latest_invoice.id}` : ''}`;

const clockOf = (sub: Stripe.Subscription) => (typeof sub.test_clock === 'string' ? sub.test_clock : (sub.test_clock?.id ?? null));

async function advanceTo(stripe: Stripe, clock: string, time: number, out: ScenarioOutcome): Promise<void> {
  const moved = noted(out, await stripe.testHelpers.testClocks.advance(clock, { frozen_time: time }));
  out.said.push(`test clock ${clock} advanced to ${day(moved.frozen_time)}`);
}

/** The period ends: on a test clock, the clock moves to it; without one, a cancel-at-period-end subscription ends now, any other starts a new period now. */
async function renew(stripe: Stripe, id: string, out: ScenarioOutcome): Promise<void> {
  const sub = await stripe.subscriptions.retrieve(id);
  const clock = clockOf(sub);
  if (clock) await advanceTo(stripe, clock, sub.cancel_at ?? periodEnd(sub), out);
  else if (sub.cancel_at_period_end) noted(out, await stripe.subscriptions.cancel(id));
  else noted(out, await stripe.subscriptions.update(id, { billing_cycle_anchor: { type: 'now' }, proration_behavior: 'none' }));
  out.said.push(describe(await stripe.subscriptions.retrieve(id)));
}

async function openInvoiceOf(stripe: Stripe, subscription: string): Promise<Stripe.Invoice> {
  const [open] = (await stripe.invoices.list({ subscription, status: 'open', limit: 1 })).data;
  if (!open) throw new Error(`subscription ${subscription} has no open invoice`);
  return open;
}

/** The charge an id leads to: a charge, a PaymentIntent's, an invoice's payment's, or a subscription's latest paid invoice's. */
async function chargeOf(stripe: Stripe, id: string): Promise<string> {
  if (id.startsWith('ch_')) return id;
  if (id.startsWith('pi_')) {
    const pi = await stripe.paymentIntents.retrieve(id);
    if (!pi.latest_charge) throw new Error(`payment intent ${id} has no charge (status ${pi.status})`);
    return typeof pi.latest_charge === 'string' ? pi.latest_charge : pi.latest_charge.id;
  }
  let invoice = id;
  if (id.startsWith('sub_')) {
    const [paid] = (await stripe.invoices.list({ subscription: id, status: 'paid', limit: 1 })).data;
    if (!paid) throw new Error(`subscription ${id} has no paid invoice`);
    invoice = paid.id;
  } else if (!id.startsWith('in_')) throw new Error(`${id} is not a charge, payment intent, invoice or subscription id`);
  const [payment] = (await stripe.invoicePayments.list({ invoice, status: 'paid', limit: 1 })).data;
  const intent = payment?.payment.payment_intent;
  if (!intent) throw new Error(`invoice ${invoice} has no paid payment`);
  return chargeOf(stripe, typeof intent === 'string' ? intent : intent.id);
}

async function disputeOf(stripe: Stripe, id: string): Promise<string> {
  if (id.startsWith('dp_')) return id;
  const charge = await chargeOf(stripe, id);
  const open = (await stripe.disputes.list({ charge, limit: 10 })).data.find((d) =>
    ['needs_response', 'under_review', 'warning_needs_response'].includes(d.status),
  );
  if (!open) throw new Error(`charge ${charge} has no open dispute`);
  return open.id;
}

async function closeDispute(stripe: Stripe, id: string, outcome: 'winning_evidence' | 'losing_evidence', out: ScenarioOutcome): Promise<void> {
  const dispute = noted(out, await stripe.disputes.update(await disputeOf(stripe, id), { evidence: { uncategorized_text: outcome }, submit: true }));
  out.said.push(`dispute ${dispute.id} on charge ${String(dispute.charge)}: ${dispute.status}`);
}

export const SCENARIOS: Record<string, Scenario> = {
  renew: {
    args: '<sub_...>',
    help: 'the period ends: renewed and charged to the default payment method (test clock advanced to the period end; without one, a new period starts now)',
    run: (stripe, id, _o, out) => renew(stripe, id, out),
  },
  'fail-renewal': {
    args: '<sub_...>',
    help: 'the default payment method becomes pm_card_chargeCustomerFail, then the period ends: invoice.payment_failed, past_due',
    run: async (stripe, id, _o, out) => {
      noted(out, await stripe.subscriptions.update(id, { default_payment_method: 'pm_card_chargeCustomerFail' }));
      await renew(stripe, id, out);
    },
  },
  recover: {
    args: '<sub_...>',
    help: 'the open invoice is paid with pm_card_visa, which becomes the default: invoice.paid, active again',
    run: async (stripe, id, _o, out) => {
      const invoice = noted(out, await stripe.invoices.pay((await openInvoiceOf(stripe, id)).id, { payment_method: 'pm_card_visa' }));
      noted(out, await stripe.subscriptions.update(id, { default_payment_method: 'pm_card_visa' }));
      out.said.push(`invoice ${invoice.id}: ${invoice.status}`, describe(await stripe.subscriptions.retrieve(id)));
    },
  },
  retry: {
    args: '<sub_...> [--all]',
    help: "(test clock) the clock moves to the open invoice's next payment attempt (--all: through every attempt left; after the last, the subscription is canceled)",
    run: async (stripe, id, options, out) => {
      const clock = clockOf(await stripe.subscriptions.retrieve(id));
      if (!clock) throw new Error(`subscription ${id} is not on a test clock: retries follow time, which only a test clock moves`);
      do {
        const invoice = await openInvoiceOf(stripe, id);
        if (!invoice.next_payment_attempt) {
          out.said.push(`invoice ${invoice.id} has no payment attempt left`);
          break;
        }
        await advanceTo(stripe, clock, invoice.next_payment_attempt, out);
        const sub = await stripe.subscriptions.retrieve(id);
        if (['active', 'canceled', 'unpaid'].includes(sub.status)) break;
      } while (options.all);
      out.said.push(describe(await stripe.subscriptions.retrieve(id)));
    },
  },
  cancel: {
    args: '<sub_...> [--now]',
    help: 'cancel_at_period_end (customer.subscription.updated); --now: canceled at once (customer.subscription.deleted)',
    run: async (stripe, id, options, out) => {
      const sub = noted(out, options.now ? await stripe.subscriptions.cancel(id) : await stripe.subscriptions.update(id, { cancel_at_period_end: true }));
      out.said.push(describe(sub));
    },
  },
  'dispute-open': {
    args: '<pi_|ch_|in_|sub_...> [--reason <reason>]',
    help: "the charge (of the payment, of the invoice, or of the subscription's latest paid invoice) is disputed: charge.dispute.created",
    run: async (stripe, id, options, out) => {
      const charge = await chargeOf(stripe, id);
      const dispute = noted(
        out,
        (await stripe.rawRequest(
          'POST',
          `/v1/test_helpers/charges/${charge}/dispute`,
          options.reason ? { reason: options.reason } : {},
        )) as Stripe.Response<Stripe.Dispute>,
      );
      out.said.push(`dispute ${dispute.id} on charge ${charge}: ${dispute.status} (${dispute.reason})`);
    },
  },
  'dispute-won': {
    args: '<dp_|ch_|pi_|in_|sub_...>',
    help: 'winning evidence is submitted: charge.dispute.updated, charge.dispute.closed (won), charge.dispute.funds_reinstated',
    run: (stripe, id, _o, out) => closeDispute(stripe, id, 'winning_evidence', out),
  },
  'dispute-lost': {
    args: '<dp_|ch_|pi_|in_|sub_...>',
    help: 'losing evidence is submitted: charge.dispute.updated, charge.dispute.closed (lost)',
    run: (stripe, id, _o, out) => closeDispute(stripe, id, 'losing_evidence', out),
  },
  'refund-invoice': {
    args: '<in_...|sub_...> [--amount <cents>]',
    help: "the invoice's payment (a subscription's latest paid invoice's) is refunded, in full or --amount: charge.refunded",
    run: async (stripe, id, options, out) => {
      const charge = await chargeOf(stripe, id);
      const refund = noted(out, await stripe.refunds.create({ charge, ...(options.amount ? { amount: options.amount } : {}) }));
      out.said.push(`refund ${refund.id} of ${refund.amount} on charge ${charge}: ${refund.status}`);
    },
  },
};

export async function runScenario(stripe: Stripe, name: string, id: string, options: ScenarioOptions = {}): Promise<ScenarioOutcome> {
  const scenario = Object.hasOwn(SCENARIOS, name) ? SCENARIOS[name] : undefined;
  if (!scenario) throw new Error(`unknown scenario ${name}`);
  const out: ScenarioOutcome = { said: [], deliveries: [] };
  await scenario.run(stripe, id, options, out);
  return out;
}

/** The scenarios' lines of `--help`. */
export const scenarioHelp = () =>
  Object.entries(SCENARIOS)
    .map(([name, s]) => `  ${`${name} ${s.args}`.padEnd(56)} ${s.help}`)
    .join('\n');
