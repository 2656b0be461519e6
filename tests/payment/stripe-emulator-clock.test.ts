/**
 * A subscriber's year on the local Stripe server's test clock, driven by the official client:
 * subscribe and confirm, renew, upgrade mid-period with Stripe's proration, a failed renewal
 * recovered by a retry, a failed renewal never recovered (retries, then canceled), subscribe
 * again, cancel at the period end. Each step's events are checked in order, signed and verified,
 * with the clock's time as their `created`.
 */
import type Stripe from 'stripe';
import { at, catalog, intentOf, startHarness, startWithCatalog, subscribe, type Harness } from './stripe-emulator-harness';

let h: Harness;
let stripe: Stripe;
let prices: Awaited<ReturnType<typeof catalog>>;

beforeAll(async () => ({ h, stripe, prices } = await startWithCatalog()));
afterAll(() => h.stop());
beforeEach(() => h.clear());

const ADVANCE = ['test_helpers.test_clock.advancing', 'test_helpers.test_clock.ready'];
/** The events of an advance between the clock's own two. */
const between = (types: string[]) => {
  expect(types[0]).toBe(ADVANCE[0]);
  expect(types.at(-1)).toBe(ADVANCE[1]);
  return types.slice(1, -1);
};
const PAID = ['payment_intent.succeeded', 'invoice.paid', 'invoice.payment_succeeded', 'invoice_payment.paid'];
const FAILED = ['payment_intent.payment_failed', 'invoice.payment_failed'];
const previous = (event: Stripe.Event) => (event.data as { previous_attributes?: Record<string, unknown> }).previous_attributes;
const period = (sub: Stripe.Subscription) => [sub.items.data[0].current_period_start, sub.items.data[0].current_period_end];

async function onClock(start: number, email: string) {
  const clock = await stripe.testHelpers.testClocks.create({ frozen_time: start, name: email });
  const customer = await stripe.customers.create({ email, test_clock: clock.id, metadata: { userId: email } });
  return { clock, customer, advance: (time: number) => stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: time }) };
}

