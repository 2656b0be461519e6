// What a person and an auditor get from each turn of sign-in, word for word: every refusal's message
// (the console shows it as written) and Retry-After, the audit entry each outcome leaves (its actor,
// target and reason), and the code email itself. The routes' tests hold the codes and statuses; this
// file holds the rest, on the host's own clock and database.
import fs from 'node:fs';
import { decodeJwt } from 'jose';
import { identityContext, type IdentityContext } from '../../functions/identity/context';
import { startLogin } from '../../functions/identity/login';
import { runInPlatform } from '../../shared/platform';
import { outboxFiles } from '../../tools/outbox';
import { contextOf } from '../helpers/context';
import { startTestHost, type TestHost } from '../helpers/host';
import { latestCode } from '../helpers/identity';
import { call, login, mailText, signInFrom, verify, wrongCode } from './support';

let host: TestHost;
/** identity's context on the host's platform: its database, as identity's code reads it. */
let ctx: IdentityContext;
let at = Date.parse('2031-09-01T09:00:00Z');
const clock = { now: () => new Date(at) };
// Small caps so that each is reached in a few requests; a code lives 5 minutes.
const ENV = { SERVICES: 'identity', OTP_TTL_SECONDS: '300', LOGIN_MAX_PER_IP: '4', LOGIN_MAX_PER_EMAIL: '2', LOGIN_MAX_PER_EMAIL_TOTAL: '3' };

beforeAll(async () => {
  host = await startTestHost({ env: ENV, clock });
  ctx = contextOf(identityContext, host);
});
afterAll(() => host.stop());

let ip = 0;
/** Each request from its own client unless a test means one client. */
const nextIp = () => `127.0.12.${++ip}`;
/** Past the resend cooldown (60 s). */
const nextMinute = () => (at += 61_000);
/** Seconds to the end of the hour: the caps count in fixed windows (LOGIN_RATE_WINDOW_SECONDS, 3600). */
const windowLeft = () => String(3600 - (Math.floor(at / 1000) % 3600));
// Shared code identity's functions call (the precompiled audit insert) still reads the platform in force: calls run in the host's.
const inHost = <T>(work: () => Promise<T>) => runInPlatform(host.platform, work);
const answer = (res: { status: number; headers: Headers; body: any }) => ({
  status: res.status,
  code: res.body?.code,
  message: res.body?.message,
  retryAfter: res.headers.get('retry-after'),
});
/** The audit entries about a target, oldest first, as the log holds them. */
const audited = (targetId: string) =>
  ctx.db
    .selectFrom('identity_audit_log')
    .select(['actor_type', 'actor_id', 'action', 'target_type', 'target_id', 'result', 'reason', 'details'])
    .where('target_id', '=', targetId)
    .orderBy('id')
    .execute()
    .then((rows) => rows.map((row) => ({ ...row, details: row.details ? JSON.parse(row.details) : null })));
const anonymous = { actor_type: 'anonymous', actor_id: null };
const refresh = (refreshToken: string) => call(host, 'POST', '/auth/refresh', { body: { refreshToken } });

