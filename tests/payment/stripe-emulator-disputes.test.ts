/**
 * The local Stripe server's disputes and refunds of invoice payments, and the Billing scenarios of
 * `npm run stripe:trigger` (tools/cli/stripe-scenarios.ts), driven through the official client,
 * then as the command a developer runs.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Stripe from 'stripe';
import { generateDevSecrets } from '../../devhost/settings';
import { runScenario } from '../../tools/cli/stripe-scenarios';
import { at, catalog, intentOf, startWithCatalog, subscribe, type Harness } from './stripe-emulator-harness';

let h: Harness;
let stripe: Stripe;
let prices: Awaited<ReturnType<typeof catalog>>;

beforeAll(async () => ({ h, stripe, prices } = await startWithCatalog()));
afterAll(() => h.stop());
beforeEach(() => h.clear());

async function paidSubscription(email: string, clockTime?: number) {
  const clock = clockTime ? await stripe.testHelpers.testClocks.create({ frozen_time: clockTime }) : undefined;
  const customer = await stripe.customers.create({ email, ...(clock ? { test_clock: clock.id } : {}) });
  const sub = await subscribe(stripe, customer.id, prices.proMonthly.id);
  const pi = await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_visa' });
  return { customer, sub, pi, charge: String(pi.latest_charge), invoice: (sub.latest_invoice as Stripe.Invoice).id };
}

const openDispute = (charge: string, params: Record<string, unknown> = {}) =>
  stripe.rawRequest('POST', `/v1/test_helpers/charges/${charge}/dispute`, params) as Promise<Stripe.Dispute>;

test('a dispute opened on an invoice payment, then won with winning evidence: created, funds withdrawn, updated, closed, reinstated', async () => {
  const { pi, charge } = await paidSubscription('dispute-won@example.com');
  h.clear();
  const dispute = await openDispute(charge, { reason: 'product_not_received' });
  expect(dispute).toMatchObject({
    object: 'dispute',
    charge,
    payment_intent: pi.id,
    amount: 2900,
    currency: 'usd',
    status: 'needs_response',
    reason: 'product_not_received',
  });
  expect(dispute.id).toMatch(/^dp_/);
  expect(h.types()).toEqual(['charge.dispute.created', 'charge.dispute.funds_withdrawn']);
  expect((await stripe.charges.retrieve(charge)).disputed).toBe(true);
  await expect(stripe.refunds.create({ charge })).rejects.toMatchObject({ statusCode: 400, code: 'charge_disputed' });
  await expect(openDispute(charge)).rejects.toMatchObject({ statusCode: 400 });

  h.clear();
  const won = await stripe.disputes.update(dispute.id, { evidence: { uncategorized_text: 'winning_evidence' }, submit: true });
  expect(won.status).toBe('won');
  expect(h.types()).toEqual(['charge.dispute.updated', 'charge.dispute.closed', 'charge.dispute.funds_reinstated']);
  expect(h.events()[0].data.object).toMatchObject({ status: 'under_review' });
  expect(h.events()[1].data.object).toMatchObject({ id: dispute.id, status: 'won', charge, payment_intent: pi.id });
  await expect(stripe.disputes.close(dispute.id)).rejects.toMatchObject({ statusCode: 400 });
  expect((await stripe.disputes.list({ payment_intent: pi.id })).data.map((d) => d.id)).toEqual([dispute.id]);
});

test("a dispute lost: accepted with disputes.close, or decided by the local server's test helper", async () => {
  const first = await paidSubscription('dispute-lost@example.com');
  const accepted = await openDispute(first.charge);
  h.clear();
  expect(await stripe.disputes.close(accepted.id)).toMatchObject({ status: 'lost' });
  expect(h.types()).toEqual(['charge.dispute.closed']);

  const second = await paidSubscription('dispute-helper@example.com');
  const decided = await openDispute(second.charge, { amount: 1000 });
  expect(decided.amount).toBe(1000);
  h.clear();
  const closed = (await stripe.rawRequest('POST', `/v1/test_helpers/disputes/${decided.id}/close`, { status: 'won' })) as Stripe.Dispute;
  expect(closed.status).toBe('won');
  expect(h.types()).toEqual(['charge.dispute.closed', 'charge.dispute.funds_reinstated']);
});

test("Stripe's test card pm_card_createDispute pays, then is disputed", async () => {
  const customer = await stripe.customers.create({ email: 'card-dispute@example.com' });
  const sub = await subscribe(stripe, customer.id, prices.proMonthly.id);
  h.clear();
  const pi = await stripe.paymentIntents.confirm(intentOf(sub), { payment_method: 'pm_card_createDispute' });
  expect(pi.status).toBe('succeeded');
  expect(h.types().slice(0, 3)).toEqual(['payment_intent.succeeded', 'charge.dispute.created', 'charge.dispute.funds_withdrawn']);
  expect(h.types()).toContain('invoice.paid');
  expect(h.events()[1].data.object).toMatchObject({ charge: pi.latest_charge, status: 'needs_response', reason: 'fraudulent' });
});

test("refunds of an invoice's payment: partial, then the rest; never more than was paid", async () => {
  const { charge, invoice, pi } = await paidSubscription('refund@example.com');
  const [payment] = (await stripe.invoicePayments.list({ invoice })).data;
  expect(payment.payment.payment_intent).toBe(pi.id);
  h.clear();
  const partial = await stripe.refunds.create({ charge, amount: 1000, reason: 'requested_by_customer' });
  expect(partial).toMatchObject({ object: 'refund', amount: 1000, charge, payment_intent: pi.id, status: 'succeeded', reason: 'requested_by_customer' });
  expect(h.events()[0]).toMatchObject({
    type: 'charge.refunded',
    data: { object: { id: charge, amount_refunded: 1000, refunded: false, payment_intent: pi.id } },
  });
  await expect(stripe.refunds.create({ payment_intent: pi.id, amount: 2000 })).rejects.toMatchObject({ statusCode: 400, code: 'amount_too_large' });
  const rest = await stripe.refunds.create({ payment_intent: pi.id });
  expect(rest.amount).toBe(1900);
  expect(h.events()[1].data.object).toMatchObject({ amount_refunded: 2900, refunded: true });
  await expect(stripe.refunds.create({ charge })).rejects.toMatchObject({ statusCode: 400, code: 'charge_already_refunded' });
  expect((await stripe.refunds.list({ charge })).data.map((r) => r.amount)).toEqual([1900, 1000]);
  expect((await stripe.charges.retrieve(charge, { expand: ['refunds'] })).refunds!.data).toHaveLength(2);
});

test('trigger scenarios on a test clock: renew, fail-renewal, retry, recover, cancel, dispute-open, dispute-won, refund-invoice', async () => {
  const { sub } = await paidSubscription('scenarios@example.com', at(2027, 1, 5));
  const run = (name: string, id = sub.id, options = {}) => runScenario(stripe, name, id, options);

  const renewed = await run('renew');
  expect(renewed.said.at(-1)).toMatch(new RegExp(`^subscription ${sub.id}: active, period ends 2027-03-05 12:00`));
  expect(renewed.deliveries.some((d) => /^invoice\.paid evt_\S+ -> 200/.test(d))).toBe(true);

  const failing = await run('fail-renewal');
  expect(failing.said.at(-1)).toMatch(/past_due, period ends 2027-04-05/);
  expect(failing.deliveries.some((d) => d.startsWith('invoice.payment_failed'))).toBe(true);
  const retried = await run('retry');
  expect(retried.said[0]).toBe('test clock ' + (await stripe.subscriptions.retrieve(sub.id)).test_clock + ' advanced to 2027-03-08 12:00');
  expect(retried.said.at(-1)).toMatch(/past_due/);
  const recovered = await run('recover');
  expect(recovered.said).toEqual([expect.stringMatching(/^invoice in_\S+: paid$/), expect.stringMatching(/: active, period ends 2027-04-05/)]);
  expect(recovered.deliveries.filter((d) => d.startsWith('customer.subscription.updated'))).toHaveLength(1);

  const disputed = await run('dispute-open');
  expect(disputed.said[0]).toMatch(/^dispute dp_\S+ on charge ch_\S+: needs_response \(fraudulent\)$/);
  expect(disputed.deliveries.map((d) => d.split(' ')[0])).toEqual(['charge.dispute.created', 'charge.dispute.funds_withdrawn']);
  expect((await run('dispute-won')).said[0]).toMatch(/: won$/);

  const refunded = await run('refund-invoice', sub.id, { amount: 500 });
  expect(refunded.said[0]).toMatch(/^refund re_\S+ of 500 on charge ch_\S+: succeeded$/);

  expect((await run('cancel')).said[0]).toMatch(/\(cancels then\)/);
  const ended = await run('renew');
  expect(ended.said.at(-1)).toMatch(/: canceled/);
  expect(ended.deliveries.some((d) => d.startsWith('customer.subscription.deleted'))).toBe(true);
});

test('trigger scenarios without a test clock: renew starts a new period now, retries then need a clock, cancel --now ends it', async () => {
  const { sub } = await paidSubscription('no-clock@example.com');
  const renewed = await runScenario(stripe, 'renew', sub.id);
  expect(renewed.said.at(-1)).toMatch(/: active/);
  const invoices = (await stripe.invoices.list({ subscription: sub.id })).data;
  expect(invoices.map((i) => [i.billing_reason, i.status, i.total])).toEqual([
    ['subscription_update', 'paid', 2900],
    ['subscription_create', 'paid', 2900],
  ]);
  await runScenario(stripe, 'fail-renewal', sub.id);
  await expect(runScenario(stripe, 'retry', sub.id)).rejects.toThrow(/not on a test clock/);
  expect((await runScenario(stripe, 'recover', sub.id)).said.at(-1)).toMatch(/: active/);
  const canceled = await runScenario(stripe, 'cancel', sub.id, { now: true });
  expect(canceled.said[0]).toMatch(/: canceled/);
  await expect(runScenario(stripe, 'dispute-won', 'pi_unknown')).rejects.toThrow();
});

test('npm run stripe:trigger runs a scenario against the local server and prints how the webhook answered; --help lists the scenarios', async () => {
  const { sub } = await paidSubscription('cli@example.com', at(2027, 2, 1));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stripe-trigger-'));
  try {
    const sample = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', '..', 'local.settings.sample.json'), 'utf8'));
    fs.writeFileSync(path.join(dir, 'local.settings.json'), JSON.stringify({ ...sample, Values: await generateDevSecrets(sample.Values) }));
    const script = path.resolve(__dirname, '..', '..', 'tools', 'cli', 'stripe-trigger.js');
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error', STRIPE_API_BASE: h.emulator.url };
    const run = (...args: string[]) => promisify(execFile)(process.execPath, [script, ...args], { cwd: dir, env });
    const help = await run('--help');
    for (const name of ['renew', 'fail-renewal', 'recover', 'retry', 'cancel', 'dispute-open', 'dispute-won', 'dispute-lost', 'refund-invoice'])
      expect(help.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    const renewed = await run('renew', sub.id);
    expect(renewed.stdout).toMatch(/^test clock clock_\S+ advanced to 2027-03-01 12:00$/m);
    expect(renewed.stdout).toMatch(/^webhook: /m);
    expect(renewed.stdout).toMatch(/^invoice\.paid evt_\S+ -> 200 \{"received":true\}$/m);
    const usage = await run('renew').catch((e) => e);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: npm run stripe:trigger -- <paymentIntentId>');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
