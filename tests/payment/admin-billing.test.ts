import type Stripe from 'stripe';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, planInIdentity, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { expectErrorAnswer } from '../helpers/errors';
import { setClock } from '../identity/support';
import { at } from './stripe-emulator-harness';
import { buyOnLocalStripe, deadUrl, openDisputeOn, paymentOn } from './helpers';

/**
 * The operator's billing routes behind the console (issue 50, item 8), over HTTP on the local
 * Stripe: one user's timeline (a full refund, a partial refund, a dispute, a subscription whose
 * renewal failed, its invoices) with what each fact did to the plan, and the accounts past due or
 * disputed, a page at a time. The process's clock is set (Date only) so one-off payments happen
 * before the subscription's test clock starts and every event is newer than the one before it.
 */
const DAY = 86_400;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
let host: TestHost;
let stripe: Stripe;
let admin: SignedIn;
let payer: SignedIn;
let other: SignedIn;
const bought: Record<string, { pi: string; charge: string }> = {};
let subscriptionId: string;

/** Sets the process's clock and signs the admin and the payer in again (tokens live 15 minutes of that clock). */
async function clockAt(seconds: number) {
  setClock(seconds * 1000);
  admin = await signInAdmin(host);
  payer = await signIn(host, payer.user.email);
}

const get = (path: string, token = admin.accessToken) => host.fetch(path, { headers: bearer(token) });
const json = async (path: string) => {
  const res = await get(path);
  expect(res.status).toBe(200);
  return (await res.json()) as any;
};

beforeAll(async () => {
  setClock(at(2027, 1, 14) * 1000);
  host = await startTestHost();
  stripe = paymentOn(host).stripe;
  admin = await signInAdmin(host);
  payer = await signIn(host, 'timeline-payer@example.com');
  other = await signIn(host, 'timeline-other@example.com');

  // 14 January: Pro bought and refunded in full (free); Enterprise bought, refunded in part, then disputed (suspended: free).
  bought.pro = await buyOnLocalStripe(host, payer, 'pro', 2900);
  await clockAt(at(2027, 1, 14) + 60);
  await stripe.refunds.create({ payment_intent: bought.pro.pi });
  await clockAt(at(2027, 1, 14) + 120);
  bought.enterprise = await buyOnLocalStripe(host, payer, 'enterprise', 9900);
  await clockAt(at(2027, 1, 14) + 180);
  await stripe.refunds.create({ payment_intent: bought.enterprise.pi, amount: 1000 });
  await clockAt(at(2027, 1, 14) + 240);
  await openDisputeOn(host, bought.enterprise.charge);
  expect(await planInIdentity(host, payer)).toBe('free');
  // Another user's payment under an open dispute, for the list's second page.
  await clockAt(at(2027, 1, 14) + 300);
  bought.other = await buyOnLocalStripe(host, other, 'pro', 2900);
  await clockAt(at(2027, 1, 14) + 360);
  await openDisputeOn(host, bought.other.charge);

  // 15 January: Pro by the month on a test clock; the renewal on 15 February fails (past due, kept through the grace).
  await clockAt(at(2027, 1, 15));
  const clock = await stripe.testHelpers.testClocks.create({ frozen_time: at(2027, 1, 15) });
  await stripe.customers.create({ email: payer.user.email, metadata: { userId: payer.user.id }, test_clock: clock.id });
  const created = await host.fetch('/payment/subscriptions', {
    method: 'POST',
    headers: { ...bearer(payer.accessToken), 'content-type': 'application/json' },
    body: JSON.stringify({ planType: 'pro' }),
  });
  expect(created.status).toBe(200);
  const { subscriptionId: id, clientSecret } = (await created.json()) as { subscriptionId: string; clientSecret: string };
  subscriptionId = id;
  await stripe.paymentIntents.confirm(clientSecret.slice(0, clientSecret.indexOf('_secret_')), { payment_method: 'pm_card_visa' });
  await stripe.subscriptions.update(subscriptionId, { default_payment_method: 'pm_card_chargeCustomerFail' });
  await clockAt(at(2027, 2, 16));
  expect((await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: at(2027, 2, 16) })).status).toBe('ready');
});
afterAll(async () => {
  await host.stop();
  jest.useRealTimers();
});

