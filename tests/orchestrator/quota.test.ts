import { DEFAULT_PLANS } from '../../shared/plans';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, type SignedIn } from '../helpers/identity';
import { FAKE_DATE_ONLY } from '../identity/support';
import { ACME } from './helpers';

/** Plans sell a monthly report quota; the orchestrator enforces the very number the plan table advertises. */
describe('report quotas per plan and calendar month (UTC)', () => {
  let host: TestHost;
  const table = DEFAULT_PLANS.map((p) => (p.id === 'enterprise' ? p : { ...p, reportsPerMonth: 2 }));

  beforeAll(async () => {
    host = await startTestHost({ env: { PLANS_JSON: JSON.stringify(table) } });
  });
  afterAll(() => host.stop());
  afterEach(() => jest.useRealTimers());

  const submit = (user: SignedIn) =>
    host.fetch('/orchestrator/api/reports', {
      method: 'POST',
      headers: { ...bearer(user.accessToken), 'content-type': 'application/json' },
      body: JSON.stringify(ACME),
    });

  test('the free plan advertises the quota it is held to, and the next report is refused with 429 until the month turns', async () => {
    const plans = (await (await host.fetch('/payment/plans')).json()) as { plans: { id: string; features: string[] }[] };
    expect(plans.plans.find((p) => p.id === 'free')!.features[0]).toBe('2 reports per month');

    jest.useFakeTimers(FAKE_DATE_ONLY);
    jest.setSystemTime(new Date('2031-06-30T23:59:00Z'));
    let user = await signIn(host, 'quota-free@example.com');
    for (const count of [1, 2]) {
      const accepted = await submit(user);
      expect(accepted.status).toBe(202);
      expect(((await accepted.json()) as { quota: unknown }).quota).toEqual({
        limit: 2,
        count,
        resetsAt: '2031-07-01T00:00:00.000Z',
        period: 'calendar_month',
      });
    }
    const refused = await submit(user);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await refused.json()).toEqual({
      error: 'Too many requests',
      message: expect.stringContaining('2 reports per month'),
      code: 'REPORT_QUOTA_EXCEEDED',
      timestamp: expect.any(String),
      plan: 'free',
      limit: 2,
      count: 2,
      resetsAt: '2031-07-01T00:00:00.000Z',
      period: 'calendar_month',
    });

    jest.setSystemTime(new Date('2031-07-01T00:00:01Z'));
    user = await signIn(host, 'quota-free@example.com');
    expect(((await (await submit(user)).json()) as { quota: unknown }).quota).toEqual({
      limit: 2,
      count: 1,
      resetsAt: '2031-08-01T00:00:00.000Z',
      period: 'calendar_month',
    });
  });

  test('concurrent requests never exceed the quota', async () => {
    const user = await signIn(host, 'quota-burst@example.com');
    const statuses = (await Promise.all(Array.from({ length: 6 }, () => submit(user)))).map((r) => r.status).sort();
    expect(statuses).toEqual([202, 202, 429, 429, 429, 429]);
  });

  test('an unlimited plan is never refused', async () => {
    const user = await signIn(host, 'quota-enterprise@example.com');
    const admin = await signIn(host, 'admin@example.com');
    const put = await host.fetch(`/identity/admin/users/${user.user.id}/plan`, {
      method: 'PUT',
      headers: { ...bearer(admin.accessToken), 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'enterprise' }),
    });
    expect(put.status).toBe(200);
    for (let i = 0; i < 4; i++) {
      const accepted = await submit(user);
      expect(accepted.status).toBe(202);
      expect(((await accepted.json()) as { quota: { limit: unknown } }).quota.limit).toBeNull();
    }
  });

  test('a paid plan counts reports per billing period: refused until the period ends, and a renewal starts a new count', async () => {
    const admin = await signIn(host, 'admin@example.com');
    const user = await signIn(host, 'quota-pro@example.com');
    const setPlan = (periodEnd: string) =>
      host.fetch(`/identity/admin/users/${user.user.id}/plan`, {
        method: 'PUT',
        headers: { ...bearer(admin.accessToken), 'content-type': 'application/json' },
        body: JSON.stringify({ plan: 'pro', periodEnd, source: 'subscription' }),
      });
    // A period ending within the month: the calendar month would not reset there, the billing period does.
    const firstEnd = new Date(Date.now() + 10 * 60_000).toISOString();
    expect((await setPlan(firstEnd)).status).toBe(200);
    let signedIn = await signIn(host, 'quota-pro@example.com');
    for (const count of [1, 2]) {
      const accepted = await submit(signedIn);
      expect(accepted.status).toBe(202);
      expect(((await accepted.json()) as { quota: unknown }).quota).toEqual({ limit: 2, count, resetsAt: firstEnd, period: 'billing_period' });
    }
    const refused = await submit(signedIn);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'REPORT_QUOTA_EXCEEDED', limit: 2, count: 2, resetsAt: firstEnd, period: 'billing_period' });
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(600);

    // The renewal: identity holds the next period, whose count starts at zero.
    const nextEnd = new Date(Date.parse(firstEnd) + 30 * 24 * 60 * 60_000).toISOString();
    expect((await setPlan(nextEnd)).status).toBe(200);
    signedIn = await signIn(host, 'quota-pro@example.com');
    const renewed = await submit(signedIn);
    expect(renewed.status).toBe(202);
    expect(((await renewed.json()) as { quota: unknown }).quota).toEqual({ limit: 2, count: 1, resetsAt: nextEnd, period: 'billing_period' });
  });
});
