import { mintServiceToken, SERVICE_TOKEN_PREFIX } from '../../shared/auth/service-token';
import { db } from '../../shared/sql/db';
import { serviceTokenClaims, signByHand } from '../helpers/service-token';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import type { ErrorCode } from '../../shared/http/error-codes';
import { auditEntries, call, expectError } from './support';

const SECRET = 'current-service-token-secret-0123456789abcdef';
const PREVIOUS = 'previous-service-token-secret-0123456789abcdef';
const SERVICE = { issuer: 'payment-service', audience: 'identity-service' };

let host: TestHost;
let admin: SignedIn;
let user: SignedIn;

beforeAll(async () => {
  host = await startTestHost({ env: { SERVICE_TOKEN_SECRET: SECRET, SERVICE_TOKEN_SECRET_PREVIOUS: PREVIOUS } });
  admin = await signInAdmin(host);
  user = await signIn(host, 'customer@example.com');
});
afterAll(() => host.stop());

const serviceHeaders = (token: string, service = 'payment-service') => ({ ...bearer(token), 'x-service': service });
const putPlan = (userId: string, body: unknown, headers: Record<string, string>) => call(host, 'PUT', `/admin/users/${userId}/plan`, { body, headers });
const paymentBody = () => ({ plan: 'pro', status: 'active', updatedBy: 'payment-service', timestamp: new Date().toISOString() });

/** A token with the right header whose payload and signature we choose. */
const craft = (payload: object, secret = SECRET) => signByHand(payload, secret);
const claims = (overrides: object = {}) => serviceTokenClaims(overrides);

const expectInvalidServiceToken = (res: { status: number; body: any }) => {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: 'Invalid service token', message: expect.any(String), code: 'AUTH_SERVICE_TOKEN_INVALID', timestamp: expect.any(String) });
};

