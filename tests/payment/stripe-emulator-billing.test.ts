/**
 * The local Stripe server's Billing, driven by the official client as the payment service drives
 * Stripe: customers, products and prices, a subscription confirmed the way a card form confirms it,
 * its invoices and their pages, the Customer Portal, and the signed events of each step.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Stripe from 'stripe';
import { deliveryHeader } from '../../tools/stripe-emulator/events';
import { describeWithTool } from '../helpers/tools';
import { catalog, intentOf, startWithCatalog, subscribe, type Harness } from './stripe-emulator-harness';

let h: Harness;
let stripe: Stripe;
let prices: Awaited<ReturnType<typeof catalog>>;

beforeAll(async () => ({ h, stripe, prices } = await startWithCatalog()));
afterAll(() => h.stop());
beforeEach(() => h.clear());

test('customers: created with e-mail and metadata.userId, retrieved, updated (metadata merged), found by list and search', async () => {
  const created = await stripe.customers.create({ email: 'ann@example.com', name: 'Ann', metadata: { userId: 'u-ann', tier: 'x' } });
  expect(created).toMatchObject({ object: 'customer', email: 'ann@example.com', metadata: { userId: 'u-ann' }, balance: 0, livemode: false, test_clock: null });
  expect(created.id).toMatch(/^cus_\w{24}$/);
  expect(await stripe.customers.retrieve(created.id)).toEqual(expect.objectContaining({ id: created.id, email: 'ann@example.com' }));
  const updated = await stripe.customers.update(created.id, {
    metadata: { tier: '', plan: 'pro' },
    invoice_settings: { default_payment_method: 'pm_card_visa' },
  });
  expect(updated.metadata).toEqual({ userId: 'u-ann', plan: 'pro' });
  expect(updated.invoice_settings.default_payment_method).toBe('pm_card_visa');
  const events = h.events();
  expect(events.map((e) => e.type)).toEqual(['customer.created', 'customer.updated']);
  expect((events[1].data as { previous_attributes?: Record<string, unknown> }).previous_attributes).toMatchObject({ metadata: { userId: 'u-ann', tier: 'x' } });

  expect((await stripe.customers.list({ email: 'ann@example.com' })).data.map((c) => c.id)).toEqual([created.id]);
  expect((await stripe.customers.list({ email: 'ANN@example.com' })).data).toEqual([]);
  const found = await stripe.customers.search({ query: "metadata['userId']:'u-ann'" });
  expect(found).toMatchObject({ object: 'search_result', has_more: false });
  expect(found.data.map((c) => c.id)).toEqual([created.id]);
  expect((await stripe.customers.search({ query: "email:'ANN@example.com' AND name~'Ann'" })).data).toHaveLength(1);
  expect((await stripe.customers.search({ query: "-metadata['userId']:'u-ann' AND email:'ann@example.com'" })).data).toHaveLength(0);
  await expect(stripe.customers.search({ query: "email:'a' AND name:'b' OR phone:'c'" })).rejects.toMatchObject({ statusCode: 400, param: 'query' });
  await expect(stripe.customers.create({ email: 'not-an-email' })).rejects.toMatchObject({ statusCode: 400, code: 'email_invalid', param: 'email' });
  await expect(stripe.customers.retrieve('cus_missing')).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
});

test('a customer is created once under an Idempotency-Key; another body under the same key is refused', async () => {
  const first = await stripe.customers.create({ email: 'once@example.com', metadata: { userId: 'u-once' } }, { idempotencyKey: 'customer-u-once' });
  const again = await stripe.customers.create({ email: 'once@example.com', metadata: { userId: 'u-once' } }, { idempotencyKey: 'customer-u-once' });
  expect(again.id).toBe(first.id);
  expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
  await expect(stripe.customers.create({ email: 'other@example.com' }, { idempotencyKey: 'customer-u-once' })).rejects.toBeInstanceOf(
    Stripe.errors.StripeIdempotencyError,
  );
  expect((await stripe.customers.list({ email: 'once@example.com' })).data).toHaveLength(1);
});

test('prices: monthly and yearly recurring prices found by lookup key; a lookup key names one price unless transferred', async () => {
  const found = await stripe.prices.list({ lookup_keys: ['pro_monthly', 'pro_yearly'], expand: ['data.product'] });
  expect(found.data.map((p) => p.lookup_key).sort()).toEqual(['pro_monthly', 'pro_yearly']);
  const yearly = found.data.find((p) => p.lookup_key === 'pro_yearly')!;
  expect(yearly).toMatchObject({ object: 'price', type: 'recurring', unit_amount: 29000, currency: 'usd', recurring: { interval: 'year', interval_count: 1 } });
  expect((yearly.product as Stripe.Product).name).toBe('Pro');
  await expect(
    stripe.prices.create({
      product: (yearly.product as Stripe.Product).id,
      currency: 'usd',
      unit_amount: 3100,
      recurring: { interval: 'month' },
      lookup_key: 'pro_monthly',
    }),
  ).rejects.toMatchObject({ statusCode: 400, param: 'lookup_key' });
  const moved = await stripe.prices.create({
    product_data: { name: 'Pro 2027' },
    currency: 'usd',
    unit_amount: 3100,
    recurring: { interval: 'month' },
    lookup_key: 'pro_monthly',
    transfer_lookup_key: true,
  });
  expect((await stripe.prices.list({ lookup_keys: ['pro_monthly'] })).data.map((p) => p.id)).toEqual([moved.id]);
  expect((await stripe.prices.retrieve(prices.proMonthly.id)).lookup_key).toBeNull();
  // Put the catalog back for the other tests.
  await stripe.prices.update(prices.proMonthly.id, { lookup_key: 'pro_monthly', transfer_lookup_key: true });
});

test('a subscription for a card form: incomplete until its first invoice is confirmed, then active, paid, its method saved', async () => {
  const customer = await stripe.customers.create({ email: 'sub@example.com', metadata: { userId: 'u1' } });
  h.clear();
  const sub = await subscribe(stripe, customer.id, prices.proMonthly.id);
  expect(sub).toMatchObject({
    object: 'subscription',
    status: 'incomplete',
    customer: customer.id,
    currency: 'usd',
    default_payment_method: null,
    metadata: { userId: 'u1' },
  });
  const [item] = sub.items.data;
  expect(item).toMatchObject({ object: 'subscription_item', price: { id: prices.proMonthly.id }, quantity: 1 });
  // Periods live on the item since API 2025-03-31: a month from now, to the second.
  const start = new Date(item.current_period_start * 1000);
  const end = new Date(item.current_period_end * 1000);
  expect(end.getUTCDate()).toBe(Math.min(start.getUTCDate(), end.getUTCDate()));
  expect((end.getUTCMonth() - start.getUTCMonth() + 12) % 12).toBe(1);
  const invoice = sub.latest_invoice as Stripe.Invoice;
  expect(invoice).toMatchObject({ object: 'invoice', status: 'open', billing_reason: 'subscription_create', amount_due: 2900, amount_paid: 0 });
  expect(invoice).not.toHaveProperty('payment_intent');
  expect(invoice.confirmation_secret).toMatchObject({ type: 'payment_intent', client_secret: expect.stringMatching(/^pi_\w+_secret_/) });
  expect(invoice.payments!.data).toEqual([expect.objectContaining({ object: 'invoice_payment', status: 'open', amount_requested: 2900, is_default: true })]);
  expect(invoice.parent).toMatchObject({ type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: { userId: 'u1' } } });
  expect(invoice.lines.data[0]).toMatchObject({ amount: 2900, period: { start: item.current_period_start, end: item.current_period_end } });
  expect(h.types()).toEqual(['customer.subscription.created', 'invoice.created', 'invoice.finalized']);

  // Without expand, an invoice carries no client secret (an includable field).
  expect(await stripe.invoices.retrieve(invoice.id)).not.toHaveProperty('confirmation_secret');
  h.clear();
  const paid = await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' });
  expect(paid).toMatchObject({ status: 'succeeded', amount: 2900, customer: customer.id, description: 'Subscription creation' });
  expect(h.types()).toEqual(['payment_intent.succeeded', 'invoice.paid', 'invoice.payment_succeeded', 'invoice_payment.paid', 'customer.subscription.updated']);
  const updated = h.events().at(-1)!;
  expect(updated.data.object).toMatchObject({ id: sub.id, status: 'active', default_payment_method: 'pm_card_visa' });
  expect((updated.data as { previous_attributes?: object }).previous_attributes).toEqual({ status: 'incomplete', default_payment_method: null });
  expect(h.events()[1].data.object).toMatchObject({ id: invoice.id, status: 'paid', amount_paid: 2900, amount_remaining: 0 });

  const now = await stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice.payments'] });
  expect(now.status).toBe('active');
  expect((now.latest_invoice as Stripe.Invoice).payments!.data[0]).toMatchObject({
    status: 'paid',
    amount_paid: 2900,
    payment: { type: 'payment_intent', payment_intent: paid.id },
  });
  const byIntent = await stripe.invoicePayments.list({ payment: { type: 'payment_intent', payment_intent: paid.id } });
  expect(byIntent.data.map((p) => p.invoice)).toEqual([invoice.id]);
  expect((await stripe.subscriptions.list({ customer: customer.id })).data.map((s) => s.id)).toEqual([sub.id]);
});

test('a declined first payment leaves the subscription incomplete and the invoice open for another try', async () => {
  const customer = await stripe.customers.create({ email: 'declined@example.com' });
  const sub = await subscribe(stripe, customer.id, prices.proMonthly.id);
  h.clear();
  const error = await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_chargeDeclined' }).catch((e) => e);
  expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
  expect(h.types()).toEqual(['payment_intent.payment_failed', 'invoice.payment_failed']);
  expect(await stripe.subscriptions.retrieve(sub.id)).toMatchObject({ status: 'incomplete' });
  await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' });
  expect(await stripe.subscriptions.retrieve(sub.id)).toMatchObject({ status: 'active', default_payment_method: 'pm_card_visa' });
});

test('allow_incomplete charges the default method at once; error_if_incomplete with a declining card creates nothing', async () => {
  const customer = await stripe.customers.create({ email: 'auto@example.com', invoice_settings: { default_payment_method: 'pm_card_visa' } });
  h.clear();
  const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: prices.proMonthly.id }] });
  expect(sub.status).toBe('active');
  expect(h.types()).toEqual([
    'customer.subscription.created',
    'invoice.created',
    'invoice.finalized',
    'payment_intent.succeeded',
    'invoice.paid',
    'invoice.payment_succeeded',
    'invoice_payment.paid',
    'customer.subscription.updated',
  ]);
  const failing = await stripe.customers.create({ email: 'fail@example.com', invoice_settings: { default_payment_method: 'pm_card_chargeDeclined' } });
  const error = await stripe.subscriptions
    .create({ customer: failing.id, items: [{ price: prices.proMonthly.id }], payment_behavior: 'error_if_incomplete' })
    .catch((e) => e);
  expect(error).toMatchObject({ statusCode: 402, code: 'card_declined' });
  expect((await stripe.subscriptions.list({ customer: failing.id, status: 'all' })).data).toEqual([]);
});

test('subscription errors in Stripe format: a one-time price, an unknown customer, two items, an unsupported parameter', async () => {
  const customer = await stripe.customers.create({ email: 'errors@example.com' });
  const oneTime = await stripe.prices.create({ product_data: { name: 'Once' }, currency: 'usd', unit_amount: 500 });
  await expect(stripe.subscriptions.create({ customer: customer.id, items: [{ price: oneTime.id }] })).rejects.toMatchObject({
    statusCode: 400,
    param: 'items[0][price]',
  });
  await expect(stripe.subscriptions.create({ customer: 'cus_nope', items: [{ price: prices.proMonthly.id }] })).rejects.toMatchObject({
    statusCode: 404,
    code: 'resource_missing',
  });
  await expect(
    stripe.subscriptions.create({ customer: customer.id, items: [{ price: prices.proMonthly.id }, { price: prices.enterpriseMonthly.id }] }),
  ).rejects.toMatchObject({ statusCode: 400, param: 'items' });
  await expect(stripe.subscriptions.create({ customer: customer.id, items: [{ price: prices.proMonthly.id }], trial_period_days: 7 })).rejects.toMatchObject({
    statusCode: 400,
    code: 'parameter_unknown',
    param: 'trial_period_days',
  });
  await expect(stripe.subscriptions.retrieve('sub_x', { expand: ['latest_invoice.nothing'] })).rejects.toMatchObject({ statusCode: 404 });
  const sub = await subscribe(stripe, customer.id, prices.proMonthly.id);
  await expect(stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice.nothing'] })).rejects.toMatchObject({ statusCode: 400, param: 'expand' });
});

test('invoices are listed by customer and subscription, and their hosted page and PDF answer', async () => {
  const customer = await stripe.customers.create({ email: 'invoices@example.com', name: 'Ivy <script>' });
  const sub = await subscribe(stripe, customer.id, prices.proMonthly.id);
  await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' });
  const listed = await stripe.invoices.list({ customer: customer.id });
  expect(listed.data).toHaveLength(1);
  const [invoice] = listed.data;
  expect((await stripe.invoices.list({ subscription: sub.id, status: 'paid' })).data.map((i) => i.id)).toEqual([invoice.id]);
  expect(invoice.number).toMatch(/^[0-9A-F]{8}-0001$/);
  expect(invoice.hosted_invoice_url).toBe(`${h.emulator.url}/invoices/${invoice.id}`);
  const page = await fetch(invoice.hosted_invoice_url!);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const text = await page.text();
  expect(text).toContain(invoice.number!);
  expect(text).toContain('$29.00');
  expect(text).not.toContain('<script>');
  const pdf = await fetch(invoice.invoice_pdf!);
  expect(pdf.status).toBe(200);
  expect(pdf.headers.get('content-type')).toBe('application/pdf');
  const bytes = Buffer.from(await pdf.arrayBuffer()).toString('latin1');
  expect(bytes.startsWith('%PDF-1.4')).toBe(true);
  expect(bytes.trimEnd().endsWith('%%EOF')).toBe(true);
  expect(bytes).toContain(`(Invoice ${invoice.number})`);
  // The cross-reference table points at each object's first byte.
  const xref = Number(/startxref\n(\d+)/.exec(bytes)![1]);
  expect(bytes.slice(xref, xref + 4)).toBe('xref');
  const offsets = [...bytes.matchAll(/(\d{10}) 00000 n /g)].map((m) => Number(m[1]));
  expect(offsets).toHaveLength(5);
  offsets.forEach((offset, i) => expect(bytes.slice(offset).startsWith(`${i + 1} 0 obj`)).toBe(true));
  expect((await fetch(`${h.emulator.url}/invoices/in_unknown`)).status).toBe(404);
  const lines = await stripe.invoices.listLineItems(invoice.id);
  expect(lines.data[0]).toMatchObject({ object: 'line_item', amount: 2900, pricing: { price_details: { price: prices.proMonthly.id } } });
});

describeWithTool('poppler-utils', 'an invoice PDF as a checker reads it', (poppler) => {
  test('pdfinfo reads one A4 page without complaint; pdftotext reads the number, the line and the amounts', async () => {
    const customer = await stripe.customers.create({ email: 'pdf@example.com' });
    const sub = await subscribe(stripe, customer.id, prices.enterpriseMonthly.id);
    await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' });
    const [invoice] = (await stripe.invoices.list({ customer: customer.id })).data;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'invoice-pdf-'));
    try {
      const file = path.join(dir, 'invoice.pdf');
      fs.writeFileSync(file, Buffer.from(await (await fetch(invoice.invoice_pdf!)).arrayBuffer()));
      const info = await promisify(execFile)(poppler.pdfinfo, [file]);
      expect(info.stderr).toBe('');
      expect(info.stdout).toMatch(/^Pages:\s+1$/m);
      expect(info.stdout).toMatch(/^Page size:\s+595 x 842 pts \(A4\)$/m);
      const { stdout } = await promisify(execFile)(poppler.pdftotext, ['-layout', file, '-']);
      expect(stdout).toContain(`Invoice ${invoice.number}`);
      expect(stdout).toContain('Billed to pdf@example.com');
      expect(stdout).toMatch(/^1 x Enterprise \(at \$99\.00 \/ month\)\s+\$99\.00$/m);
      expect(stdout).toMatch(/^Total \$99\.00\s+Amount due \$99\.00\s+Paid \$99\.00$/m);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('the Customer Portal: a session URL to a page of the subscription and invoices, whose cancel button cancels at the period end', async () => {
  const customer = await stripe.customers.create({ email: 'portal@example.com' });
  const sub = await subscribe(stripe, customer.id, prices.enterpriseMonthly.id);
  await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' });
  h.clear();
  const session = await stripe.billingPortal.sessions.create({ customer: customer.id, return_url: 'http://localhost:7071/account' });
  expect(session).toMatchObject({ object: 'billing_portal.session', customer: customer.id, return_url: 'http://localhost:7071/account', livemode: false });
  expect(session.url).toMatch(new RegExp(`^${h.emulator.url}/billing_portal/sessions/bps_`));
  expect(h.types()).toEqual(['billing_portal.session.created']);
  const page = await (await fetch(session.url)).text();
  expect(page).toContain('Enterprise');
  expect(page).toContain('$99.00');
  expect(page).toContain('href="http://localhost:7071/account"');
  const [invoice] = (await stripe.invoices.list({ customer: customer.id })).data;
  expect(page).toContain(invoice.hosted_invoice_url!);

  h.clear();
  const canceled = await fetch(`${session.url}/cancel`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `subscription=${sub.id}`,
    redirect: 'manual',
  });
  expect(canceled.status).toBe(303);
  const after = await stripe.subscriptions.retrieve(sub.id);
  expect(after).toMatchObject({ status: 'active', cancel_at_period_end: true, cancel_at: after.items.data[0].current_period_end });
  expect(after.cancellation_details).toMatchObject({ reason: 'cancellation_requested' });
  expect(h.types()).toEqual(['customer.subscription.updated']);
  expect(await (await fetch(session.url)).text()).toContain('Cancels on');
  // Someone else's subscription, or an unknown session, is not found.
  const other = await stripe.customers.create({ email: 'other-portal@example.com' });
  const otherSession = await stripe.billingPortal.sessions.create({ customer: other.id });
  const refused = await fetch(`${otherSession.url}/cancel`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `subscription=${sub.id}`,
  });
  expect(refused.status).toBe(404);
  expect((await fetch(`${h.emulator.url}/billing_portal/sessions/bps_unknown`)).status).toBe(404);
});

test('cancel now: customer.subscription.deleted; a canceled subscription can only change its metadata', async () => {
  const customer = await stripe.customers.create({ email: 'cancel@example.com' });
  const sub = await subscribe(stripe, customer.id, prices.proMonthly.id);
  await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' });
  h.clear();
  const canceled = await stripe.subscriptions.cancel(sub.id, { cancellation_details: { comment: 'too expensive' } });
  expect(canceled).toMatchObject({ status: 'canceled', cancellation_details: { reason: 'cancellation_requested', comment: 'too expensive' } });
  expect(canceled.ended_at).toEqual(expect.any(Number));
  expect(h.types()).toEqual(['customer.subscription.deleted']);
  await expect(stripe.subscriptions.update(sub.id, { cancel_at_period_end: true })).rejects.toMatchObject({
    statusCode: 400,
    code: 'invalid_canceled_subscription_fields',
  });
  expect((await stripe.subscriptions.update(sub.id, { metadata: { note: 'kept' } })).metadata).toMatchObject({ note: 'kept' });
  expect((await stripe.subscriptions.list({ customer: customer.id })).data).toEqual([]);
  expect((await stripe.subscriptions.list({ customer: customer.id, status: 'canceled' })).data.map((s) => s.id)).toEqual([sub.id]);
});

test('every delivered event verifies with stripe.webhooks.constructEvent and is the one GET /v1/events/:id answers', async () => {
  const customer = await stripe.customers.create({ email: 'verify@example.com' });
  const sub = await subscribe(stripe, customer.id, prices.proMonthly.id);
  await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' });
  const events = h.events();
  expect(events.length).toBeGreaterThan(5);
  for (const event of events) {
    expect(event).toMatchObject({ object: 'event', api_version: Stripe.API_VERSION, livemode: false });
    expect((await stripe.events.retrieve(event.id)).type).toBe(event.type);
  }
  expect((await stripe.events.list({ type: 'invoice.paid', limit: 100 })).data.map((e) => e.id)).toContain(events.find((e) => e.type === 'invoice.paid')!.id);
});

test('the delivery header of a long request (a clock advanced over many renewals) stays under 8 KB, whole lines only, and says what it left out', () => {
  const lines = Array.from({ length: 60 }, (_, i) => `invoice.paid evt_${i} -> 200 ${'é'.repeat(400)}`);
  const header = deliveryHeader(lines)['Emulator-Webhook-Delivery'];
  expect(header.length).toBeLessThanOrEqual(8_000);
  const decoded = decodeURIComponent(header).split('\n');
  expect(decoded.at(-1)).toMatch(/^\.\.\. \d+ more lines \(GET \/v1\/events lists every event\)$/);
  expect(decoded.slice(0, -1)).toEqual(lines.slice(0, decoded.length - 1));
  expect(deliveryHeader([])).toEqual({});
});
