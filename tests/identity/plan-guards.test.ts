import { mintServiceToken } from '../../shared/auth/service-token';
import { startTestHost, type TestHost } from '../helpers/host';
import { signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { auditEntries, call, expectError } from './support';

const SECRET = 'plan-guards-service-token-secret-0123456789';
const serviceHeaders = async () => ({
  authorization: `Bearer ${await mintServiceToken({ secret: SECRET, issuer: 'payment-service', audience: 'identity-service' })}`,
  'x-service': 'payment-service',
});

let host: TestHost;
let superAdmin: SignedIn;
let admin: SignedIn;
let otherAdmin: SignedIn;
let customer: SignedIn;

const as = (who: SignedIn, method: string, path: string, body?: unknown) => call(host, method, path, { token: who.accessToken, body });
const putPlan = (who: SignedIn, userId: string, body: unknown) => as(who, 'PUT', `/admin/users/${userId}/plan`, body);
const stateOf = async (userId: string) => (await as(superAdmin, 'GET', `/admin/users/${userId}`)).body.user as { plan: string; status: string };

beforeAll(async () => {
  host = await startTestHost({ env: { SERVICE_TOKEN_SECRET: SECRET } });
  superAdmin = await signInAdmin(host);
  for (const email of ['ops@example.com', 'ops2@example.com']) {
    expect((await as(superAdmin, 'POST', '/admin/users', { email, role: 'admin' })).status).toBe(201);
  }
  admin = await signIn(host, 'ops@example.com');
  otherAdmin = await signIn(host, 'ops2@example.com');
  customer = await signIn(host, 'customer@example.com');
});
afterAll(() => host.stop());

describe('PUT /admin/users/{id}/plan with an admin token obeys the rules of PATCH /admin/users/{id}', () => {
  test('a plain admin cannot lock out the only super_admin', async () => {
    const res = await putPlan(admin, superAdmin.user.id, { plan: 'free', status: 'inactive' });
    expectError(res, 403, 'SUPER_ADMIN_REQUIRED');
    expect(await stateOf(superAdmin.user.id)).toMatchObject({ status: 'active' });
    expect((await as(superAdmin, 'GET', '/auth/validate')).status).toBe(200);
    const [entry] = await auditEntries(host, superAdmin.accessToken, { action: 'user.plan.update', target: superAdmin.user.id });
    expect(entry).toMatchObject({ actor: { type: 'admin', id: admin.user.id }, result: 'failure', reason: 'SUPER_ADMIN_REQUIRED' });
  });

  test('a plain admin changes neither the plan nor the status of another admin, nor their own', async () => {
    expectError(await putPlan(admin, otherAdmin.user.id, { plan: 'pro', status: 'inactive' }), 403, 'SUPER_ADMIN_REQUIRED');
    expectError(await putPlan(admin, otherAdmin.user.id, { plan: 'enterprise' }), 403, 'SUPER_ADMIN_REQUIRED');
    expectError(await putPlan(admin, admin.user.id, { plan: 'free', status: 'inactive' }), 403, 'SUPER_ADMIN_REQUIRED');
    expect(await stateOf(otherAdmin.user.id)).toMatchObject({ plan: 'free', status: 'active' });
    expect(await stateOf(admin.user.id)).toMatchObject({ status: 'active' });
  });

  test('nobody deactivates themselves (409)', async () => {
    expectError(await putPlan(superAdmin, superAdmin.user.id, { plan: 'pro', status: 'inactive' }), 409, 'CANNOT_DEACTIVATE_SELF');
    expect(await stateOf(superAdmin.user.id)).toMatchObject({ plan: 'free', status: 'active' });
  });

  test('the last active super_admin is never deactivated (409 LAST_SUPER_ADMIN)', async () => {
    // An admin holding the grant-privileged permission has authority over super_admins, but not this.
    expect(
      (await as(superAdmin, 'POST', '/admin/users', { email: 'delegate@example.com', role: 'admin', permissions: ['admin:roles:grant-privileged'] })).status,
    ).toBe(201);
    const delegate = await signIn(host, 'delegate@example.com');
    expectError(await putPlan(delegate, superAdmin.user.id, { plan: 'free', status: 'inactive' }), 409, 'LAST_SUPER_ADMIN');
    expect(await stateOf(superAdmin.user.id)).toMatchObject({ status: 'active' });
  });

  test('an admin still sets plans and status of ordinary users; a super_admin those of admins', async () => {
    expect((await putPlan(admin, customer.user.id, { plan: 'pro' })).status).toBe(200);
    expect((await putPlan(superAdmin, otherAdmin.user.id, { plan: 'enterprise' })).status).toBe(200);
    expect(await stateOf(otherAdmin.user.id)).toMatchObject({ plan: 'enterprise', status: 'active' });
  });
});

describe('PUT /admin/users/{id}/plan with the service token', () => {
  test('sets the plan of an admin, but never deactivates an admin or super_admin (403); a user it may deactivate', async () => {
    const put = async (userId: string, body: object) =>
      call(host, 'PUT', `/admin/users/${userId}/plan`, {
        body: { updatedBy: 'payment-service', timestamp: new Date().toISOString(), ...body },
        headers: await serviceHeaders(),
      });
    expect((await put(otherAdmin.user.id, { plan: 'pro', status: 'active' })).status).toBe(200);
    expectError(await put(otherAdmin.user.id, { plan: 'free', status: 'inactive' }), 403, 'PRIVILEGED_ACCOUNT');
    expectError(await put(superAdmin.user.id, { plan: 'free', status: 'inactive' }), 403, 'PRIVILEGED_ACCOUNT');
    expect(await stateOf(otherAdmin.user.id)).toMatchObject({ plan: 'pro', status: 'active' });
    expect(await stateOf(superAdmin.user.id)).toMatchObject({ status: 'active' });
    // A customer's account is the service's to deactivate (a subscription that ended unpaid).
    const lapsed = await signIn(host, 'lapsed@example.com');
    expect((await put(lapsed.user.id, { plan: 'free', status: 'inactive' })).body).toMatchObject({ plan: 'free', status: 'inactive' });
    expectError(await as(lapsed, 'GET', '/auth/validate'), 401, 'AUTH_SESSION_REVOKED');
  });

  test('an update requested before the last one applied is refused with 409 and the current plan', async () => {
    const put = async (plan: string, timestamp: string) =>
      call(host, 'PUT', `/admin/users/${customer.user.id}/plan`, {
        body: { plan, status: 'active', updatedBy: 'payment-service', timestamp },
        headers: await serviceHeaders(),
      });
    const newer = new Date(Date.now() + 60_000).toISOString();
    const older = new Date(Date.now() + 30_000).toISOString();
    expect((await put('enterprise', newer)).status).toBe(200);
    const stale = await put('pro', older);
    expectError(stale, 409, 'PLAN_UPDATE_STALE');
    expect(stale.body.message).toBe(`A newer plan update (requested at ${newer}) was already applied`);
    expect(stale.body.current).toEqual({ userId: customer.user.id, plan: 'enterprise', status: 'active', requestedAt: newer });
    expect(await stateOf(customer.user.id)).toMatchObject({ plan: 'enterprise' });
    // The same request time again is the same update retried (its answer was lost): applied, not stale.
    const retried = await put('enterprise', newer);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ success: true, message: 'User plan updated', plan: 'enterprise', status: 'active' });
    expect((await put('pro', new Date(Date.now() + 90_000).toISOString())).status).toBe(200);
    // Newest first: the later update, the retry, the refusal, the first; each says when it was requested.
    const entries = await auditEntries(host, superAdmin.accessToken, { target: customer.user.id, action: 'user.plan.update' });
    expect(entries.slice(0, 4).map((e) => [e.actor, e.result, e.reason, e.details?.requestTimestamp ?? null])).toEqual([
      [{ type: 'service', id: 'payment-service' }, 'success', null, expect.any(String)],
      [{ type: 'service', id: 'payment-service' }, 'success', null, newer],
      [{ type: 'service', id: 'payment-service' }, 'failure', 'PLAN_UPDATE_STALE', null],
      [{ type: 'service', id: 'payment-service' }, 'success', null, newer],
    ]);
    expect(entries[2].target).toEqual({ type: 'user', id: customer.user.id });
  });
});

describe('DELETE /admin/sessions/{id}', () => {
  test("ending an admin's or super_admin's session needs super_admin", async () => {
    const superSession = (await as(superAdmin, 'GET', '/auth/validate')).body.sessionId as string;
    expectError(await as(admin, 'DELETE', `/admin/sessions/${superSession}`), 403, 'SUPER_ADMIN_REQUIRED');
    expect((await as(superAdmin, 'GET', '/auth/validate')).status).toBe(200);

    const adminSession = (await as(otherAdmin, 'GET', '/auth/validate')).body.sessionId as string;
    expectError(await as(admin, 'DELETE', `/admin/sessions/${adminSession}`), 403, 'SUPER_ADMIN_REQUIRED');
    expect((await as(superAdmin, 'DELETE', `/admin/sessions/${adminSession}`)).body).toMatchObject({ success: true, revoked: true });
    expectError(await as(otherAdmin, 'GET', '/auth/validate'), 401, 'AUTH_SESSION_REVOKED');

    const customerSession = (await as(customer, 'GET', '/auth/validate')).body.sessionId as string;
    expect((await as(admin, 'DELETE', `/admin/sessions/${customerSession}`)).body).toMatchObject({ success: true, revoked: true });
  });
});
