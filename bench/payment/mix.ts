import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import type { Plan } from '../../shared/auth/access-token';
import type { SignedEvent } from './load';

/**
 * The event mix of `npm run bench:payment` (issue 50): what a paying customer base sends the
 * webhook, and the plan each user must end on. Each user runs through MIX from their own place in
 * it, one event per round: subscription renewals (invoice.paid) and one-off purchases
 * (payment_intent.succeeded) most of the time, partial and full refunds of the payment deciding
 * the plan (charge.refunded), and chargebacks opened and closed, won or lost (charge.dispute.*).
 * Refunds and disputes are far more frequent than in life (a few per cent, well under one): the
 * bench is there to load the paths that move plans, not only the common one.
 *
 * The model below applies the rules of docs/payment.md ("Every event and what it does") to each
 * user's events in order; after the run the bench compares every user's plan in identity with it.
 */

type Kind = 'renewal' | 'one_off' | 'partial_refund' | 'full_refund' | 'dispute_created' | 'dispute_closed';
// prettier-ignore
/** One cycle of 20 events: 50 % renewals, 25 % one-off purchases, 10 % partial and 5 % full refunds, 5 % disputes opened and 5 % closed. */
const MIX: readonly Kind[] = [
  'renewal', 'one_off', 'renewal', 'partial_refund', 'renewal', 'one_off', 'renewal', 'dispute_created', 'dispute_closed', 'renewal',
  'one_off', 'renewal', 'full_refund', 'renewal', 'one_off', 'renewal', 'partial_refund', 'renewal', 'one_off', 'renewal',
];

const PRICE: Record<'pro' | 'enterprise', number> = { pro: 2900, enterprise: 9900 };
const PERIOD_SECONDS = 30 * 86_400;

interface PaymentState {
  id: string;
  plan: Plan;
  amount: number;
  refunded: number;
  dispute: 'open' | 'won' | 'lost' | null;
}

/** What the model keeps per user: their payments in the order they happened, and how many disputes they closed (won and lost alternate). */
interface UserState {
  payments: PaymentState[];
  closedDisputes: number;
}

/** A payment gives its plan while it succeeded, is not refunded in full, and no chargeback against it is open or lost. */
const stands = (p: PaymentState) => p.refunded < p.amount && (p.dispute === null || p.dispute === 'won');

/** The plan the ordered events decide: that of the newest payment still standing, else free. */
export const expectedPlan = (user: UserState): Plan => [...user.payments].reverse().find(stands)?.plan ?? 'free';

/** The deciding payment (the newest standing one), which refunds and disputes are made against, as customers ask about what they last paid. */
const deciding = (user: UserState) => [...user.payments].reverse().find(stands);

export interface Mix {
  events: SignedEvent[];
  /** Each user's plan once every event is applied. */
  expected: Map<string, Plan>;
  /** How many events of each kind (what the run sent). */
  counts: Record<string, number>;
  /** Users whose newest payment no longer stands (refunded in full, disputed and not won): a refund or dispute decides their plan. */
  decidedByRefundOrDispute: number;
}

/**
 * `count` signed events over `userIds`, in rounds: event i goes to user i % users at second
 * `created + round`, so one user's events are in order a second apart and the users interleave.
 */
export function signMix(prefix: string, count: number, userIds: string[], secret: string, created: number): Mix {
  const signer = new Stripe('sk_test_bench');
  const users = new Map(userIds.map((id) => [id, { payments: [], closedDisputes: 0 } as UserState]));
  const counts: Record<string, number> = {};
  const events = Array.from({ length: count }, (_, i) => {
    const userId = userIds[i % userIds.length];
    const round = Math.floor(i / userIds.length);
    const event = nextEvent(`${prefix}_${i}`, userId, users.get(userId)!, MIX[(round + (i % userIds.length)) % MIX.length], i, created + round);
    counts[event.type] = (counts[event.type] ?? 0) + 1;
    const body = JSON.stringify({
      id: `evt_${prefix}_${i}`,
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: created + round,
      type: event.type,
      livemode: false,
      pending_webhooks: 1,
      data: { object: event.object },
    });
    return { body, signature: signer.webhooks.generateTestHeaderString({ payload: body, secret }) };
  });
  const decidedByRefundOrDispute = [...users.values()].filter((u) => u.payments.length && !stands(u.payments[u.payments.length - 1])).length;
  return { events, expected: new Map([...users].map(([id, user]) => [id, expectedPlan(user)])), counts, decidedByRefundOrDispute };
}

/**
 * The event of this kind for the user, applied to the model. A refund or dispute needs a payment
 * that decides the plan (a dispute, one never disputed: Stripe opens one dispute per charge), and
 * a dispute's close an open dispute: without one the user buys or renews instead.
 */