describe('service-token mode (X-Service: payment-service)', () => {
  test('a plan change that keeps the account active ends none of its sessions (a payment never signs its buyer out)', async () => {
    const buyer = await signIn(host, 'plan-buyer@example.com');
    const res = await putPlan(buyer.user.id, paymentBody(), serviceHeaders(await mintServiceToken({ secret: SECRET, ...SERVICE })));
    expect(res.status).toBe(200);
    const [entry] = await auditEntries(host, admin.accessToken, { target: buyer.user.id, action: 'user.plan.update' });
    expect(entry.details).not.toHaveProperty('revokedSessions');
    const renewed = await call(host, 'POST', '/auth/refresh', { body: { refreshToken: buyer.refreshToken } });
    expect(renewed.status).toBe(200);
    expect(renewed.body.user).toMatchObject({ id: buyer.user.id, plan: 'pro', status: 'active' });
  });

  test('the payment call sets plan, status and updated_at and answers success, message, userId, plan, status, updatedBy and timestamp', async () => {
    const before = (await call(host, 'GET', `/admin/users/${user.user.id}`, { token: admin.accessToken })).body.user;
    const body = paymentBody();
    const res = await putPlan(user.user.id, body, serviceHeaders(await mintServiceToken({ secret: SECRET, ...SERVICE })));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: expect.any(String),
      userId: user.user.id,
      plan: 'pro',
      planPeriodEnd: null,
      planSource: 'manual',
      status: 'active',
      updatedBy: 'payment-service',
      timestamp: expect.any(String),
    });
    const after = (await call(host, 'GET', `/admin/users/${user.user.id}`, { token: admin.accessToken })).body.user;
    expect(after).toMatchObject({ plan: 'pro', status: 'active', updatedAt: res.body.timestamp });
    expect(after.updatedAt > before.updatedAt).toBe(true);
    const [entry] = await auditEntries(host, admin.accessToken, { target: user.user.id, action: 'user.plan.update' });
    expect(entry).toMatchObject({
      actor: { type: 'service', id: 'payment-service' },
      result: 'success',
      details: { from: { plan: 'free' }, to: { plan: 'pro', status: 'active' }, updatedBy: 'payment-service' },
    });
  });

  test('a token signed with the previous secret is accepted during rotation', async () => {
    const res = await putPlan(user.user.id, paymentBody(), serviceHeaders(await mintServiceToken({ secret: PREVIOUS, ...SERVICE })));
    expect(res.status).toBe(200);
  });

  test.each([
    ['right prefix, wrong signature', () => craft(claims(), 'an-attacker-secret-that-is-long-enough-00')],
    [
      'right prefix, tampered payload',
      async () => {
        const [h, , s] = (await mintServiceToken({ secret: SECRET, ...SERVICE })).split('.');
        return `${h}.${Buffer.from(JSON.stringify(claims({ permissions: ['admin:users:update', 'admin:everything'] }))).toString('base64url')}.${s}`;
      },
    ],
    [
      'alg none',
      () =>
        `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT', service: 'payment' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}.`,
    ],
    ['prefix only, no signature', () => `${SERVICE_TOKEN_PREFIX}${Buffer.from(JSON.stringify(claims())).toString('base64url')}.`],
    ['expired', () => mintServiceToken({ secret: SECRET, ...SERVICE, now: new Date(Date.now() - 400 * 24 * 3600_000) })],
    ['wrong permissions', () => craft(claims({ permissions: ['admin:users:read'] }))],
    ['wrong role', () => craft(claims({ role: 'admin' }))],
    ['wrong issuer', () => craft(claims({ iss: 'someone-else' }))],
    ['wrong audience', () => craft(claims({ aud: 'another-service' }))],
    ['a user access token', () => user.accessToken],
    ['garbage', () => 'abc'],
  ])('%s: 401 Invalid service token', async (_name, token) => {
    expectInvalidServiceToken(await putPlan(user.user.id, paymentBody(), serviceHeaders(await token())));
  });

  test('a token without the update permission is refused naming that permission', async () => {
    const res = await putPlan(user.user.id, paymentBody(), serviceHeaders(craft(claims({ permissions: ['admin:users:read'] }))));
    expectInvalidServiceToken(res);
    expect(res.body.message).toBe('The service token is not valid: token lacks the admin:users:update permission');
  });

  test('a missing Bearer token: 401 Invalid service token', async () => {
    expectInvalidServiceToken(await putPlan(user.user.id, paymentBody(), { 'x-service': 'payment-service' }));
  });

  test('a valid service token with the wrong X-Service is not a service call: 401', async () => {
    const token = await mintServiceToken({ secret: SECRET, ...SERVICE });
    expectError(await putPlan(user.user.id, paymentBody(), serviceHeaders(token, 'Payment-Service')), 401, 'AUTH_TOKEN_INVALID');
    expectError(await putPlan(user.user.id, paymentBody(), bearer(token)), 401, 'AUTH_TOKEN_INVALID');
  });

  test('the service token is accepted on the plan route only', async () => {
    const token = await mintServiceToken({ secret: SECRET, ...SERVICE });
    expectError(await call(host, 'GET', `/admin/users/${user.user.id}`, { headers: serviceHeaders(token) }), 401, 'AUTH_TOKEN_INVALID');
    expectError(await call(host, 'GET', '/auth/validate', { headers: serviceHeaders(token) }), 401, 'AUTH_TOKEN_INVALID');
  });

  test('forged attempts are audited as failures with the reason, never the token', async () => {
    const forged = craft(claims(), 'an-attacker-secret-that-is-long-enough-00');
    await putPlan(user.user.id, paymentBody(), serviceHeaders(forged));
    const [entry] = await auditEntries(host, admin.accessToken, { target: user.user.id, action: 'user.plan.update', result: 'failure' });
    expect(entry).toMatchObject({ actor: { type: 'service', id: 'payment-service' }, reason: 'service_token: signature does not verify' });
    expect(JSON.stringify(entry)).not.toContain(forged.split('.')[2]);
  });
});