describe('GET /payment/admin/users/{userId}/billing', () => {
  test("the user's timeline, newest first: the subscription past due, its invoices, the refunds and the dispute with what each did to the plan", async () => {
    const body = await json(`/payment/admin/users/${payer.user.id}/billing`);
    const graceEndsAt = iso(at(2027, 2, 15) + 7 * DAY);
    expect(body).toMatchObject({
      userId: payer.user.id,
      stripeAvailable: true,
      subscription: {
        id: subscriptionId,
        planType: 'pro',
        status: 'past_due',
        interval: 'month',
        cancelAtPeriodEnd: false,
        pastDueSince: iso(at(2027, 2, 15)),
        graceEndsAt,
      },
    });
    const times = body.entries.map((e: { at: string }) => e.at);
    expect(times).toEqual([...times].sort().reverse());
    const brief = body.entries.map((e: any) => [
      e.kind,
      e.id === subscriptionId ? 'sub' : e.id.startsWith('in_') ? 'inv' : e.id,
      e.amount,
      e.status,
      e.effect?.plan ?? null,
    ]);
    const { pro, enterprise } = { pro: bought.pro.pi, enterprise: bought.enterprise.pi };
    expect(brief).toEqual([
      ['subscription', 'sub', null, 'past_due', null],
      ['invoice', 'inv', 2900, 'open', null],
      // The first invoice's payment: Pro by the month, pushed to identity.
      ['invoice', 'inv', 2900, 'paid', null],
      ['payment', expect.stringMatching(/^pi_/), 2900, 'succeeded', 'pro'],
      ['dispute', enterprise, 9900, 'open', 'free'],
      ['refund', enterprise, 1000, 'partial', null],
      ['payment', enterprise, 9900, 'succeeded', null],
      ['refund', pro, 2900, 'full', 'free'],
      ['payment', pro, 2900, 'succeeded', null],
    ]);
    const of = (kind: string, id: string) => body.entries.find((e: any) => e.kind === kind && e.id === id);
    expect(of('refund', enterprise).effect).toEqual({ plan: null, sync: null, note: 'no plan change: a partial refund' });
    expect(of('dispute', enterprise).effect).toEqual({ plan: 'free', sync: 'synced', note: 'pushed to identity' });
    expect(of('refund', pro).effect).toEqual({ plan: 'free', sync: 'synced', note: 'pushed to identity' });
    expect(of('subscription', subscriptionId)).toMatchObject({ periodEnd: iso(at(2027, 3, 15)), subscription: { interval: 'month', graceEndsAt } });
  });

  test('Stripe unreachable: the records still come, without the invoices and the interval, and the answer says so', async () => {
    const before = host.platform.settings.STRIPE_API_BASE;
    host.platform.reconfigure({ STRIPE_API_BASE: new URL(await deadUrl()).origin });
    try {
      const body = await json(`/payment/admin/users/${payer.user.id}/billing`);
      expect(body).toMatchObject({ stripeAvailable: false, subscription: { id: subscriptionId, status: 'past_due', interval: null } });
      expect(body.entries.map((e: { kind: string }) => e.kind)).toEqual(['subscription', 'payment', 'dispute', 'refund', 'payment', 'refund', 'payment']);
    } finally {
      host.platform.reconfigure({ STRIPE_API_BASE: before });
    }
  });

  test('a user payment has no record of: an empty timeline', async () => {
    expect(await json('/payment/admin/users/no-such-user/billing')).toMatchObject({
      userId: 'no-such-user',
      subscription: null,
      entries: [],
      stripeAvailable: true,
    });
  });

  test('a plain user is refused; a user id that is not one is a 400 naming it', async () => {
    await expectErrorAnswer(await get(`/payment/admin/users/${payer.user.id}/billing`, payer.accessToken), 403, 'ADMIN_REQUIRED');
    const bad = await expectErrorAnswer(await get(`/payment/admin/users/${'x'.repeat(65)}/billing`), 400, 'VALIDATION_FAILED');
    expect(JSON.stringify(bad)).toMatch(/userId/);
  });
});

describe('GET /payment/admin/accounts', () => {
  test('past due: the subscription with the end of its grace; after the grace it says so', async () => {
    const body = await json('/payment/admin/accounts?state=past_due');
    expect(body).toMatchObject({ state: 'past_due', limit: 50, offset: 0, nextOffset: null });
    expect(body.accounts).toEqual([
      {
        userId: payer.user.id,
        email: payer.user.email,
        state: 'past_due',
        since: iso(at(2027, 2, 15)),
        planType: 'pro',
        subscriptionId,
        paymentIntentId: null,
        amount: null,
        currency: null,
        graceEndsAt: iso(at(2027, 2, 22)),
        graceOver: false,
      },
    ]);
    await clockAt(at(2027, 2, 22) + 1);
    expect((await json('/payment/admin/accounts?state=past_due')).accounts).toEqual([expect.objectContaining({ userId: payer.user.id, graceOver: true })]);
    await clockAt(at(2027, 2, 16));
  });

  test('disputed: the payments under an open dispute, oldest first, a page at a time', async () => {
    const firstPage = await json('/payment/admin/accounts?state=disputed&limit=1');
    expect(firstPage).toMatchObject({ state: 'disputed', limit: 1, offset: 0, nextOffset: 1 });
    expect(firstPage.accounts).toEqual([
      expect.objectContaining({
        userId: payer.user.id,
        paymentIntentId: bought.enterprise.pi,
        amount: 9900,
        currency: 'usd',
        planType: 'enterprise',
        since: iso(at(2027, 1, 14) + 240),
      }),
    ]);
    const second = await json('/payment/admin/accounts?state=disputed&limit=1&offset=1');
    expect(second).toMatchObject({ offset: 1, nextOffset: null });
    expect(second.accounts).toEqual([expect.objectContaining({ userId: other.user.id, paymentIntentId: bought.other.pi, state: 'disputed' })]);
    expect((await json('/payment/admin/accounts?state=disputed&offset=2')).accounts).toEqual([]);
  });

  test.each([
    ['state=open', 'state'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=abc', 'offset'],
    ['since=2027-01-01', 'since'],
  ])('bad query %s: 400 naming %s', async (query, field) => {
    const body = await expectErrorAnswer(await get(`/payment/admin/accounts?${query}`), 400, 'VALIDATION_FAILED');
    expect(JSON.stringify(body)).toContain(field);
  });

  test('a plain user is refused', async () => {
    await expectErrorAnswer(await get('/payment/admin/accounts', payer.accessToken), 403, 'ADMIN_REQUIRED');
  });
});
