import fs from 'node:fs';
import type Stripe from 'stripe';
import { identityContext } from '../../functions/identity/context';
import { expireEndedPlans } from '../../functions/identity/plan-expiry';
import { outboxFiles } from '../../tools/outbox';
import { contextOf } from '../helpers/context';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { auditEntries, setClock } from '../identity/support';
import { at } from './stripe-emulator-harness';
import { paymentOn } from './helpers';
import { ACME } from '../orchestrator/helpers';

/**
 * A year of one subscriber, over HTTP only, on the local Stripe with a test clock (issue 50's
 * acceptance): subscribe to Pro, renew, upgrade to Enterprise mid-period (prorated), a failed
 * renewal recovered within the grace, one not recovered (free after the grace), subscribe again,
 * cancel at the period end (kept until then, free after), a dispute opened (suspended) and won
 * (restored). At each step: identity's plan and period end, the reports left, the audit trail and
 * the e-mails. The process's clock follows the test clock (Date only), so identity, the quota and
 * the webhook's signature window live at the subscriber's time.
 */
const EMAIL = 'subscriber-year@example.com';
const DAY = 86_400;
let host: TestHost;
let stripe: Stripe;
let clock: Stripe.TestHelpers.TestClock;
let user: SignedIn;

beforeAll(async () => {
  setClock(at(2027, 1, 15) * 1000);
  host = await startTestHost();
  stripe = paymentOn(host).stripe;
  user = await signIn(host, EMAIL);
  clock = await stripe.testHelpers.testClocks.create({ frozen_time: at(2027, 1, 15), name: 'subscriber year' });
  // The operator's test customer on the clock, found by its metadata when the user subscribes.
  await stripe.customers.create({ email: EMAIL, metadata: { userId: user.user.id }, test_clock: clock.id });
});
afterAll(async () => {
  await host.stop();
  jest.useRealTimers();
});

/** Moves the process's clock, then the test clock (whose events the webhook then receives), and signs in again at the new time. */
async function advance(seconds: number): Promise<void> {
  setClock(seconds * 1000);
  const advanced = await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: seconds });
  expect(advanced.status).toBe('ready');
  user = await signIn(host, EMAIL);
}