test("a subscriber's year: renew, upgrade with proration, failed renewal recovered, failed renewal not recovered, subscribe again, cancel at period end", async () => {
  const { clock, customer, advance } = await onClock(at(2027, 1, 15), 'year@example.com');
  expect(clock).toMatchObject({ object: 'test_helpers.test_clock', status: 'ready', frozen_time: at(2027, 1, 15) });
  expect(customer.test_clock).toBe(clock.id);

  // Subscribe to Pro and confirm the first invoice, as the card form does.
  const sub = await subscribe(stripe, customer.id, prices.proMonthly.id);
  expect(sub).toMatchObject({ status: 'incomplete', test_clock: clock.id, created: at(2027, 1, 15) });
  expect(period(sub)).toEqual([at(2027, 1, 15), at(2027, 2, 15)]);
  await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' });
  expect(await stripe.subscriptions.retrieve(sub.id)).toMatchObject({ status: 'active', default_payment_method: 'pm_card_visa' });

  // 1. Renewal: the period ends, a new invoice is paid with the saved method, the period moves on.
  h.clear();
  expect(await advance(at(2027, 2, 15))).toMatchObject({ status: 'ready', frozen_time: at(2027, 2, 15) });
  expect(between(h.types())).toEqual(['invoice.created', 'invoice.finalized', ...PAID, 'customer.subscription.updated']);
  const renewal = h.events().find((e) => e.type === 'invoice.paid')!.data.object as Stripe.Invoice;
  expect(renewal).toMatchObject({ billing_reason: 'subscription_cycle', amount_paid: 2900, status: 'paid', created: at(2027, 2, 15) });
  expect(renewal.number).toMatch(/-0002$/);
  expect(renewal.lines.data[0].period).toEqual({ start: at(2027, 2, 15), end: at(2027, 3, 15) });
  const renewed = h.events().find((e) => e.type === 'customer.subscription.updated')!;
  expect(renewed.created).toBe(at(2027, 2, 15));
  expect(renewed.request).toEqual({ id: null, idempotency_key: null });
  expect(period(renewed.data.object as Stripe.Subscription)).toEqual([at(2027, 2, 15), at(2027, 3, 15)]);
  expect(previous(renewed)).toHaveProperty('items');
  expect(previous(renewed)).toHaveProperty('latest_invoice');

  // 2. Upgrade to Enterprise halfway through the 28 days of February: credit half of Pro, charge half of Enterprise, at once.
  await advance(at(2027, 3, 1));
  h.clear();
  const upgraded = await stripe.subscriptions.update(sub.id, {
    items: [{ id: sub.items.data[0].id, price: prices.enterpriseMonthly.id }],
    proration_behavior: 'always_invoice',
    expand: ['latest_invoice'],
  });
  expect(upgraded.items.data[0].price.id).toBe(prices.enterpriseMonthly.id);
  expect(period(upgraded)).toEqual([at(2027, 2, 15), at(2027, 3, 15)]);
  const proration = upgraded.latest_invoice as Stripe.Invoice;
  expect(proration).toMatchObject({ billing_reason: 'subscription_update', status: 'paid', total: 3500, amount_paid: 3500 });
  expect(proration.lines.data.map((l) => [l.amount, l.parent?.subscription_item_details?.proration, l.period])).toEqual([
    [-1450, true, { start: at(2027, 3, 1), end: at(2027, 3, 15) }],
    [4950, true, { start: at(2027, 3, 1), end: at(2027, 3, 15) }],
  ]);
  expect(h.types()).toEqual(['invoice.created', 'invoice.finalized', ...PAID, 'customer.subscription.updated']);
  expect(previous(h.events().at(-1)!)).toHaveProperty('items');

  // 3. A failed renewal, recovered: the card fails at the period end, the customer changes it, the retry three days later pays.
  await stripe.subscriptions.update(sub.id, { default_payment_method: 'pm_card_chargeCustomerFail' });
  h.clear();
  await advance(at(2027, 3, 16));
  expect(between(h.types())).toEqual(['invoice.created', 'invoice.finalized', ...FAILED, 'customer.subscription.updated']);
  const failed = h.events().find((e) => e.type === 'invoice.payment_failed')!.data.object as Stripe.Invoice;
  expect(failed).toMatchObject({ status: 'open', amount_due: 9900, attempt_count: 1, next_payment_attempt: at(2027, 3, 18), created: at(2027, 3, 15) });
  const pastDue = h.events().find((e) => e.type === 'customer.subscription.updated')!;
  expect(pastDue.data.object).toMatchObject({ status: 'past_due' });
  expect(previous(pastDue)).toMatchObject({ status: 'active' });
  await stripe.subscriptions.update(sub.id, { default_payment_method: 'pm_card_visa' });
  h.clear();
  await advance(at(2027, 3, 19));
  expect(between(h.types())).toEqual([...PAID, 'customer.subscription.updated']);
  expect(h.events()[1].created).toBe(at(2027, 3, 18));
  expect(await stripe.subscriptions.retrieve(sub.id)).toMatchObject({ status: 'active' });
  expect(await stripe.invoices.retrieve(failed.id)).toMatchObject({ status: 'paid', attempt_count: 2, next_payment_attempt: null });

  // 4. A failed renewal never recovered: retried 3, 5 and 7 days after the first failure, then canceled.
  await stripe.subscriptions.update(sub.id, { default_payment_method: 'pm_card_chargeCustomerFail' });
  h.clear();
  await advance(at(2027, 4, 23));
  expect(between(h.types())).toEqual([
    'invoice.created',
    'invoice.finalized',
    ...FAILED,
    'customer.subscription.updated',
    ...FAILED,
    ...FAILED,
    ...FAILED,
    'customer.subscription.deleted',
  ]);
  const attempts = h.events().filter((e) => e.type === 'invoice.payment_failed');
  expect(attempts.map((e) => e.created)).toEqual([at(2027, 4, 15), at(2027, 4, 18), at(2027, 4, 20), at(2027, 4, 22)]);
  expect(attempts.map((e) => (e.data.object as Stripe.Invoice).next_payment_attempt)).toEqual([at(2027, 4, 18), at(2027, 4, 20), at(2027, 4, 22), null]);
  const ended = h.events().at(-2)!.data.object as Stripe.Subscription;
  expect(ended).toMatchObject({ status: 'canceled', ended_at: at(2027, 4, 22), cancellation_details: { reason: 'payment_failed' } });

  // 5. Subscribe again, then cancel at the period end: kept until then, ended then, with no new invoice.
  const again = await subscribe(stripe, customer.id, prices.proMonthly.id);
  await stripe.paymentIntents.confirm(intentOf(again), { payment_method: 'pm_card_visa' });
  expect(period(await stripe.subscriptions.retrieve(again.id))).toEqual([at(2027, 4, 23), at(2027, 5, 23)]);
  h.clear();
  const canceling = await stripe.subscriptions.update(again.id, { cancel_at_period_end: true });
  expect(canceling).toMatchObject({ status: 'active', cancel_at_period_end: true, cancel_at: at(2027, 5, 23), canceled_at: at(2027, 4, 23) });
  expect(h.types()).toEqual(['customer.subscription.updated']);
  expect(previous(h.events()[0])).toMatchObject({ cancel_at_period_end: false, cancel_at: null });
  const invoices = (await stripe.invoices.list({ customer: customer.id, limit: 100 })).data.length;
  h.clear();
  await advance(at(2027, 5, 24));
  expect(between(h.types())).toEqual(['customer.subscription.deleted']);
  expect(h.events()[1]).toMatchObject({ created: at(2027, 5, 23), data: { object: { status: 'canceled', ended_at: at(2027, 5, 23) } } });
  expect((await stripe.invoices.list({ customer: customer.id, limit: 100 })).data).toHaveLength(invoices);

  // Every invoice of the year, newest first, each with a page and a PDF.
  const all = (await stripe.invoices.list({ customer: customer.id, limit: 100 })).data;
  expect(all.map((i) => i.billing_reason)).toEqual([
    'subscription_create',
    'subscription_cycle',
    'subscription_cycle',
    'subscription_update',
    'subscription_cycle',
    'subscription_create',
  ]);
  expect(all.map((i) => i.status)).toEqual(['paid', 'open', 'paid', 'paid', 'paid', 'paid']);
  for (const invoice of all) expect((await fetch(invoice.invoice_pdf!)).status).toBe(200);
});

