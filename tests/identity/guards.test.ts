import { decodeJwt } from 'jose';
import { CLOCK_TOLERANCE_SECONDS } from '../../shared/auth/access-token';
import { HttpError } from '../../shared/http/errors';
import { requireAdminPermission, type Authenticated } from '../../functions/identity/guards';
import { identityContext } from '../../functions/identity/context';
import { contextOf } from '../helpers/context';
import { startTestHost, type TestHost } from '../helpers/host';
import { signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { auditEntries, call, expectError } from './support';

/**
 * What identity's guards decide on every call, each at its edge: a session ends at its expiry to
 * the millisecond, a user's status is read on every call, a verified token kept in memory still
 * expires (with the clock tolerance, not a second more), a role without a permission is refused
 * it, and each refusal says why and is audited under the right target. The host runs on the
 * test's clock, so an edge is reached exactly.
 */
let host: TestHost;
let at = Date.parse('2026-11-27T09:00:00.000Z');
const clock = { now: () => new Date(at) };

beforeAll(async () => {
  host = await startTestHost({ env: { SERVICES: 'identity' }, clock });
});
/** The host's database, as identity's code reads it. */
const hostDb = () => contextOf(identityContext, host).db;
afterAll(() => host.stop());

const validate = (token?: string) => call(host, 'GET', '/auth/validate', { token });
const refusal = (res: { status: number; body: any }) => ({ status: res.status, code: res.body?.code, message: res.body?.message });

test('a session is refused from the millisecond it expires, whatever the access token says', async () => {
  const user = await signIn(host, 'session-edge@example.com');
  const { sid } = decodeJwt(user.accessToken) as { sid: string };
  const ends = at + 60_000;
  await hostDb()
    .updateTable('identity_sessions')
    .set({ expires_at: new Date(ends).toISOString() })
    .where('id', '=', sid)
    .execute();
  at = ends - 1;
  expect((await validate(user.accessToken)).status).toBe(200);
  at = ends;
  expect(refusal(await validate(user.accessToken))).toEqual({ status: 401, code: 'AUTH_SESSION_REVOKED', message: 'The session has ended; sign in again' });
});

test("a user's status is read on every call: an inactive user is refused even with a session nobody ended", async () => {
  const user = await signIn(host, 'status-edge@example.com');
  expect((await validate(user.accessToken)).status).toBe(200);
  // As a tool writing the table directly would leave it: the status changed, the sessions not.
  await hostDb().updateTable('users').set({ status: 'inactive' }).where('id', '=', user.user.id).execute();
  expect(refusal(await validate(user.accessToken))).toEqual({ status: 401, code: 'AUTH_USER_INACTIVE', message: 'The account is inactive' });
  await hostDb().updateTable('users').set({ status: 'active' }).where('id', '=', user.user.id).execute();
  expect((await validate(user.accessToken)).status).toBe(200);
});

test('a token expires at exp plus the clock tolerance, to the millisecond, whether its signature was verified before or not', async () => {
  // Issued in the same second, so with the same exp: one verified now (then answered from memory), two not yet.
  const [known, firstSeenBefore, firstSeenAfter] = [
    await signIn(host, 'token-edge-1@example.com'),
    await signIn(host, 'token-edge-2@example.com'),
    await signIn(host, 'token-edge-3@example.com'),
  ];
  expect((await validate(known.accessToken)).status).toBe(200);
  const { exp } = decodeJwt(known.accessToken) as { exp: number };
  expect(decodeJwt(firstSeenAfter.accessToken).exp).toBe(exp);
  const expired = { status: 401, code: 'AUTH_TOKEN_EXPIRED', message: 'The access token has expired' };

  at = (exp + CLOCK_TOLERANCE_SECONDS) * 1000 - 1;
  expect((await validate(known.accessToken)).status).toBe(200);
  expect((await validate(firstSeenBefore.accessToken)).status).toBe(200);
  at += 1;
  expect(refusal(await validate(known.accessToken))).toEqual(expired);
  expect(refusal(await validate(firstSeenAfter.accessToken))).toEqual(expired);
  expect(refusal(await validate(firstSeenBefore.accessToken))).toEqual(expired);
});

test('a call without a token is told what it lacks', async () => {
  expect(refusal(await validate())).toEqual({ status: 401, code: 'AUTH_REQUIRED', message: 'A Bearer access token is required' });
});

describe('admin permissions', () => {
  const caller = (role: string, permissions: string[]) => ({ user: { role, permissions } }) as unknown as Authenticated;
  const refused = (auth: Authenticated, permission: string) => {
    try {
      requireAdminPermission(auth, permission);
      return undefined;
    } catch (error) {
      const { status, code, message } = error as HttpError;
      return { status, code, message };
    }
  };

  // Every seeded admin role holds every admin route's permission, so a role without one (a future
  // role, or a permission taken from a role by a migration) is met here rather than over HTTP.
  test('an admin role without the permission is refused it, naming the permission; one holding it passes', () => {
    expect(refused(caller('admin', ['admin:users:read']), 'admin:audit:read')).toEqual({
      status: 403,
      code: 'PERMISSION_DENIED',
      message: 'This route requires the admin:audit:read permission',
    });
    expect(refused(caller('admin', ['admin:audit:read']), 'admin:audit:read')).toBeUndefined();
    expect(refused(caller('super_admin', ['admin:audit:read']), 'admin:audit:read')).toBeUndefined();
  });

  test('a user holding the permission is still refused: the role decides first', () => {
    expect(refused(caller('user', ['admin:audit:read']), 'admin:audit:read')).toEqual({
      status: 403,
      code: 'ADMIN_REQUIRED',
      message: 'This route requires the admin or super_admin role',
    });
  });
});

describe('refusals are audited under their target', () => {
  // Signed in now: the tests above moved the clock past earlier tokens' lifetime.
  let admin: SignedIn;
  beforeAll(async () => {
    admin = await signInAdmin(host);
  });

  test('a route without an object is audited as the route, by method and path', async () => {
    const user = await signIn(host, 'route-refused@example.com');
    expectError(await call(host, 'GET', '/admin/users?limit=5', { token: user.accessToken }), 403, 'ADMIN_REQUIRED');
    const [entry] = await auditEntries(host, admin.accessToken, { actor: user.user.id, action: 'user.list' });
    expect(entry).toMatchObject({ actor: { type: 'user', id: user.user.id }, target: { type: 'route', id: 'GET /identity/admin/users' }, result: 'failure' });
  });

  test("a user setting a plan is audited under the plan's user", async () => {
    const user = await signIn(host, 'plan-refused@example.com');
    const res = await call(host, 'PUT', `/admin/users/${user.user.id}/plan`, { token: user.accessToken, body: { plan: 'enterprise' } });
    expectError(res, 403, 'ADMIN_REQUIRED');
    const [entry] = await auditEntries(host, admin.accessToken, { actor: user.user.id, action: 'user.plan.update' });
    expect(entry).toMatchObject({
      actor: { type: 'user', id: user.user.id },
      action: 'user.plan.update',
      target: { type: 'user', id: user.user.id },
      result: 'failure',
      reason: 'ADMIN_REQUIRED',
    });
  });

  test("a service call without a token is audited as the service, under the plan's user, saying what was missing", async () => {
    const user = await signIn(host, 'service-refused@example.com');
    const res = await call(host, 'PUT', `/admin/users/${user.user.id}/plan`, { headers: { 'x-service': 'payment-service' }, body: { plan: 'pro' } });
    expect(refusal(res)).toEqual({ status: 401, code: 'AUTH_SERVICE_TOKEN_INVALID', message: 'The service token is not valid: no Bearer token' });
    const [entry] = await auditEntries(host, admin.accessToken, { target: user.user.id, action: 'user.plan.update', result: 'failure' });
    expect(entry).toMatchObject({
      actor: { type: 'service', id: 'payment-service' },
      target: { type: 'user', id: user.user.id },
      reason: 'service_token: no Bearer token',
    });
  });
});