async function call(method: 'GET' | 'POST', path: string, body?: object) {
  const res = await host.fetch(path, {
    method,
    headers: { ...bearer(user.accessToken), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** What identity holds now, what the billing page says, and the reports left. */
async function state() {
  const validated = await call('GET', '/identity/auth/validate');
  const billing = await call('GET', '/payment/billing');
  expect(billing.status).toBe(200);
  return { identity: validated.body.user, billing: billing.body };
}

let mails = 0;
/** The billing e-mails sent since the last look (not sign-in codes, nor the orchestrator's notices of the reports ordered here). */
function newMail(): string[] {
  const files = outboxFiles(host.dataDir);
  const texts = files.slice(mails).map((f) => fs.readFileSync(f, 'utf8'));
  mails = files.length;
  return texts.filter((t) => !/Your sign-in code is|^Subject: Your report on /m.test(t)).map((t) => /^Subject: (.*)$/m.exec(t)![1]);
}

async function subscribe(planType: 'pro' | 'enterprise', card = 'pm_card_visa') {
  const created = await call('POST', '/payment/subscriptions', { planType });
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ status: 'incomplete', planType, interval: 'month', clientSecret: expect.stringMatching(/_secret_/) });
  const secret: string = created.body.clientSecret;
  const confirmed = await stripe.paymentIntents.confirm(secret.slice(0, secret.indexOf('_secret_')), { payment_method: card });
  expect(confirmed.status).toBe('succeeded');
  return { subscriptionId: created.body.subscriptionId as string, charge: String(confirmed.latest_charge) };
}

async function planAudit(): Promise<string[]> {
  const admin = await signInAdmin(host);
  const entries = await auditEntries(host, admin.accessToken, { target: user.user.id, limit: '100' });
  return entries
    .filter((e) => e.action.startsWith('user.plan.'))
    .reverse()
    .map((e) => `${e.action} ${e.details.to.plan}${e.details.to.periodEnd ? ` until ${e.details.to.periodEnd.slice(0, 10)}` : ''}`);
}

test('a year of one subscriber moves the plan, its period, the quota and the e-mails rightly at every step', async () => {
  newMail();
  // 1. Subscribe to Pro on 15 January: the first invoice is paid, Pro runs to 15 February.
  const first = await subscribe('pro');
  let now = await state();
  expect(now.identity).toMatchObject({ plan: 'pro', planPeriodEnd: iso(at(2027, 2, 15)), planSource: 'subscription' });
  expect(now.billing).toMatchObject({
    plan: 'pro',
    planPeriodEnd: iso(at(2027, 2, 15)),
    reports: { limit: 50, used: 0, remaining: 50, resetsAt: iso(at(2027, 2, 15)), period: 'billing_period' },
    subscription: { id: first.subscriptionId, planType: 'pro', status: 'active', renews: true, cancelAtPeriodEnd: false },
  });
  expect(now.billing.invoices).toMatchObject([{ status: 'paid', amountPaid: 2900, hostedInvoiceUrl: expect.any(String), invoicePdf: expect.any(String) }]);
  // A report uses one of the period's fifty.
  const report = await call('POST', '/orchestrator/api/reports', ACME);
  expect(report.status).toBe(202);
  expect((await state()).billing.reports).toMatchObject({ used: 1, remaining: 49 });

  // 2. The renewal on 15 February moves the period on, and the quota starts again.
  await advance(at(2027, 2, 16));
  now = await state();
  expect(now.identity).toMatchObject({ plan: 'pro', planPeriodEnd: iso(at(2027, 3, 15)) });
  expect(now.billing.reports).toMatchObject({ used: 0, remaining: 50, resetsAt: iso(at(2027, 3, 15)) });
  expect(now.billing.invoices).toHaveLength(2);

  // 3. An upgrade to Enterprise on 1 March: the proration is invoiced and paid at once; the period is unchanged.
  await advance(at(2027, 3, 1));
  const upgraded = await call('POST', '/payment/subscription/change', { planType: 'enterprise' });
  expect(upgraded).toMatchObject({ status: 200, body: { change: 'upgrade_now', planType: 'enterprise' } });
  now = await state();
  expect(now.identity).toMatchObject({ plan: 'enterprise', planPeriodEnd: iso(at(2027, 3, 15)) });
  expect(now.billing.reports).toMatchObject({ limit: null, remaining: null });
  expect(now.billing.invoices[0]).toMatchObject({ status: 'paid', amountPaid: 3500 });

  // 4. The renewal on 15 March fails: past due, the plan kept through the grace (7 days), the user told once;
  //    the card is changed and Stripe's retry on 18 March pays: the period moves on.
  await stripe.subscriptions.update(first.subscriptionId, { default_payment_method: 'pm_card_chargeCustomerFail' });
  await advance(at(2027, 3, 16));
  now = await state();
  expect(now.identity).toMatchObject({ plan: 'enterprise', planPeriodEnd: iso(at(2027, 3, 15) + 7 * DAY) });
  expect(now.billing.subscription).toMatchObject({ status: 'past_due', pastDueSince: iso(at(2027, 3, 15)), graceEndsAt: iso(at(2027, 3, 22)) });
  expect(newMail()).toEqual(['Your enterprise renewal payment failed']);
  await stripe.subscriptions.update(first.subscriptionId, { default_payment_method: 'pm_card_visa' });
  await advance(at(2027, 3, 19));
  now = await state();
  expect(now.identity).toMatchObject({ plan: 'enterprise', planPeriodEnd: iso(at(2027, 4, 15)) });
  expect(now.billing.subscription).toMatchObject({ status: 'active', pastDueSince: null, graceEndsAt: null });

  // 5. The renewal on 15 April fails and is never paid: kept until 22 April, free after; Stripe cancels on the 22nd.
  await stripe.subscriptions.update(first.subscriptionId, { default_payment_method: 'pm_card_chargeCustomerFail' });
  await advance(at(2027, 4, 21));
  expect((await state()).identity).toMatchObject({ plan: 'enterprise', planPeriodEnd: iso(at(2027, 4, 22)) });
  expect(newMail()).toEqual(['Your enterprise renewal payment failed']);
  await advance(at(2027, 4, 23));
  now = await state();
  expect(now.identity).toMatchObject({ plan: 'free', planPeriodEnd: null });
  expect(now.billing.subscription).toMatchObject({ status: 'canceled' });
  expect(now.billing.reports).toMatchObject({ limit: 3, period: 'calendar_month' });
  // The daily timer writes the lapse down as an audited change.
  expect((await expireEndedPlans(contextOf(identityContext, host))).expired).toBe(1);

  // 6. Subscribe again on 23 April, then cancel at the period end: kept until 23 May (told once), free after.
  const again = await subscribe('pro');
  expect((await state()).identity).toMatchObject({ plan: 'pro', planPeriodEnd: iso(at(2027, 5, 23)) });
  const cancelled = await call('POST', '/payment/subscription/cancel', {});
  expect(cancelled).toMatchObject({ status: 200, body: { subscriptionId: again.subscriptionId, cancelAtPeriodEnd: true, endsAt: iso(at(2027, 5, 23)) } });
  now = await state();
  expect(now.identity).toMatchObject({ plan: 'pro', planPeriodEnd: iso(at(2027, 5, 23)) });
  expect(now.billing.subscription).toMatchObject({ cancelAtPeriodEnd: true, renews: false });
  expect(newMail()).toEqual(['Your pro plan ends on 2027-05-23']);
  await advance(at(2027, 5, 24));
  now = await state();
  expect(now.identity).toMatchObject({ plan: 'free' });
  expect(now.billing.subscription).toMatchObject({ id: again.subscriptionId, status: 'canceled' });
  expect(newMail()).toEqual([]);

  // 7. Subscribe a third time; the card payment is disputed (suspended at once), then the dispute is won (restored).
  const third = await subscribe('pro');
  expect((await state()).identity).toMatchObject({ plan: 'pro', planPeriodEnd: iso(at(2027, 6, 24)) });
  const dispute = (await stripe.rawRequest('POST', `/v1/test_helpers/charges/${third.charge}/dispute`, {})) as Stripe.Dispute;
  expect((await state()).identity).toMatchObject({ plan: 'free' });
  await stripe.rawRequest('POST', `/v1/test_helpers/disputes/${dispute.id}/close`, { status: 'won' });
  expect((await state()).identity).toMatchObject({ plan: 'pro', planPeriodEnd: iso(at(2027, 6, 24)) });

  // The audit trail of the year, in order: every plan change with its period.
  expect(await planAudit()).toEqual([
    'user.plan.update pro until 2027-02-15',
    'user.plan.update pro until 2027-03-15',
    'user.plan.update enterprise until 2027-03-15',
    'user.plan.update enterprise until 2027-03-22',
    'user.plan.update enterprise until 2027-04-15',
    'user.plan.update enterprise until 2027-04-22',
    'user.plan.expire free',
    'user.plan.update pro until 2027-05-23',
    'user.plan.update pro until 2027-06-24',
    'user.plan.update free',
    'user.plan.update pro until 2027-06-24',
  ]);
});