describe('asking for a code', () => {
  test('each refusal says why and when to come back, and is audited with its reason', async () => {
    // One client spends its 4 requests on 4 addresses; its fifth is refused whatever the address.
    const busy = nextIp();
    for (let i = 0; i < 4; i++) expect((await login(host, `spread${i}@example.com`, busy)).status).toBe(200);
    expect(answer(await login(host, 'spread4@example.com', busy))).toEqual({
      status: 429,
      code: 'LOGIN_RATE_LIMITED',
      message: 'Too many sign-in requests from this network; try again later',
      retryAfter: '3600',
    });

    const waiting = 'cooldown-words@example.com';
    await login(host, waiting, nextIp());
    at += 20_000;
    expect(answer(await login(host, waiting, nextIp()))).toEqual({
      status: 429,
      code: 'OTP_RESEND_COOLDOWN',
      message: 'A code was sent moments ago; a new one can be sent in 40 s',
      retryAfter: '40',
    });

    // Two codes to one address from one client, then a third from it 61 s later.
    const capped = 'client-cap@example.com';
    const client = nextIp();
    await login(host, capped, client);
    nextMinute();
    await login(host, capped, client);
    nextMinute();
    expect(answer(await login(host, capped, client))).toEqual({
      status: 429,
      code: 'LOGIN_RATE_LIMITED',
      message: 'Too many codes were sent to this address; try again later',
      retryAfter: windowLeft(),
    });

    // Three codes to one address from three clients, then a fourth from a fourth client.
    const bombed = 'total-cap@example.com';
    for (let i = 0; i < 3; i++) {
      expect((await login(host, bombed, nextIp())).status).toBe(200);
      nextMinute();
    }
    expect(answer(await login(host, bombed, nextIp()))).toEqual({
      status: 429,
      code: 'LOGIN_RATE_LIMITED',
      message: 'Too many codes were sent to this address; try again later',
      retryAfter: windowLeft(),
    });

    const loginEntries = async (email: string) => (await audited(email)).map(({ action, result, reason, ...who }) => ({ ...who, action, result, reason }));
    const entry = (result: string, reason: string | null, details: unknown, email: string) => ({
      ...anonymous,
      action: 'auth.login',
      target_type: 'email',
      target_id: email,
      result,
      reason,
      details,
    });
    const sent = (email: string) => entry('success', null, { accountExists: false }, email);
    expect(await loginEntries('spread4@example.com')).toEqual([entry('failure', 'rate_limited_ip', null, 'spread4@example.com')]);
    expect(await loginEntries(waiting)).toEqual([sent(waiting), entry('failure', 'resend_cooldown', null, waiting)]);
    expect(await loginEntries(capped)).toEqual([sent(capped), sent(capped), entry('failure', 'rate_limited_email', null, capped)]);
    expect(await loginEntries(bombed)).toEqual([sent(bombed), sent(bombed), sent(bombed), entry('failure', 'rate_limited_email_total', null, bombed)]);
  });

  test("two instances past the cooldown check at once: the code's own cooldown refuses the second, audited the same way", async () => {
    const email = 'two-instances@example.com';
    // Two requests on one database connection take turns at every query: both pass the route's
    // cooldown check before either issues its code, as two instances can.
    const meta = (n: number) => ({ ip: `127.0.13.${n}`, userAgent: null, requestId: `two-${n}` });
    const outcomes = await inHost(() => Promise.allSettled([startLogin(ctx, email, meta(1)), startLogin(ctx, email, meta(2))]));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    const refused = (outcomes[1] as PromiseRejectedResult).reason;
    expect({ status: refused.status, code: refused.code, message: refused.message, headers: refused.headers }).toEqual({
      status: 429,
      code: 'OTP_RESEND_COOLDOWN',
      message: 'A code was sent moments ago; try again shortly',
      headers: { 'Retry-After': '60' },
    });
    expect((await audited(email)).map((e) => [e.result, e.reason]).sort()).toEqual([
      ['failure', 'resend_cooldown'],
      ['success', null],
    ]);
  });

  test('the code email names the code, how long it lives (OTP_TTL_SECONDS in minutes) and that it works once; a sign-in says whether the account existed', async () => {
    const email = 'mail-words@example.com';
    await login(host, email, nextIp());
    const code = latestCode(host, email);
    const file = outboxFiles(host.dataDir).at(-1)!;
    const message = fs.readFileSync(file, 'utf8');
    expect(message).toMatch(new RegExp(`^Subject: Your sign-in code: ${code}$`, 'm'));
    expect(body(message)).toBe(
      [
        `Your sign-in code is ${code}`,
        '',
        'It expires in 5 minutes and works once.',
        'If you did not ask to sign in, ignore this email: nobody can sign in without the code.',
      ].join('\n'),
    );
    // The outbox holds codes: readable by the owner of the data directory only.
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const signedIn = (await verify(host, email, code, nextIp())).body;
    nextMinute();
    await login(host, email, nextIp());
    const logins = (await audited(email)).filter((e) => e.action === 'auth.login').map((e) => e.details);
    expect(logins).toEqual([{ accountExists: false }, { accountExists: true }]);
    const signup = await audited(signedIn.user.id);
    expect(signup.find((e) => e.action === 'user.signup')).toMatchObject({
      actor_type: 'user',
      actor_id: signedIn.user.id,
      result: 'success',
      details: { email },
    });
    const { sid } = decodeJwt(signedIn.accessToken) as { sid: string };
    expect((await audited(sid)).filter((e) => e.action === 'auth.verify')).toEqual([
      {
        actor_type: 'user',
        actor_id: signedIn.user.id,
        action: 'auth.verify',
        target_type: 'session',
        target_id: sid,
        result: 'success',
        reason: null,
        details: null,
      },
    ]);
  });
});

/** The body of an outbox message, its long lines joined. */
function body(message: string): string {
  const text = mailText(message);
  return text.slice(text.indexOf('\n\n') + 2).trimEnd();
}