test('proration by default waits for the next invoice; a change of interval starts a new period invoiced now', async () => {
  const { customer, advance } = await onClock(at(2027, 1, 1), 'prorate@example.com');
  const sub = await subscribe(stripe, customer.id, prices.proMonthly.id);
  await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' });
  await advance(at(2027, 1, 16) + 12 * 3600);
  h.clear();
  // 17 January 00:00 to 1 February 12:00 is half of the 31 days of the period.
  await stripe.subscriptions.update(sub.id, { items: [{ id: sub.items.data[0].id, price: prices.enterpriseMonthly.id }] });
  expect(h.types()).toEqual(['customer.subscription.updated']);
  await advance(at(2027, 2, 1));
  const renewal = (await stripe.invoices.list({ subscription: sub.id, limit: 1 })).data[0];
  expect(renewal.billing_reason).toBe('subscription_cycle');
  expect(renewal.lines.data.map((l) => l.amount)).toEqual([-1450, 4950, 9900]);
  expect(renewal.amount_paid).toBe(-1450 + 4950 + 9900);

  h.clear();
  const yearly = await stripe.subscriptions.update(sub.id, { items: [{ id: sub.items.data[0].id, price: prices.proYearly.id }], expand: ['latest_invoice'] });
  expect(period(yearly)).toEqual([at(2027, 2, 1), at(2028, 2, 1)]);
  expect(yearly.billing_cycle_anchor).toBe(at(2027, 2, 1));
  const invoice = yearly.latest_invoice as Stripe.Invoice;
  // Unused Enterprise (the whole month) credited, the year charged, at once.
  expect(invoice.lines.data.map((l) => l.amount)).toEqual([-9900, 29000]);
  expect(invoice).toMatchObject({ billing_reason: 'subscription_update', status: 'paid', amount_paid: 19100 });
  // A year renews a year later.
  await advance(at(2028, 2, 1));
  expect(period(await stripe.subscriptions.retrieve(sub.id))).toEqual([at(2028, 2, 1), at(2029, 2, 1)]);
});

