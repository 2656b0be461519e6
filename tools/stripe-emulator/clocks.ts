import type Stripe from 'stripe';
import type { Account, Ctx, InvoiceRecord, SubscriptionRecord } from './account';
import { invalid, newId, refuseUnknown, type Fields } from './errors';
import { render } from './expand';
import { collect, voidInvoice } from './invoices';
import { integer, listOf, listParams, text } from './params';
import type { Route } from './router';
import { boundary, changeSubscription, hasEnded, periodOf, recurringOf } from './subscription-state';
import { reachPeriodEnd } from './billing-cycle';

/**
 * Test clocks: `stripe.testHelpers.testClocks` create (`frozen_time`, `name`), retrieve, list,
 * delete (with its customers and their subscriptions and invoices), advance. A customer created
 * with `test_clock` lives at the clock's frozen time; advancing the clock plays what happens to its
 * subscriptions in between, in time order: each period end renews (a new invoice charged to the
 * default payment method) or ends a subscription set to cancel; each scheduled retry of an unpaid
 * invoice charges again (after the last, the subscription is canceled or unpaid); an `incomplete`
 * subscription expires 23 hours after its creation (`incomplete_expired`, its invoice voided).
 * Events of an advance carry the clock's time as `created` and no request id, as Stripe's, between
 * `test_helpers.test_clock.advancing` and `test_helpers.test_clock.ready`. The local server
 * advances before it answers: the answer is the clock, `ready`, at its new time.
 */

/** Stripe deletes a test clock 30 days after its creation. */
const CLOCK_LIFETIME = 30 * 86_400;
const INCOMPLETE_EXPIRY = 23 * 3600;
/** A bound on the steps of one advance: two years of daily prices with retries stay far below it. */
const MAX_STEPS = 10_000;

interface Step {
  at: number;
  order: number;
  run(ctx: Ctx): void;
}

const onClock = (account: Account, clock: string) => [...account.subscriptions.values()].filter((r) => r.sub.test_clock === clock);
const invoicesOnClock = (account: Account, clock: string) => [...account.invoices.values()].filter((r) => r.invoice.test_clock === clock);

function subscriptionSteps(record: SubscriptionRecord): Step[] {
  const sub = record.sub;
  if (hasEnded(sub)) return [];
  if (sub.status === 'incomplete')
    return [
      {
        at: sub.created + INCOMPLETE_EXPIRY,
        order: 0,
        run: (ctx) =>
          changeSubscription(ctx, record, () => {
            const latest = typeof sub.latest_invoice === 'string' ? ctx.account.invoices.get(sub.latest_invoice) : undefined;
            if (latest) voidInvoice(ctx, latest);
            Object.assign(sub, { status: 'incomplete_expired', ended_at: ctx.account.time(sub.test_clock as string) });
          }),
      },
    ];
  const { end } = periodOf(record);
  const at = sub.cancel_at !== null ? Math.min(sub.cancel_at, end) : end;
  return [{ at, order: 2, run: (ctx) => changeSubscription(ctx, record, () => reachPeriodEnd(ctx, record)) }];
}

function retryStep(account: Account, inv: InvoiceRecord): Step[] {
  const { invoice } = inv;
  if (invoice.status !== 'open' || invoice.auto_advance === false || invoice.next_payment_attempt === null) return [];
  const record = account.subscription(String(invoice.parent?.subscription_details?.subscription));
  return [{ at: invoice.next_payment_attempt, order: 1, run: (ctx) => changeSubscription(ctx, record, () => collect(ctx, inv)) }];
}

/** The first thing due on this clock no later than `until`, in time order (expiries, then retries, then period ends, at one time). */
function nextStep(account: Account, clock: string, until: number): Step | undefined {
  const steps = [...onClock(account, clock).flatMap(subscriptionSteps), ...invoicesOnClock(account, clock).flatMap((inv) => retryStep(account, inv))];
  return steps.filter((s) => s.at <= until).sort((a, b) => a.at - b.at || a.order - b.order)[0];
}

/** How far a clock may go in one advance, as Stripe bounds it: two periods of its shortest subscription, else two years. */
function furthest(account: Account, clock: Stripe.TestHelpers.TestClock): number {
  const limits = onClock(account, clock.id)
    .filter((r) => !hasEnded(r.sub))
    .map((r) => boundary(clock.frozen_time, recurringOf(r), 2));
  return limits.length ? Math.min(...limits) : boundary(clock.frozen_time, { interval: 'year', interval_count: 1 }, 2);
}