describe('verifying a code', () => {
  test('each failure names what went wrong and is audited as code_<what>', async () => {
    const email = 'verify-words@example.com';
    const failures: { status: number; code: string; message: string }[] = [];
    const attempt = async (code: string) => {
      const res = await verify(host, email, code, nextIp());
      failures.push({ status: res.status, code: res.body.code, message: res.body.message });
    };
    await attempt('123456'); // no code was asked for
    await login(host, email, nextIp());
    const first = latestCode(host, email);
    await attempt(wrongCode(first));
    at += 300_000; // the code's 5 minutes are over
    await attempt(first);
    nextMinute();
    await login(host, email, nextIp());
    const second = latestCode(host, email);
    for (let i = 0; i < 5; i++) await verify(host, email, wrongCode(second), nextIp());
    await attempt(second); // after five wrong tries
    nextMinute();
    await login(host, email, nextIp());
    const third = latestCode(host, email);
    expect((await verify(host, email, third, nextIp())).status).toBe(200);
    await attempt(third); // once used

    const invalid = { status: 401, code: 'OTP_INVALID', message: 'The code is not valid' };
    expect(failures).toEqual([
      invalid,
      invalid,
      { status: 401, code: 'OTP_EXPIRED', message: 'The code has expired; request a new one' },
      { status: 401, code: 'OTP_ATTEMPTS_EXCEEDED', message: 'Too many wrong tries for this code; request a new one' },
      invalid,
    ]);
    const reasons = (await audited(email))
      .filter((e) => e.action === 'auth.verify')
      .map((e) => ({ actor: e.actor_type, target: e.target_type, reason: e.reason }));
    const failed = (reason: string) => ({ actor: 'anonymous', target: 'email', reason });
    expect(reasons).toEqual([
      failed('code_none'),
      failed('code_wrong'),
      failed('code_expired'),
      ...Array.from({ length: 5 }, () => failed('code_wrong')),
      failed('code_exhausted'),
      failed('code_used'),
    ]);
  });

  test('an inactive account is refused after a right code, audited as inactive; no session is opened', async () => {
    const email = 'inactive-words@example.com';
    const user = await signInFrom(host, email, nextIp());
    await ctx.db.updateTable('users').set({ status: 'inactive' }).where('id', '=', user.user.id).execute();
    nextMinute();
    await login(host, email, nextIp());
    const res = await verify(host, email, latestCode(host, email), nextIp());
    expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({
      status: 403,
      code: 'ACCOUNT_INACTIVE',
      message: 'The account is inactive',
    });
    expect((await audited(email)).at(-1)).toMatchObject({ ...anonymous, action: 'auth.verify', target_type: 'email', result: 'failure', reason: 'inactive' });
    const sessions = await ctx.db.selectFrom('identity_sessions').select('id').where('user_id', '=', user.user.id).execute();
    expect(sessions).toHaveLength(1);
  });

  test("a sign-in resets the total allowance of the address as well as its client's", async () => {
    const email = 'total-reset@example.com';
    const clients = [nextIp(), nextIp(), nextIp(), nextIp()];
    for (const client of clients.slice(0, 3)) {
      expect((await login(host, email, client)).status).toBe(200);
      nextMinute();
    }
    expect((await login(host, email, clients[3])).status).toBe(429);
    // The third code still lives (5 minutes); its owner signs in with it from the third client.
    expect((await verify(host, email, latestCode(host, email), clients[2])).status).toBe(200);
    expect((await login(host, email, clients[3])).status).toBe(200);
  });
});

