import { startTestHost, type TestHost } from '../helpers/host';
import { DEFAULT_PLANS, parsePlanTable } from '../../shared/plans';
import { payment } from '../../functions/payment';
import { stripe } from '../../functions/payment/stripe-client';
import { bearer, signIn } from '../helpers/identity';
import { deadUrl, pointIdentityAt } from './helpers';

let host: TestHost;
afterEach(async () => {
  await host?.stop();
  host = undefined as unknown as TestHost;
});

test('GET /payment/plans lists free, pro and enterprise with price in cents, currency and features, without auth', async () => {
  host = await startTestHost();
  const res = await host.fetch('/payment/plans');
  expect(res.status).toBe(200);
  // The same for everyone and rarely changed: browsers and the CDN keep it five minutes.
  expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  const body = (await res.json()) as any;
  expect(body.plans.map((p: any) => [p.id, p.price, p.currency])).toEqual([
    ['free', 0, 'usd'],
    ['pro', 2900, 'usd'],
    ['enterprise', 9900, 'usd'],
  ]);
  for (const plan of body.plans) {
    expect(plan).toEqual({
      id: expect.any(String),
      name: expect.any(String),
      price: expect.any(Number),
      currency: 'usd',
      reportsPerMonth: plan.reportsPerMonth === null ? null : expect.any(Number),
      features: expect.any(Array),
      priceVersion: expect.any(String),
    });
    expect(plan.features.length).toBeGreaterThan(1);
  }
  // The advertised quota is written from the number the orchestrator enforces.
  expect(body.plans.map((p: any) => [p.reportsPerMonth, p.features[0]])).toEqual([
    [3, '3 reports per month'],
    [50, '50 reports per month'],
    [null, 'Unlimited reports'],
  ]);
});

test('PLANS_JSON overrides the plan table, and create-payment-intent charges the overridden price', async () => {
  const plans = DEFAULT_PLANS.map((p) => (p.id === 'pro' ? { ...p, price: 1500, currency: 'eur', priceVersion: '2027-01' } : p));
  host = await startTestHost({ env: { PLANS_JSON: JSON.stringify(plans) } });
  const body = (await (await host.fetch('/payment/plans')).json()) as any;
  expect(body.plans.find((p: any) => p.id === 'pro')).toMatchObject({ price: 1500, currency: 'eur', priceVersion: '2027-01' });
  const user = await signIn(host, 'euro@example.com');
  const create = (amount: number) =>
    host.fetch('/payment/create-payment-intent', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(user.accessToken) },
      body: JSON.stringify({ amount, planType: 'pro', userId: user.user.id }),
    });
  const old = await create(2900);
  expect(old.status).toBe(400);
  expect(await old.json()).toMatchObject({ code: 'AMOUNT_MISMATCH', expectedAmount: 1500, currency: 'eur' });
  const ok = await create(1500);
  expect(ok.status).toBe(200);
  expect(await ok.json()).toMatchObject({ amount: 1500, currency: 'eur', planType: 'pro' });
  expect((await stripe().paymentIntents.retrieve(((await create(1500).then((r) => r.json())) as any).paymentIntentId)).metadata.priceVersion).toBe('2027-01');
});

test('an invalid PLANS_JSON stops the host from starting, naming the problem', async () => {
  // A host that starts all the same is stopped, so that the failure is reported rather than left running.
  const start = (env: Record<string, string>) => startTestHost({ env }).then((started) => started.stop().then(() => 'started'));
  // Payment checks the table at its own start, without the orchestrator (which checks it too).
  await expect(start({ SERVICES: 'identity,payment', PLANS_JSON: JSON.stringify([{ id: 'pro', price: -1 }]) })).rejects.toThrow(/PLANS_JSON: .*price/);
  const free = DEFAULT_PLANS.map((p) => (p.id === 'free' ? { ...p, price: 100 } : p));
  await expect(start({ PLANS_JSON: JSON.stringify(free) })).rejects.toThrow(/the free plan must cost 0/);
});

test('PLANS_JSON cannot advertise a quota of its own: the quota line is written from reportsPerMonth', () => {
  for (const line of ['100 reports per month', 'Unlimited reports', '5 reports a week']) {
    const table = DEFAULT_PLANS.map((p) => (p.id === 'pro' ? { ...p, features: [line, ...p.features] } : p));
    expect(() => parsePlanTable(table)).toThrow(/report quotas come from reportsPerMonth/);
  }
  expect(parsePlanTable(DEFAULT_PLANS.map((p) => ({ ...p, features: ['Reports with charts', ...p.features] })))).toHaveLength(3);
});

test('health reports SQL, Table Storage, identity and Stripe (offline) and 503 when identity is down', async () => {
  host = await startTestHost();
  const res = await host.fetch('/payment/health');
  const body = (await res.json()) as any;
  expect(res.status).toBe(200);
  expect(body).toMatchObject({ service: 'payment', status: 'healthy' });
  expect(body.dependencies).toMatchObject({
    sql: { ok: true },
    tableStorage: { ok: true, detail: 'paymentfailedsyncs' },
    identity: { ok: true, detail: expect.stringMatching(/\/identity\/health$/) },
    stripe: { ok: true, detail: expect.stringMatching(/^offline: local Stripe API server http:\/\/127\.0\.0\.1:\d+$/) },
  });
  pointIdentityAt(await deadUrl());
  const down = await host.fetch('/payment/health');
  expect(down.status).toBe(503);
  expect(((await down.json()) as any).dependencies.identity).toMatchObject({ ok: false, error: expect.any(String) });
  pointIdentityAt(undefined);
});

test('the start-up banner says offline mode and where the local Stripe API server is', async () => {
  host = await startTestHost();
  const lines = payment.describe!(host.platform);
  expect(lines[0]).toMatch(/OFFLINE mode: Stripe client -> local Stripe API server http:\/\/127\.0\.0\.1:\d+/);
  expect(lines.join('\n')).toContain('npm run stripe:trigger');
});
