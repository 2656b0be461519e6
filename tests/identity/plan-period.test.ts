import { mintServiceToken } from '../../shared/auth/service-token';
import { identityContext } from '../../functions/identity/context';
import { expireEndedPlans } from '../../functions/identity/plan-expiry';
import { contextOf } from '../helpers/context';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { auditEntries, call, setClock } from './support';

const SECRET = 'plan-period-service-token-secret-0123456789';
const DAY = 24 * 60 * 60 * 1000;
// Periods here end within the access tokens' lifetime (15 minutes), so the same sign-ins read them across the end.
const MINUTES_10 = 10 * 60 * 1000;

let host: TestHost;
let admin: SignedIn;

beforeAll(async () => {
  host = await startTestHost({ env: { SERVICE_TOKEN_SECRET: SECRET } });
  admin = await signInAdmin(host);
});
afterEach(() => jest.useRealTimers());
afterAll(() => host.stop());

async function putPlan(userId: string, body: object) {
  const token = await mintServiceToken({ secret: SECRET, issuer: 'payment-service', audience: 'identity-service' });
  return call(host, 'PUT', `/admin/users/${userId}/plan`, { body, headers: { ...bearer(token), 'x-service': 'payment-service' } });
}
const validate = (user: SignedIn) => call(host, 'GET', '/auth/validate', { token: user.accessToken });
const adminRead = async (userId: string) => (await call(host, 'GET', `/admin/users/${userId}`, { token: admin.accessToken })).body.user;

test('a paid period is returned wherever the plan is, and past its end the user is on free at once, before the timer runs', async () => {
  const start = Date.now();
  setClock(start);
  const buyer = await signIn(host, 'period-buyer@example.com');
  const periodEnd = new Date(start + MINUTES_10).toISOString();
  const put = await putPlan(buyer.user.id, { plan: 'pro', periodEnd, source: 'one_off', timestamp: new Date(start).toISOString() });
  expect(put.status).toBe(200);
  expect(put.body).toMatchObject({ plan: 'pro', planPeriodEnd: periodEnd, planSource: 'one_off' });
  expect((await validate(buyer)).body.user).toMatchObject({ plan: 'pro', planPeriodEnd: periodEnd, planSource: 'one_off' });
  expect(await adminRead(buyer.user.id)).toMatchObject({ plan: 'pro', planPeriodEnd: periodEnd, planSource: 'one_off' });
  const listed = await call(host, 'GET', '/admin/users?plan=pro&email=period-buyer', { token: admin.accessToken });
  expect(listed.body.users.map((u: { id: string }) => u.id)).toEqual([buyer.user.id]);

  // One millisecond before the end the plan holds; at the end it is free everywhere.
  setClock(Date.parse(periodEnd) - 1);
  expect((await validate(buyer)).body.user.plan).toBe('pro');
  setClock(Date.parse(periodEnd));
  const refreshed = await call(host, 'POST', '/auth/refresh', { body: { refreshToken: buyer.refreshToken } });
  expect(refreshed.status).toBe(200);
  expect(refreshed.body.user).toMatchObject({ plan: 'free', planPeriodEnd: null, planSource: null });
  const token = JSON.parse(Buffer.from(refreshed.body.accessToken.split('.')[1], 'base64url').toString());
  expect(token.plan).toBe('free');
  expect(await adminRead(buyer.user.id)).toMatchObject({ plan: 'free', planPeriodEnd: null });
  expect((await call(host, 'GET', '/admin/users?plan=pro&email=period-buyer', { token: admin.accessToken })).body.users).toEqual([]);
  expect((await call(host, 'GET', '/admin/users?plan=free&email=period-buyer', { token: admin.accessToken })).body.users).toHaveLength(1);
});

test('the expiry timer records each ended period as an audited change to free, and never undoes a renewal', async () => {
  const start = Date.now();
  setClock(start);
  const lapsed = await signIn(host, 'period-lapsed@example.com');
  const renewed = await signIn(host, 'period-renewed@example.com');
  const end = new Date(start + MINUTES_10).toISOString();
  for (const user of [lapsed, renewed]) expect((await putPlan(user.user.id, { plan: 'enterprise', periodEnd: end, source: 'subscription' })).status).toBe(200);
  setClock(Date.parse(end) + 1000);
  // The renewal lands after the end, before the timer: its new period stands.
  const next = new Date(Date.parse(end) + 30 * DAY).toISOString();
  expect((await putPlan(renewed.user.id, { plan: 'enterprise', periodEnd: next, source: 'subscription' })).status).toBe(200);

  const ctx = contextOf(identityContext, host);
  const { expired } = await expireEndedPlans(ctx);
  expect(expired).toBeGreaterThanOrEqual(1);
  const row = await ctx.db.selectFrom('users').select(['plan', 'plan_period_end', 'plan_source']).where('id', '=', lapsed.user.id).executeTakeFirstOrThrow();
  expect(row).toEqual({ plan: 'free', plan_period_end: null, plan_source: null });
  const [entry] = await auditEntries(host, admin.accessToken, { target: lapsed.user.id, action: 'user.plan.expire' });
  expect(entry).toMatchObject({
    actor: { type: 'system', id: 'plan-expiry' },
    result: 'success',
    details: { from: { plan: 'enterprise', periodEnd: end, source: 'subscription' }, to: { plan: 'free' } },
  });
  expect(await adminRead(renewed.user.id)).toMatchObject({ plan: 'enterprise', planPeriodEnd: next });
  expect(await auditEntries(host, admin.accessToken, { target: renewed.user.id, action: 'user.plan.expire' })).toEqual([]);
  // A second run finds nothing more to record.
  expect((await expireEndedPlans(ctx)).expired).toBe(0);
});

test("the seed's body (no period end) still sets a plan without an end, and an admin's grant is manual and ends any period", async () => {
  const user = await signIn(host, 'period-seed@example.com');
  const seed = await putPlan(user.user.id, { plan: 'pro', status: 'active', updatedBy: 'payment-service', timestamp: new Date().toISOString() });
  expect(seed.body).toMatchObject({ plan: 'pro', planPeriodEnd: null, planSource: 'manual' });
  await putPlan(user.user.id, { plan: 'pro', periodEnd: new Date(Date.now() + DAY).toISOString(), source: 'one_off' });
  const patched = await call(host, 'PATCH', `/admin/users/${user.user.id}`, { token: admin.accessToken, body: { plan: 'enterprise' } });
  expect(patched.status).toBe(200);
  expect(patched.body.user).toMatchObject({ plan: 'enterprise', planPeriodEnd: null, planSource: 'manual' });
  // Free never carries a period.
  const free = await putPlan(user.user.id, { plan: 'free', periodEnd: new Date(Date.now() + DAY).toISOString(), source: 'subscription' });
  expect(free.body).toMatchObject({ plan: 'free', planPeriodEnd: null });
});

test.each([
  [{ plan: 'pro', periodEnd: 'next month' }, 'periodEnd'],
  [{ plan: 'pro', periodEnd: 12 }, 'periodEnd'],
  [{ plan: 'pro', source: 'gift' }, 'source'],
])('a malformed period (%j) is refused with 400 naming the field', async (body, field) => {
  const user = await signIn(host, 'period-bad@example.com');
  const res = await putPlan(user.user.id, body);
  expect(res.status).toBe(400);
  expect(JSON.stringify(res.body)).toContain(field);
});