describe('admin JWT mode', () => {
  test('an admin sets plan only: status unchanged, updatedBy defaults to the admin', async () => {
    const deactivated = await putPlan(user.user.id, { plan: 'free', status: 'inactive' }, bearer(admin.accessToken));
    expect(deactivated.status).toBe(200);
    // Deactivating ends the user's one session, and the audit counts it.
    const [entry] = await auditEntries(host, admin.accessToken, { target: user.user.id, action: 'user.plan.update' });
    expect(entry.details).toMatchObject({ to: { plan: 'free', status: 'inactive' }, updatedBy: 'admin@example.com', revokedSessions: 1 });
    expect(entry.details).not.toHaveProperty('requestTimestamp');
    const res = await putPlan(user.user.id, { plan: 'enterprise' }, bearer(admin.accessToken));
    expect(res.body).toMatchObject({ success: true, plan: 'enterprise', status: 'inactive', updatedBy: 'admin@example.com' });
    const back = await putPlan(user.user.id, { plan: 'pro', status: 'active', updatedBy: 'support ticket 42' }, bearer(admin.accessToken));
    expect(back.body).toMatchObject({ plan: 'pro', status: 'active', updatedBy: 'support ticket 42' });
  });

  test('no token 401, a user JWT 403', async () => {
    expectError(await putPlan(user.user.id, { plan: 'pro' }, {}), 401, 'AUTH_REQUIRED');
    const other = await signIn(host, 'not-an-admin@example.com');
    expectError(await putPlan(other.user.id, { plan: 'enterprise' }, bearer(other.accessToken)), 403, 'ADMIN_REQUIRED');
    expect((await call(host, 'GET', '/auth/validate', { token: other.accessToken })).body.user.plan).toBe('free');
  });
});

describe('body and ids', () => {
  const token = () => mintServiceToken({ secret: SECRET, ...SERVICE });
  test.each<[string, string, ErrorCode]>([
    ['malformed JSON', '{"plan":', 'INVALID_JSON'],
    ['empty body', '', 'INVALID_JSON'],
    ['missing plan', JSON.stringify({ status: 'active' }), 'VALIDATION_FAILED'],
    ['unknown plan', JSON.stringify({ plan: 'platinum' }), 'VALIDATION_FAILED'],
    ['plan of the wrong type', JSON.stringify({ plan: 3 }), 'VALIDATION_FAILED'],
    ['unknown status', JSON.stringify({ plan: 'pro', status: 'paused' }), 'VALIDATION_FAILED'],
    ['bad timestamp', JSON.stringify({ plan: 'pro', timestamp: 'yesterday' }), 'VALIDATION_FAILED'],
    ['unknown field', JSON.stringify({ plan: 'pro', credits: 10 }), 'VALIDATION_FAILED'],
  ])('%s: 400', async (_name, raw, code) => {
    const res = await call(host, 'PUT', `/admin/users/${user.user.id}/plan`, {
      raw,
      headers: { ...serviceHeaders(await token()), 'content-type': 'application/json' },
    });
    expectError(res, 400, code);
  });

  test('a request time stored before the clock-skew rule (far in the future) does not pin the plan: a new update applies', async () => {
    const pinned = await signIn(host, 'pinned@example.com');
    await db().updateTable('users').set({ plan: 'free', plan_request_at: '9999-12-31T23:59:59.999Z' }).where('id', '=', pinned.user.id).execute();
    const res = await putPlan(pinned.user.id, paymentBody(), serviceHeaders(await token()));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ plan: 'pro' });
  });

  test('the message names the bad field', async () => {
    const res = await putPlan(user.user.id, { plan: 'platinum' }, serviceHeaders(await token()));
    expect(res.body.message).toContain('plan');
  });

  test('an unknown user: 404, audited', async () => {
    expectError(await putPlan('no-such-user', paymentBody(), serviceHeaders(await token())), 404, 'USER_NOT_FOUND');
    const [entry] = await auditEntries(host, admin.accessToken, { target: 'no-such-user' });
    expect(entry).toMatchObject({ result: 'failure', reason: 'USER_NOT_FOUND' });
  });
});