function advance(ctx: Ctx, clock: Stripe.TestHelpers.TestClock, params: Fields): Stripe.TestHelpers.TestClock {
  refuseUnknown(params, ['frozen_time', 'expand']);
  const target = integer(params, 'frozen_time');
  if (target === undefined) throw invalid('Missing required param: frozen_time.', 'frozen_time', 'parameter_missing');
  if (target <= clock.frozen_time) throw invalid('The frozen time must be after the current frozen time of the test clock.', 'frozen_time');
  const limit = furthest(ctx.account, clock);
  if (target > limit)
    throw invalid(
      `Cannot advance the test clock more than two intervals of its shortest subscription (or two years) at once: at most to ${limit}.`,
      'frozen_time',
    );
  const auto = ctx.automatic();
  Object.assign(clock, { status: 'advancing', status_details: { advancing: { target_frozen_time: target } } });
  auto.emit('test_helpers.test_clock.advancing', clock, clock.id);
  for (let steps = 0; ; steps++) {
    const step = nextStep(ctx.account, clock.id, target);
    if (!step) break;
    if (steps >= MAX_STEPS) throw invalid('The test clock has too much to do in one advance: advance it in smaller steps.', 'frozen_time');
    clock.frozen_time = step.at;
    step.run(auto);
  }
  Object.assign(clock, { frozen_time: target, status: 'ready', status_details: {} });
  auto.emit('test_helpers.test_clock.ready', clock, clock.id);
  return clock;
}

function createClock(ctx: Ctx, params: Fields): Stripe.TestHelpers.TestClock {
  refuseUnknown(params, ['frozen_time', 'name', 'expand']);
  const frozen = integer(params, 'frozen_time');
  if (frozen === undefined) throw invalid('Missing required param: frozen_time.', 'frozen_time', 'parameter_missing');
  const created = ctx.account.time(null);
  const clock: Stripe.TestHelpers.TestClock = {
    id: newId('clock'),
    object: 'test_helpers.test_clock',
    created,
    deletes_after: created + CLOCK_LIFETIME,
    frozen_time: frozen,
    livemode: false,
    name: text(params, 'name') ?? null,
    status: 'ready',
    status_details: {},
  };
  ctx.account.clocks.set(clock.id, clock);
  ctx.emit('test_helpers.test_clock.created', clock, clock.id);
  return clock;
}

/** Deleting a clock deletes what lives on it: its customers, their subscriptions and invoices. */
function deleteClock(ctx: Ctx, clock: Stripe.TestHelpers.TestClock): Stripe.TestHelpers.DeletedTestClock {
  const account = ctx.account;
  for (const [id, customer] of account.customers) if (customer.test_clock === clock.id) account.customers.delete(id);
  for (const [id, record] of account.subscriptions) if (record.sub.test_clock === clock.id) account.subscriptions.delete(id);
  for (const [id, record] of account.invoices) if (record.invoice.test_clock === clock.id) account.invoices.delete(id);
  account.clocks.delete(clock.id);
  ctx.emit('test_helpers.test_clock.deleted', clock, null);
  return { id: clock.id, object: 'test_helpers.test_clock', deleted: true };
}

export const clockRoutes: Route[] = [
  ['POST', '/v1/test_helpers/test_clocks', (ctx, params) => ({ body: render(ctx.account, createClock(ctx, params), params) })],
  [
    'GET',
    '/v1/test_helpers/test_clocks',
    (ctx, params) => {
      refuseUnknown(params, listParams());
      return { body: listOf([...ctx.account.clocks.values()], params, '/v1/test_helpers/test_clocks', 'test_helpers.test_clock') };
    },
  ],
  ['GET', '/v1/test_helpers/test_clocks/:id', (ctx, params, [id]) => ({ body: render(ctx.account, ctx.account.clock(id), params) })],
  ['DELETE', '/v1/test_helpers/test_clocks/:id', (ctx, _params, [id]) => ({ body: deleteClock(ctx, ctx.account.clock(id)) })],
  [
    'POST',
    '/v1/test_helpers/test_clocks/:id/advance',
    (ctx, params, [id]) => ({ body: render(ctx.account, advance(ctx, ctx.account.clock(id), params), params) }),
  ],
];