describe('refreshing and signing out', () => {
  test('each refused refresh says why, and is audited under the session and its user when the token is known', async () => {
    const unknown = await refresh('rt_never_issued');
    const user = await signInFrom(host, 'refresh-words@example.com', nextIp());
    const { sid } = decodeJwt(user.accessToken) as { sid: string };
    const first = await refresh(user.refreshToken);
    const second = await refresh(first.body.refreshToken);
    const inGrace = await refresh(user.refreshToken); // its successor is spent already
    at += 3600_000; // past the grace: reuse ends the session
    const reused = await refresh(user.refreshToken);
    const revoked = await refresh(second.body.refreshToken);

    const other = await signInFrom(host, 'refresh-expiry@example.com', nextIp());
    const otherSid = (decodeJwt(other.accessToken) as { sid: string }).sid;
    const endAt = (table: 'identity_sessions' | 'identity_refresh_tokens') =>
      ctx.db
        .updateTable(table)
        .set({ expires_at: new Date(at).toISOString() })
        .where(table === 'identity_sessions' ? 'id' : 'session_id', '=', otherSid)
        .execute();
    await endAt('identity_refresh_tokens');
    const expired = await refresh(other.refreshToken);
    await endAt('identity_sessions');
    const sessionOver = await refresh(other.refreshToken);

    const refusal = (res: { status: number; body: any }) => ({ status: res.status, code: res.body.code, message: res.body.message });
    expect([unknown, inGrace, reused, revoked, expired, sessionOver].map(refusal)).toEqual([
      { status: 401, code: 'REFRESH_TOKEN_INVALID', message: 'The refresh token is not valid' },
      { status: 401, code: 'REFRESH_TOKEN_ROTATED', message: 'This refresh token was just rotated; use the newest one' },
      { status: 401, code: 'REFRESH_TOKEN_REUSED', message: 'This refresh token was already used; the session has been revoked' },
      { status: 401, code: 'REFRESH_TOKEN_INVALID', message: 'The session has ended; sign in again' },
      { status: 401, code: 'REFRESH_TOKEN_EXPIRED', message: 'The refresh token has expired; sign in again' },
      { status: 401, code: 'REFRESH_TOKEN_EXPIRED', message: 'The session has reached its maximum age; sign in again' },
    ]);
    const refreshes = async (sessionId: string) =>
      (await audited(sessionId)).filter((e) => e.action === 'auth.refresh').map((e) => [e.actor_type, e.actor_id, e.target_type, e.result, e.reason]);
    expect(await refreshes(sid)).toEqual([
      ['user', user.user.id, 'session', 'success', null],
      ['user', user.user.id, 'session', 'success', null],
      ['user', user.user.id, 'session', 'failure', 'reused_in_grace'],
      ['user', user.user.id, 'session', 'failure', 'reuse_detected'],
      ['user', user.user.id, 'session', 'failure', 'session_revoked'],
    ]);
    expect(await refreshes(otherSid)).toEqual([
      ['user', other.user.id, 'session', 'failure', 'expired'],
      ['user', other.user.id, 'session', 'failure', 'session_expired'],
    ]);
    const anonymousRefusals = await ctx.db
      .selectFrom('identity_audit_log')
      .select(['actor_type', 'target_type', 'reason'])
      .where('action', '=', 'auth.refresh')
      .where('reason', '=', 'unknown')
      .execute();
    expect(anonymousRefusals).toEqual([{ actor_type: 'anonymous', target_type: null, reason: 'unknown' }]);
  });

  test("a refresh by a user made inactive behind identity's back ends that session for good", async () => {
    const user = await signInFrom(host, 'inactive-refresh@example.com', nextIp());
    const { sid } = decodeJwt(user.accessToken) as { sid: string };
    const setStatus = (status: 'active' | 'inactive') => ctx.db.updateTable('users').set({ status }).where('id', '=', user.user.id).execute();
    // As a tool writing the table directly would leave it: the status changed, the session not.
    await setStatus('inactive');
    const refused = await refresh(user.refreshToken);
    expect({ status: refused.status, code: refused.body.code, message: refused.body.message }).toEqual({
      status: 401,
      code: 'AUTH_USER_INACTIVE',
      message: 'The account is inactive',
    });
    expect((await audited(sid)).at(-1)).toMatchObject({
      actor_type: 'user',
      actor_id: user.user.id,
      action: 'auth.refresh',
      target_type: 'session',
      result: 'failure',
      reason: 'user_inactive',
    });
    const [session] = await ctx.db.selectFrom('identity_sessions').select('revoked_reason').where('id', '=', sid).execute();
    expect(session.revoked_reason).toBe('user_inactive');
    await setStatus('active');
    const again = await refresh(user.refreshToken);
    expect({ status: again.status, message: again.body.message }).toEqual({ status: 401, message: 'The session has ended; sign in again' });
  });

  test('signing out is audited under the session it ended, or under the user for every session', async () => {
    const email = 'logout-words@example.com';
    const one = await signInFrom(host, email, nextIp());
    nextMinute();
    const two = await signInFrom(host, email, nextIp());
    nextMinute();
    const three = await signInFrom(host, email, nextIp());
    const { sid } = decodeJwt(one.accessToken) as { sid: string };
    expect((await call(host, 'POST', '/auth/logout', { token: one.accessToken })).body).toEqual({ success: true, scope: 'current', revokedSessions: 1 });
    expect((await call(host, 'POST', '/auth/logout', { token: two.accessToken, body: { scope: 'all' } })).body).toEqual({
      success: true,
      scope: 'all',
      revokedSessions: 2,
    });
    const actor = { actor_type: 'user', actor_id: one.user.id, action: 'auth.logout', result: 'success', reason: null };
    expect((await audited(sid)).filter((e) => e.action === 'auth.logout')).toEqual([
      { ...actor, target_type: 'session', target_id: sid, details: { scope: 'current', revoked: 1 } },
    ]);
    expect((await audited(one.user.id)).filter((e) => e.action === 'auth.logout')).toEqual([
      { ...actor, target_type: 'user', target_id: one.user.id, details: { scope: 'all', revoked: 2 } },
    ]);
    expect((await call(host, 'GET', '/auth/validate', { token: three.accessToken })).status).toBe(401);
    // Each session keeps why it ended, which the administrators' session list shows.
    const ended = await ctx.db
      .selectFrom('identity_sessions')
      .select(['id', 'revoked_reason'])
      .where('user_id', '=', one.user.id)
      .orderBy('created_at')
      .execute();
    expect(ended.map((session) => session.revoked_reason)).toEqual(['logout', 'logout_all', 'logout_all']);
    expect(ended[0].id).toBe(sid);
  });
});