function nextEvent(key: string, userId: string, user: UserState, wanted: Kind, i: number, at: number): { type: string; object: object } {
  const target = deciding(user);
  const open = user.payments.find((p) => p.dispute === 'open');
  const needsTarget = wanted === 'partial_refund' || wanted === 'full_refund' || wanted === 'dispute_created';
  const usable = wanted === 'dispute_created' ? target?.dispute === null : target !== undefined;
  // MIX closes each dispute the round after it opens, so no payment is made while one is open.
  const kind: Kind = wanted === 'dispute_closed' ? (open ? wanted : 'renewal') : needsTarget && !usable ? 'one_off' : wanted;
  const plan: 'pro' | 'enterprise' = i % 3 === 0 ? 'enterprise' : 'pro';
  switch (kind) {
    case 'one_off': {
      user.payments.push({ id: `pi_${key}`, plan, amount: PRICE[plan], refunded: 0, dispute: null });
      return { type: 'payment_intent.succeeded', object: intent(`pi_${key}`, userId, plan) };
    }
    case 'renewal': {
      // Each user's subscription is of one plan; its renewal is a new invoice, paid by a new PaymentIntent.
      const subPlan = userId.charCodeAt(userId.length - 1) % 2 ? 'enterprise' : 'pro';
      user.payments.push({ id: `pi_${key}`, plan: subPlan, amount: PRICE[subPlan], refunded: 0, dispute: null });
      return { type: 'invoice.paid', object: invoice(`in_${key}`, userId, subPlan, at) };
    }
    case 'partial_refund':
    case 'full_refund': {
      const p = target!;
      // Partial: a fifth of what is left, at least one cent; full: all of it.
      p.refunded = kind === 'full_refund' ? p.amount : p.refunded + Math.max(1, Math.floor((p.amount - p.refunded) / 5));
      return { type: 'charge.refunded', object: charge(p) };
    }
    case 'dispute_created':
      target!.dispute = 'open';
      return { type: 'charge.dispute.created', object: dispute(target!, 'needs_response') };
    case 'dispute_closed': {
      open!.dispute = user.closedDisputes++ % 2 === 0 ? 'won' : 'lost';
      return { type: 'charge.dispute.closed', object: dispute(open!, open!.dispute) };
    }
  }
}

const intent = (id: string, userId: string, planType: 'pro' | 'enterprise') => ({
  id,
  object: 'payment_intent',
  amount: PRICE[planType],
  currency: 'usd',
  status: 'succeeded',
  metadata: { userId, planType, priceVersion: '2026-01' },
});

/** A renewal's invoice as Stripe sends it in invoice.paid: its subscription (with the route's metadata) and the period it paid for. */
const invoice = (id: string, userId: string, planType: 'pro' | 'enterprise', at: number) => ({
  id,
  object: 'invoice',
  customer: `cus_bench_${userId}`,
  customer_email: null,
  amount_paid: PRICE[planType],
  amount_due: PRICE[planType],
  currency: 'usd',
  status: 'paid',
  billing_reason: 'subscription_cycle',
  period_end: at,
  lines: { object: 'list', data: [{ period: { start: at, end: at + PERIOD_SECONDS } }] },
  parent: { type: 'subscription_details', subscription_details: { subscription: `sub_bench_${userId}`, metadata: { userId, planType } } },
});

const charge = (p: PaymentState) => ({
  id: `ch_${p.id.slice(3)}`,
  object: 'charge',
  amount: p.amount,
  amount_refunded: p.refunded,
  refunded: p.refunded >= p.amount,
  currency: 'usd',
  payment_intent: p.id,
  status: 'succeeded',
});

const dispute = (p: PaymentState, status: string) => ({
  id: `dp_${p.id.slice(3)}`,
  object: 'dispute',
  amount: p.amount,
  charge: `ch_${p.id.slice(3)}`,
  payment_intent: p.id,
  reason: 'fraudulent',
  status,
});

/**
 * The one Stripe read the mix needs: invoice.paid asks which PaymentIntent paid the invoice
 * (GET /v1/invoice_payments). Answered here as Stripe answers it (in_X was paid by pi_X), so the
 * renewals cost the webhook the round trip they cost it in life, without a network to Stripe.
 */
export async function startStripeStub(): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    const invoiceId = url.searchParams.get('invoice');
    res.setHeader('content-type', 'application/json');
    if (req.method !== 'GET' || url.pathname !== '/v1/invoice_payments' || !invoiceId?.startsWith('in_')) {
      res.statusCode = 404;
      res.end(
        JSON.stringify({
          error: { type: 'invalid_request_error', message: `the bench's Stripe answers only invoice payments, not ${req.method} ${url.pathname}` },
        }),
      );
      return;
    }
    calls++;
    const paymentIntent = `pi_${invoiceId.slice(3)}`;
    res.end(
      JSON.stringify({
        object: 'list',
        url: '/v1/invoice_payments',
        has_more: false,
        data: [
          {
            id: `inpay_${invoiceId.slice(3)}`,
            object: 'invoice_payment',
            invoice: invoiceId,
            status: 'paid',
            payment: { type: 'payment_intent', payment_intent: paymentIntent },
          },
        ],
      }),
    );
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
