import type { Browser, Page } from 'puppeteer-core';
import { saveSubscription } from '../../functions/payment/subscription-records';
import { startTestHost, type TestHost } from '../helpers/host';
import { signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { buyOnLocalStripe, openDisputeOn, paymentOn } from '../payment/helpers';
import { accessibilityViolations, goToPage, launchBrowser, screenshot, signInThroughPage, textOf, watchPage } from './browser';

/**
 * The console's billing pages in Chromium (issue 50, item 8): the Accounts page lists a renewal
 * past due (with the day the plan goes free) and an open dispute, each linking to the user; the
 * user's page shows the billing timeline with the refund and the dispute and what they did to the
 * plan. Both pages pass axe. The payment, refund and dispute are made on the local Stripe; the
 * past-due subscription is written as its event would leave it (the HTTP tests make one with a
 * test clock: tests/payment/admin-billing.test.ts).
 */
jest.setTimeout(120_000);

let host: TestHost;
let browser: Browser;
let page: Page;
let watched: { problems: string[] };
let disputed: SignedIn;
let lapsing: SignedIn;
let paying: SignedIn;
let pi: string;

beforeAll(async () => {
  host = await startTestHost();
  disputed = await signIn(host, 'console-disputed@example.com');
  lapsing = await signIn(host, 'console-lapsing@example.com');
  paying = await signIn(host, 'console-paying@example.com');
  await buyOnLocalStripe(host, paying, 'pro', 2900);
  const bought = await buyOnLocalStripe(host, disputed, 'pro', 2900);
  pi = bought.pi;
  await paymentOn(host).stripe.refunds.create({ payment_intent: pi, amount: 900 });
  await openDisputeOn(host, bought.charge);
  const now = new Date();
  const day = 86_400_000;
  await saveSubscription(
    paymentOn(host).db,
    {
      id: 'sub_console_lapsing',
      userId: lapsing.user.id,
      customerId: 'cus_console_lapsing',
      planType: 'enterprise',
      status: 'past_due',
      currentPeriodEnd: new Date(now.getTime() + 28 * day).toISOString(),
      cancelAtPeriodEnd: false,
      pastDueSince: new Date(now.getTime() - 2 * day).toISOString(),
      eventAt: new Date(now.getTime() - 2 * day).toISOString(),
    },
    now,
  );
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  watched = watchPage(page);
});
afterAll(async () => {
  await browser?.close();
  await host?.stop();
});
afterEach(() => expect(watched.problems).toEqual([]));

test('the Accounts page lists the renewal past due and the open dispute, each linking to its user', async () => {
  await page.goto(`${host.url}/orchestrator/console/`);
  await signInThroughPage(page, host, 'admin@example.com');
  await page.waitForSelector('nav[aria-label=Console]');
  await goToPage(page, 'Accounts');
  const lapsingRow = await textOf(page, `#accounts-past_due tr[data-user-id="${lapsing.user.id}"]`);
  expect(lapsingRow).toContain('enterprise');
  expect(lapsingRow).toContain('sub_console_lapsing');
  const disputedRow = await textOf(page, `#accounts-disputed tr[data-user-id="${disputed.user.id}"]`);
  expect(disputedRow).toContain(pi);
  expect(disputedRow).toContain('$29.00');
  expect(disputedRow).toContain('console-disputed@example.com');
  expect(await accessibilityViolations(page)).toEqual([]);
  await screenshot(page, 'accounts');
});

test("the user's page shows the billing timeline: the dispute that suspended the plan, the partial refund that changed nothing, the payment", async () => {
  await page.click(`#accounts-disputed a[href$="/users/${disputed.user.id}"]`);
  await page.waitForSelector('#billing-timeline');
  const kinds = await page.$$eval('#billing-timeline tbody tr', (rows) => rows.map((r) => r.getAttribute('data-kind')));
  expect(kinds).toEqual(['dispute', 'refund', 'payment']);
  expect(await textOf(page, '#billing-timeline tr[data-kind=dispute]')).toMatch(/open.*plan → free/s);
  expect(await textOf(page, '#billing-timeline tr[data-kind=refund]')).toMatch(/\$9\.00.*partial.*no plan change: a partial refund/s);
  expect(await accessibilityViolations(page)).toEqual([]);
  await screenshot(page, 'user-billing');
});

test("the user's page states the plan's paid period and how it was got", async () => {
  await page.goto(`${host.url}/orchestrator/console/users/${paying.user.id}`);
  await page.waitForSelector('#billing-timeline');
  const plan = await textOf(page, 'dd[data-field=plan]');
  expect(plan).toMatch(/^pro until .+ \(one-off payment, no renewal\)$/);
  // The date shown is the period identity holds (a one-off buys 30 days).
  const held = (await (
    await host.fetch(`/identity/admin/users/${paying.user.id}`, { headers: { authorization: `Bearer ${(await signInAdmin(host)).accessToken}` } })
  ).json()) as {
    user: { planPeriodEnd: string };
  };
  expect(Date.parse(held.user.planPeriodEnd) - Date.now()).toBeGreaterThan(29 * 86_400_000);
  expect(await textOf(page, 'dd[data-field=plan]')).toContain(String(new Date(held.user.planPeriodEnd).getUTCFullYear()));
});