test('a downgrade invoiced at once leaves a credit that pays the next invoice first', async () => {
  const { customer, advance } = await onClock(at(2027, 2, 1), 'credit@example.com');
  const sub = await subscribe(stripe, customer.id, prices.enterpriseMonthly.id);
  await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' });
  await advance(at(2027, 2, 15));
  const down = await stripe.subscriptions.update(sub.id, {
    items: [{ id: sub.items.data[0].id, price: prices.proMonthly.id }],
    proration_behavior: 'always_invoice',
    expand: ['latest_invoice'],
  });
  // 14 of February's 28 days left: -4950 + 1450.
  expect(down.latest_invoice).toMatchObject({ total: -3500, amount_due: 0, status: 'paid', ending_balance: -3500 });
  expect((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).toMatchObject({ balance: -3500 });
  await advance(at(2027, 3, 1));
  const next = (await stripe.invoices.list({ subscription: sub.id, limit: 1 })).data[0];
  expect(next).toMatchObject({ total: 2900, starting_balance: -3500, amount_due: 0, ending_balance: -600, status: 'paid' });
});

test('an unconfirmed subscription expires after 23 hours: incomplete_expired, its invoice voided', async () => {
  const { customer, advance } = await onClock(at(2027, 6, 1), 'expire@example.com');
  const sub = await subscribe(stripe, customer.id, prices.proMonthly.id);
  h.clear();
  await advance(at(2027, 6, 2));
  expect(between(h.types())).toEqual(['invoice.voided', 'customer.subscription.deleted']);
  expect(h.events()[2]).toMatchObject({ created: at(2027, 6, 1) + 23 * 3600, data: { object: { id: sub.id, status: 'incomplete_expired' } } });
  expect(await stripe.invoices.retrieve((sub.latest_invoice as Stripe.Invoice).id)).toMatchObject({ status: 'void' });
  await expect(stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' })).rejects.toMatchObject({ statusCode: 400 });
});

test('test clock rules: forward only, at most two periods of its shortest subscription, three customers; listed, retrieved, deleted with what lives on it', async () => {
  const { clock, customer, advance } = await onClock(at(2027, 8, 1), 'rules@example.com');
  await expect(advance(at(2027, 7, 1))).rejects.toMatchObject({ statusCode: 400, param: 'frozen_time' });
  const sub = await subscribe(stripe, customer.id, prices.proMonthly.id);
  await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' });
  await expect(advance(at(2027, 10, 2))).rejects.toMatchObject({ statusCode: 400, param: 'frozen_time' });
  await stripe.customers.create({ email: 'two@example.com', test_clock: clock.id });
  await stripe.customers.create({ email: 'three@example.com', test_clock: clock.id });
  await expect(stripe.customers.create({ email: 'four@example.com', test_clock: clock.id })).rejects.toMatchObject({ statusCode: 400, param: 'test_clock' });
  // Customers and subscriptions on a clock are listed for their clock (or customer) only, as Stripe lists them.
  expect((await stripe.customers.list({ email: 'rules@example.com' })).data).toEqual([]);
  expect((await stripe.customers.list({ test_clock: clock.id })).data).toHaveLength(3);
  expect((await stripe.subscriptions.list({ test_clock: clock.id })).data.map((s) => s.id)).toEqual([sub.id]);
  expect((await stripe.subscriptions.list()).data.map((s) => s.id)).not.toContain(sub.id);
  expect((await stripe.testHelpers.testClocks.list()).data.map((c) => c.id)).toContain(clock.id);
  expect(await stripe.testHelpers.testClocks.del(clock.id)).toEqual(expect.objectContaining({ id: clock.id, deleted: true }));
  await expect(stripe.testHelpers.testClocks.retrieve(clock.id)).rejects.toMatchObject({ statusCode: 404 });
  await expect(stripe.customers.retrieve(customer.id)).rejects.toMatchObject({ statusCode: 404 });
  await expect(stripe.subscriptions.retrieve(sub.id)).rejects.toMatchObject({ statusCode: 404 });
});

test('with retries exhausted an account set to "unpaid" keeps the subscription, unpaid, and renews without charging', async () => {
  const unpaid = await startHarness({ billing: { afterRetries: 'unpaid', retryDays: [2] } });
  try {
    const s = unpaid.stripe;
    const product = await s.products.create({ name: 'Pro' });
    const price = await s.prices.create({ product: product.id, currency: 'usd', unit_amount: 2900, recurring: { interval: 'month' } });
    const clock = await s.testHelpers.testClocks.create({ frozen_time: at(2027, 1, 10) });
    const customer = await s.customers.create({ email: 'unpaid@example.com', test_clock: clock.id });
    const sub = await subscribe(s, customer.id, price.id);
    await s.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' });
    await s.subscriptions.update(sub.id, { default_payment_method: 'pm_card_chargeCustomerFail' });
    unpaid.clear();
    await s.testHelpers.testClocks.advance(clock.id, { frozen_time: at(2027, 2, 13) });
    expect(between(unpaid.types())).toEqual([
      'invoice.created',
      'invoice.finalized',
      ...FAILED,
      'customer.subscription.updated',
      ...FAILED,
      'customer.subscription.updated',
    ]);
    expect(unpaid.events().at(-2)!.data.object).toMatchObject({ status: 'unpaid' });
    unpaid.clear();
    await s.testHelpers.testClocks.advance(clock.id, { frozen_time: at(2027, 3, 10) });
    expect(between(unpaid.types())).toEqual(['invoice.created', 'invoice.finalized', 'customer.subscription.updated']);
    expect(await s.subscriptions.retrieve(sub.id)).toMatchObject({ status: 'unpaid' });
  } finally {
    await unpaid.stop();
  }
});

test('a renewal with no payment method at all fails like a declined card', async () => {
  const { customer, advance } = await onClock(at(2027, 9, 1), 'nomethod@example.com');
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: prices.proMonthly.id }], payment_behavior: 'default_incomplete' });
  await stripe.paymentIntents.confirm(
    intentOf((await stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice.confirmation_secret'] })) as Stripe.Subscription),
    {
      payment_method: 'pm_card_visa',
    },
  );
  // save_default_payment_method was off: nothing is saved, and the customer has no default.
  expect((await stripe.subscriptions.retrieve(sub.id)).default_payment_method).toBeNull();
  h.clear();
  await advance(at(2027, 10, 1));
  expect(between(h.types())).toEqual(['invoice.created', 'invoice.finalized', 'invoice.payment_failed', 'customer.subscription.updated']);
});
