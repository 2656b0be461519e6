import { startTestHost, type TestHost } from '../helpers/host';
import { latestCode, type SignedIn } from '../helpers/identity';
import { lastEmail } from '../../tools/outbox';
import { advanceClock, auditEntries, call, expectError, FAKE_DATE_ONLY, login, signInFrom, verify, wrongCode } from './support';

let host: TestHost;
let admin: SignedIn;
let ipCounter = 0;
/** Each test signs in from its own loopback address (a distinct client) so the per-IP cap (10 here) is only hit where a test means to. */
const nextIp = () => `127.1.${Math.floor(++ipCounter / 200)}.${(ipCounter % 200) + 1}`;

beforeAll(async () => {
  host = await startTestHost({ env: { LOGIN_MAX_PER_IP: '10' } });
  admin = await signInFrom(host, 'admin@example.com', nextIp());
});
afterAll(() => host.stop());
afterEach(() => jest.useRealTimers());

describe('POST /auth/login', () => {
  test('answers a known and an unknown address identically and mails a 6-digit code', async () => {
    const known = await login(host, 'admin@example.com', nextIp());
    const unknown = await login(host, 'nobody-yet@example.com', nextIp());
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual(known.body);
    expect(known.body).toEqual({ success: true, message: expect.any(String) });
    const email = lastEmail(host.dataDir);
    expect(email).toMatch(/^To: nobody-yet@example\.com$/m);
    expect(email).toMatch(/^Your sign-in code is \d{6}$/m);
  });

  test('refuses malformed JSON, wrong types, unknown fields, bad addresses and oversize bodies with 4xx JSON', async () => {
    expectError(await call(host, 'POST', '/auth/login', { raw: '{"email":' }), 400, 'INVALID_JSON');
    const wrongType = await call(host, 'POST', '/auth/login', { body: { email: 42 } });
    expectError(wrongType, 400, 'VALIDATION_FAILED');
    expect(wrongType.body.message).toContain('email');
    expectError(await call(host, 'POST', '/auth/login', { body: {} }), 400, 'VALIDATION_FAILED');
    expectError(await call(host, 'POST', '/auth/login', { body: { email: 'a@example.com', admin: true } }), 400, 'VALIDATION_FAILED');
    expectError(await call(host, 'POST', '/auth/login', { body: { email: 'not-an-address' } }), 400, 'VALIDATION_FAILED');
    expectError(await call(host, 'POST', '/auth/login', { body: { email: `${'a'.repeat(5000)}@example.com` } }), 413, 'PAYLOAD_TOO_LARGE');
  });

  test('signs a new address up as an active free user with the user role', async () => {
    const signedIn = await signInFrom(host, 'New.Person@Example.com', nextIp());
    expect(signedIn).toMatchObject({ success: true, tokenType: 'Bearer', expiresIn: 900, accessToken: expect.any(String), refreshToken: expect.any(String) });
    expect(signedIn.user).toEqual({
      id: expect.any(String),
      email: 'new.person@example.com',
      role: 'user',
      permissions: ['payments:create', 'reports:create', 'reports:read'],
      plan: 'free',
      planPeriodEnd: null,
      planSource: null,
      status: 'active',
    });
  });

  test('resend cooldown: a second code within 60 s is refused with Retry-After, for unknown addresses too', async () => {
    for (const email of ['admin@example.com', 'ghost-cooldown@example.com']) {
      jest.useFakeTimers(FAKE_DATE_ONLY);
      jest.setSystemTime(new Date('2031-03-01T08:00:00Z'));
      expect((await login(host, email, nextIp())).status).toBe(200);
      advanceClock(30_000);
      const again = await login(host, email, nextIp());
      expectError(again, 429, 'OTP_RESEND_COOLDOWN');
      expect(Number(again.headers.get('retry-after'))).toBe(30);
      advanceClock(31_000);
      expect((await login(host, email, nextIp())).status).toBe(200);
      jest.useRealTimers();
    }
  });

  test('a used code does not hold back the next sign-in', async () => {
    const ip = nextIp();
    await signInFrom(host, 'twice@example.com', ip);
    await signInFrom(host, 'twice@example.com', ip);
  });

  test('per-email cap: the sixth code to one address from one client within the hour is refused until a successful sign-in resets it', async () => {
    const email = 'capped@example.com';
    const ip = nextIp();
    jest.useFakeTimers(FAKE_DATE_ONLY);
    jest.setSystemTime(new Date('2031-04-01T09:00:00Z'));
    for (let i = 0; i < 5; i++) {
      expect((await login(host, email, ip)).status).toBe(200);
      advanceClock(61_000);
    }
    const refused = await login(host, email, ip);
    expectError(refused, 429, 'LOGIN_RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBe(3600 - 5 * 61);
    expect((await verify(host, email, latestCode(host, email), ip)).status).toBe(200);
    expect((await login(host, email, ip)).status).toBe(200);
  });

  test("a stranger who spends an address's allowance from their client does not lock its owner out", async () => {
    const email = 'victim@example.com';
    const attacker = nextIp();
    jest.useFakeTimers(FAKE_DATE_ONLY);
    jest.setSystemTime(new Date('2031-04-02T09:00:00Z'));
    for (let i = 0; i < 5; i++) {
      expect((await login(host, email, attacker)).status).toBe(200);
      const code = latestCode(host, email);
      for (let t = 0; t < 5; t++) await verify(host, email, wrongCode(code), attacker);
      expectError(await verify(host, email, code, attacker), 401, 'OTP_ATTEMPTS_EXCEEDED');
    }
    expectError(await login(host, email, attacker), 429, 'LOGIN_RATE_LIMITED');
    const owner = nextIp();
    expect((await login(host, email, owner)).status).toBe(200);
    expect((await verify(host, email, latestCode(host, email), owner)).status).toBe(200);
  });

  test('total per-email ceiling: codes to one address from all clients stop at LOGIN_MAX_PER_EMAIL_TOTAL (mail bombing)', async () => {
    const email = 'bombed@example.com';
    jest.useFakeTimers(FAKE_DATE_ONLY);
    jest.setSystemTime(new Date('2031-04-03T09:00:00Z'));
    for (let i = 0; i < 20; i++) {
      expect((await login(host, email, nextIp())).status).toBe(200);
      advanceClock(61_000);
    }
    const refused = await login(host, email, nextIp());
    expectError(refused, 429, 'LOGIN_RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBe(3600 - 20 * 61);
  });

  test('per-IP cap: the client is the address the front end saw; X-Forwarded-For and client-ip written by the caller change nothing', async () => {
    jest.useFakeTimers(FAKE_DATE_ONLY);
    jest.setSystemTime(new Date('2031-05-01T09:00:00Z'));
    const ip = '127.51.100.7';
    for (let i = 0; i < 10; i++) {
      const forged = { 'x-forwarded-for': `10.9.${i}.1`, 'client-ip': `10.8.${i}.1:4000` };
      expect((await call(host, 'POST', '/auth/login', { body: { email: `spray${i}@example.com` }, headers: forged, from: ip })).status).toBe(200);
    }
    const refused = await call(host, 'POST', '/auth/login', {
      body: { email: 'spray-last@example.com' },
      headers: { 'x-forwarded-for': '10.9.99.1' },
      from: ip,
    });
    expectError(refused, 429, 'LOGIN_RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBe(3600);
    expect((await login(host, 'spray-last@example.com', '127.51.100.8')).status).toBe(200);
    jest.useRealTimers();
    const [entry] = await auditEntries(host, admin.accessToken, { target: 'spray0@example.com' });
    expect(entry.ip).toBe(ip);
  });
});

describe('POST /auth/verify', () => {
  test('a code is valid for 10 minutes', async () => {
    jest.useFakeTimers(FAKE_DATE_ONLY);
    jest.setSystemTime(new Date('2031-06-01T09:00:00Z'));
    await login(host, 'slow@example.com', nextIp());
    const code = latestCode(host, 'slow@example.com');
    advanceClock(600_000 + 1000);
    expectError(await verify(host, 'slow@example.com', code), 401, 'OTP_EXPIRED');
    jest.setSystemTime(new Date('2031-06-01T09:09:59Z'));
    expect((await verify(host, 'slow@example.com', code)).status).toBe(200);
  });

  test('a code signs in once', async () => {
    await login(host, 'once@example.com', nextIp());
    const code = latestCode(host, 'once@example.com');
    expect((await verify(host, 'once@example.com', code)).status).toBe(200);
    expectError(await verify(host, 'once@example.com', code), 401, 'OTP_INVALID');
  });

  test('concurrent verifications of one code: exactly one wins', async () => {
    await login(host, 'race@example.com', nextIp());
    const code = latestCode(host, 'race@example.com');
    const results = await Promise.all(Array.from({ length: 8 }, () => verify(host, 'race@example.com', code)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401 && r.body.code === 'OTP_INVALID')).toHaveLength(7);
  });

  test('five tries per code: the fifth may succeed, after five wrong ones even the right code fails', async () => {
    await login(host, 'guess4@example.com', nextIp());
    const code4 = latestCode(host, 'guess4@example.com');
    for (let i = 0; i < 4; i++) expectError(await verify(host, 'guess4@example.com', wrongCode(code4)), 401, 'OTP_INVALID');
    expect((await verify(host, 'guess4@example.com', code4)).status).toBe(200);

    await login(host, 'guess5@example.com', nextIp());
    const code5 = latestCode(host, 'guess5@example.com');
    for (let i = 0; i < 5; i++) expectError(await verify(host, 'guess5@example.com', wrongCode(code5)), 401, 'OTP_INVALID');
    expectError(await verify(host, 'guess5@example.com', code5), 401, 'OTP_ATTEMPTS_EXCEEDED');
  });

  test('parallel wrong guesses cannot exceed the cap', async () => {
    await login(host, 'burst@example.com', nextIp());
    const code = latestCode(host, 'burst@example.com');
    await Promise.all(Array.from({ length: 12 }, () => verify(host, 'burst@example.com', wrongCode(code))));
    expectError(await verify(host, 'burst@example.com', code), 401, 'OTP_ATTEMPTS_EXCEEDED');
  });

  test('a new code replaces the old one', async () => {
    jest.useFakeTimers(FAKE_DATE_ONLY);
    jest.setSystemTime(new Date('2031-07-01T09:00:00Z'));
    await login(host, 'replace@example.com', nextIp());
    const first = latestCode(host, 'replace@example.com');
    advanceClock(61_000);
    await login(host, 'replace@example.com', nextIp());
    const second = latestCode(host, 'replace@example.com');
    // A fresh code from the CSPRNG repeats the old one once in a million sends; re-sending the old
    // code is the regression this guards against, so equal codes fail the test.
    expect(second).not.toBe(first);
    expectError(await verify(host, 'replace@example.com', first), 401, 'OTP_INVALID');
    expect((await verify(host, 'replace@example.com', second)).status).toBe(200);
  });

  test('an unknown address or one without a pending code gets 401, never 500', async () => {
    expectError(await verify(host, 'never-asked@example.com', '123456'), 401, 'OTP_INVALID');
  });

  test('refuses malformed bodies with 400', async () => {
    expectError(await call(host, 'POST', '/auth/verify', { raw: 'nope' }), 400, 'INVALID_JSON');
    expectError(await call(host, 'POST', '/auth/verify', { body: { email: 'a@example.com', code: 123456 } }), 400, 'VALIDATION_FAILED');
    expectError(await call(host, 'POST', '/auth/verify', { body: { email: 'a@example.com', code: '12ab56' } }), 400, 'VALIDATION_FAILED');
    expectError(await call(host, 'POST', '/auth/verify', { body: { email: 'a@example.com' } }), 400, 'VALIDATION_FAILED');
  });

  test('an inactive user gets a code but cannot sign in (403)', async () => {
    const user = await signInFrom(host, 'dormant@example.com', nextIp());
    const patched = await call(host, 'PATCH', `/admin/users/${user.user.id}`, { token: admin.accessToken, body: { status: 'inactive' } });
    expect(patched.status).toBe(200);
    expect((await login(host, 'dormant@example.com', nextIp())).status).toBe(200);
    expectError(await verify(host, 'dormant@example.com', latestCode(host, 'dormant@example.com')), 403, 'ACCOUNT_INACTIVE');
  });
});

test('the audit trail records logins and verifications with reasons, and never a code', async () => {
  const email = 'audited@example.com';
  await login(host, email, '127.0.113.50');
  const code = latestCode(host, email);
  await verify(host, email, wrongCode(code));
  const ok = await verify(host, email, code);
  const entries = await auditEntries(host, admin.accessToken, { target: email });
  expect(entries.map((e) => [e.action, e.result, e.reason])).toEqual([
    ['auth.verify', 'failure', 'code_wrong'],
    ['auth.login', 'success', null],
  ]);
  expect(entries[1]).toMatchObject({
    actor: { type: 'anonymous', id: null },
    ip: '127.0.113.50',
    requestId: expect.any(String),
    timestamp: expect.any(String),
  });
  const mine = await auditEntries(host, admin.accessToken, { actor: ok.body.user.id });
  expect(mine.map((e) => e.action)).toEqual(['auth.verify', 'user.signup']);
  const all = JSON.stringify(await auditEntries(host, admin.accessToken, { limit: '100' }));
  expect(all).not.toContain(code);
  expect(all).not.toContain(ok.body.refreshToken);
});
