import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, generateKeyPair } from 'jose';
import { startTestHost, type TestHost } from '../helpers/host';
import { signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { advanceClock, auditEntries, call, expectError } from './support';

let host: TestHost;
let admin: SignedIn;

beforeAll(async () => {
  host = await startTestHost();
  admin = await signInAdmin(host);
});
afterAll(() => host.stop());
afterEach(() => jest.useRealTimers());

const validate = (token: string) => call(host, 'GET', '/auth/validate', { token });
const refresh = (refreshToken: unknown) => call(host, 'POST', '/auth/refresh', { body: { refreshToken } });

describe('access tokens and JWKS', () => {
  test('tokens are ES256 with a kid published in the JWKS and carry the documented claims', async () => {
    const user = await signIn(host, 'claims@example.com');
    const jwks = await call(host, 'GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('cache-control')).toContain('max-age');
    for (const key of jwks.body.keys) expect(key).not.toHaveProperty('d');
    const header = decodeProtectedHeader(user.accessToken);
    expect(header).toEqual({ alg: 'ES256', kid: jwks.body.keys[0].kid, typ: 'JWT' });
    const { payload } = await jwtVerify(user.accessToken, createLocalJWKSet(jwks.body), {
      algorithms: ['ES256'],
      issuer: 'identity-service',
      audience: 'report-platform',
    });
    expect(payload).toMatchObject({
      sub: user.user.id,
      email: 'claims@example.com',
      role: 'user',
      plan: 'free',
      status: 'active',
      sid: expect.any(String),
      jti: expect.any(String),
    });
    expect(payload.exp! - payload.iat!).toBe(900);
    expect(payload.permissions).toEqual(user.user.permissions);
  });

  test('validate returns the current user, plan and status', async () => {
    const user = await signIn(host, 'validate@example.com');
    const res = await validate(user.accessToken);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, user: user.user, sessionId: expect.any(String) });
    expect(res.body.expiresAt).toBe(new Date(decodeJwt(user.accessToken).exp! * 1000).toISOString());
    await call(host, 'PUT', `/admin/users/${user.user.id}/plan`, { token: admin.accessToken, body: { plan: 'enterprise' } });
    expect((await validate(user.accessToken)).body.user.plan).toBe('enterprise');
  });

  test('validate refuses a missing, malformed, foreign, unsigned or expired token with 401', async () => {
    const user = await signIn(host, 'refused@example.com');
    expectError(await call(host, 'GET', '/auth/validate'), 401, 'AUTH_REQUIRED');
    expectError(await validate('not.a.jwt'), 401, 'AUTH_TOKEN_INVALID');
    const [h, p] = user.accessToken.split('.');
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
    expectError(await validate(none), 401, 'AUTH_TOKEN_INVALID');
    const tampered = JSON.parse(Buffer.from(p, 'base64url').toString());
    tampered.role = 'super_admin';
    expectError(
      await validate(`${h}.${Buffer.from(JSON.stringify(tampered)).toString('base64url')}.${user.accessToken.split('.')[2]}`),
      401,
      'AUTH_TOKEN_INVALID',
    );
    const { privateKey } = await generateKeyPair('ES256');
    const foreign = await new SignJWT({ ...tampered }).setProtectedHeader({ alg: 'ES256', kid: decodeProtectedHeader(user.accessToken).kid! }).sign(privateKey);
    expectError(await validate(foreign), 401, 'AUTH_TOKEN_INVALID');
    const hs = await new SignJWT({ ...tampered }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('x'.repeat(32)));
    expectError(await validate(hs), 401, 'AUTH_TOKEN_INVALID');
    advanceClock(16 * 60_000);
    expectError(await validate(user.accessToken), 401, 'AUTH_TOKEN_EXPIRED');
  });

  test('deactivating a user ends their sessions: the old tokens stay refused after reactivation', async () => {
    const user = await signIn(host, 'deactivated@example.com');
    const setStatus = async (status: string) =>
      expect((await call(host, 'PUT', `/admin/users/${user.user.id}/plan`, { token: admin.accessToken, body: { plan: 'free', status } })).status).toBe(200);
    await setStatus('inactive');
    expectError(await validate(user.accessToken), 401, 'AUTH_SESSION_REVOKED');
    // Refused because the session is gone, not because the account is inactive right now.
    await setStatus('active');
    expectError(await validate(user.accessToken), 401, 'AUTH_SESSION_REVOKED');
    expectError(await refresh(user.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
  });

  test("a deleted user's token fails validation", async () => {
    const user = await signIn(host, 'deleted@example.com');
    expect((await call(host, 'DELETE', `/admin/users/${user.user.id}`, { token: admin.accessToken })).status).toBe(200);
    expectError(await validate(user.accessToken), 401, 'AUTH_SESSION_REVOKED');
  });
});

describe('POST /auth/refresh', () => {
  test('rotates on every use: new tokens, same session, old refresh token refused', async () => {
    const user = await signIn(host, 'rotate@example.com');
    const first = await refresh(user.refreshToken);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ success: true, tokenType: 'Bearer', expiresIn: 900, user: user.user });
    expect(first.body.refreshToken).not.toBe(user.refreshToken);
    const sid = (await validate(user.accessToken)).body.sessionId;
    expect((await validate(first.body.accessToken)).body.sessionId).toBe(sid);
    const second = await refresh(first.body.refreshToken);
    expect(second.status).toBe(200);
    expectError(await refresh(user.refreshToken), 401, 'REFRESH_TOKEN_ROTATED');
  });

  test('a refresh repeated within the grace period gets the same successor (its first answer was lost), never a second live token', async () => {
    const user = await signIn(host, 'grace@example.com');
    const next = await refresh(user.refreshToken);
    advanceClock(9_000);
    const again = await refresh(user.refreshToken);
    expect(again.status).toBe(200);
    expect(again.body.refreshToken).toBe(next.body.refreshToken);
    expect(again.body.accessToken).not.toBe(next.body.accessToken);
    expect((await validate(next.body.accessToken)).status).toBe(200);
    const entries = await auditEntries(host, admin.accessToken, { actor: user.user.id, action: 'auth.refresh' });
    expect(entries.map((e) => [e.result, e.details ?? null])).toEqual([
      ['success', { repeated: true }],
      ['success', null],
    ]);
    // Once the successor is used, the old token is refused, and the session stays.
    const third = await refresh(next.body.refreshToken);
    expect(third.status).toBe(200);
    expectError(await refresh(user.refreshToken), 401, 'REFRESH_TOKEN_ROTATED');
    expect((await refresh(third.body.refreshToken)).status).toBe(200);
  });

  test('the grace period includes its last instant: a repeat exactly 10 s after the rotation gets the successor, one millisecond later it is reuse', async () => {
    const user = await signIn(host, 'grace-edge@example.com');
    advanceClock(0); // the clock stands still from here, so the rotation and the repeats are exactly as far apart as advanced
    const next = await refresh(user.refreshToken);
    advanceClock(10_000);
    const atEdge = await refresh(user.refreshToken);
    expect(atEdge.status).toBe(200);
    expect(atEdge.body.refreshToken).toBe(next.body.refreshToken);
    advanceClock(1);
    expectError(await refresh(user.refreshToken), 401, 'REFRESH_TOKEN_REUSED');
  });

  test('a repeat after the grace period is reuse: the session is revoked, even if the successor was never used', async () => {
    const user = await signIn(host, 'late-repeat@example.com');
    const next = await refresh(user.refreshToken);
    advanceClock(11_000);
    expectError(await refresh(user.refreshToken), 401, 'REFRESH_TOKEN_REUSED');
    expectError(await refresh(next.body.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
  });

  test('reuse after the grace period revokes the whole session', async () => {
    const user = await signIn(host, 'stolen@example.com');
    const next = await refresh(user.refreshToken);
    advanceClock(11_000);
    expectError(await refresh(user.refreshToken), 401, 'REFRESH_TOKEN_REUSED');
    expectError(await validate(next.body.accessToken), 401, 'AUTH_SESSION_REVOKED');
    expectError(await refresh(next.body.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
    // The administrators see why it ended.
    const sessions = await call(host, 'GET', `/admin/sessions?userId=${user.user.id}&state=all`, { token: admin.accessToken });
    expect(sessions.body.sessions).toEqual([expect.objectContaining({ active: false, revokedReason: 'refresh_token_reuse', revokedAt: expect.any(String) })]);
    const entries = await auditEntries(host, admin.accessToken, { actor: user.user.id, action: 'auth.refresh' });
    expect(entries.map((e) => [e.result, e.reason])).toEqual([
      ['failure', 'session_revoked'],
      ['failure', 'reuse_detected'],
      ['success', null],
    ]);
  });

  test('concurrent refreshes with one token: exactly one rotation, whose successor every caller gets', async () => {
    const user = await signIn(host, 'tabs@example.com');
    const results = await Promise.all(Array.from({ length: 6 }, () => refresh(user.refreshToken)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(results.map((r) => r.body.refreshToken)).size).toBe(1);
    const sessions = await call(host, 'GET', `/admin/sessions?userId=${user.user.id}`, { token: admin.accessToken });
    expect(sessions.body.sessions).toHaveLength(1);
    // The one successor rotates as usual; the first token is spent.
    expect((await refresh(results[0].body.refreshToken)).status).toBe(200);
    expectError(await refresh(user.refreshToken), 401, 'REFRESH_TOKEN_ROTATED');
  });

  test('an expired refresh token is refused', async () => {
    const user = await signIn(host, 'idle@example.com');
    advanceClock(15 * 24 * 3600_000);
    expectError(await refresh(user.refreshToken), 401, 'REFRESH_TOKEN_EXPIRED');
  });

  test('a session ends at its maximum age (30 days) however often it is refreshed', async () => {
    const user = await signIn(host, 'marathon@example.com');
    advanceClock(10 * 24 * 3600_000);
    const day10 = await refresh(user.refreshToken);
    expect(day10.status).toBe(200);
    advanceClock(10 * 24 * 3600_000);
    const day20 = await refresh(day10.body.refreshToken);
    expect(day20.status).toBe(200);
    advanceClock(11 * 24 * 3600_000);
    expectError(await refresh(day20.body.refreshToken), 401, 'REFRESH_TOKEN_EXPIRED');
  });

  test('unknown or malformed refresh tokens get 401 or 400, never 500', async () => {
    expectError(await refresh('rt_unknown'), 401, 'REFRESH_TOKEN_INVALID');
    expectError(await refresh(12), 400, 'VALIDATION_FAILED');
    expectError(await refresh(''), 400, 'VALIDATION_FAILED');
    expectError(await call(host, 'POST', '/auth/refresh', { raw: '{' }), 400, 'INVALID_JSON');
  });
});

describe('POST /auth/logout', () => {
  test('scope current ends only this session; validate then answers 401', async () => {
    const a = await signIn(host, 'logout@example.com');
    const b = await signIn(host, 'logout@example.com');
    const res = await call(host, 'POST', '/auth/logout', { token: a.accessToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, scope: 'current', revokedSessions: 1 });
    expectError(await validate(a.accessToken), 401, 'AUTH_SESSION_REVOKED');
    expectError(await refresh(a.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
    expect((await validate(b.accessToken)).status).toBe(200);
  });

  test('scope all ends every session of the user', async () => {
    const a = await signIn(host, 'everywhere@example.com');
    const b = await signIn(host, 'everywhere@example.com');
    const res = await call(host, 'POST', '/auth/logout', { token: b.accessToken, body: { scope: 'all' } });
    expect(res.body).toEqual({ success: true, scope: 'all', revokedSessions: 2 });
    expectError(await validate(a.accessToken), 401, 'AUTH_SESSION_REVOKED');
    expectError(await validate(b.accessToken), 401, 'AUTH_SESSION_REVOKED');
    const entries = await auditEntries(host, admin.accessToken, { actor: a.user.id, action: 'auth.logout' });
    expect(entries[0]).toMatchObject({ result: 'success', details: { scope: 'all', revoked: 2 } });
  });

  test('refuses a missing token (401), a bad scope or malformed JSON (400)', async () => {
    const a = await signIn(host, 'badlogout@example.com');
    expectError(await call(host, 'POST', '/auth/logout'), 401, 'AUTH_REQUIRED');
    expectError(await call(host, 'POST', '/auth/logout', { token: a.accessToken, body: { scope: 'galaxy' } }), 400, 'VALIDATION_FAILED');
    expectError(await call(host, 'POST', '/auth/logout', { token: a.accessToken, raw: '{{' }), 400, 'INVALID_JSON');
    expect((await validate(a.accessToken)).status).toBe(200);
  });
});
