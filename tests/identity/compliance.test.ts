import { startTestHost, type TestHost } from '../helpers/host';
import { signIn, signInAdmin } from '../helpers/identity';
import { advanceClock, call, setClock } from './support';

// What an auditor reads in GET /admin/compliance, value by value, on the settings' defaults and on
// settings that break the policy. The admin routes' own test checks the report's shape and counts.

const DAY = 24 * 3600_000;

const report = async (host: TestHost) => {
  const res = await call(host, 'GET', '/admin/compliance', { token: (await signInAdmin(host)).accessToken });
  expect(res.status).toBe(200);
  return res.body;
};

describe('on the defaults', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host.stop());
  afterEach(() => jest.useRealTimers());

  test('the one-time-code policy against NIST SP 800-63B, each requirement with what is expected and what is set', async () => {
    const r = await report(host);
    expect(r.otpPolicy).toEqual({
      codeLength: 6,
      ttlSeconds: 600,
      maxAttemptsPerCode: 5,
      resendCooldownSeconds: 60,
      perEmailLimit: { max: 5, perClient: true, windowSeconds: 3600 },
      perEmailTotalLimit: { max: 20, windowSeconds: 3600 },
      perIpLimit: { max: 100, windowSeconds: 3600 },
      nist80063b: [
        {
          requirement: 'Secret from an approved random generator with about 20 bits of entropy: at least six decimal digits (5.1.3.2; 63B-4 3.1.3.1)',
          expected: '>= 6 digits',
          actual: '6 digits, 19.9 bits, CSPRNG',
          compliant: true,
        },
        { requirement: 'Out-of-band secret valid for at most 10 minutes (5.1.3.2)', expected: '<= 600 s', actual: '600 s', compliant: true },
        { requirement: 'Secret usable once (5.1.3.2)', expected: 'single use', actual: 'consumed atomically (used_at IS NULL)', compliant: true },
        {
          requirement: 'Limit consecutive failed attempts to 100 or fewer per account (5.2.2)',
          expected: '<= 100',
          actual: '5 per code, at most 25 per 3600 s',
          compliant: true,
        },
        {
          requirement: 'Verifier stores secrets protected against offline attack (5.1.3.2, 5.2.7)',
          expected: 'keyed hash',
          actual: 'HMAC-SHA256 under OTP_HMAC_KEY, constant-time compare',
          compliant: true,
        },
        {
          requirement: 'Email is not an approved out-of-band channel for AAL2 (5.1.3.1)',
          expected: 'AAL1 only',
          actual: 'email codes: single-factor, AAL1',
          compliant: true,
        },
      ],
      compliant: true,
    });
    expect(r.tokens).toMatchObject({
      accessTokenTtlSeconds: 900,
      refreshTokenIdleTtlSeconds: 1_209_600,
      sessionMaxAgeSeconds: 2_592_000,
      refreshReuseGraceSeconds: 10,
      algorithms: ['ES256'],
      keyMaxAgeDays: 180,
    });
    expect(r.sessions.maxAgeSeconds).toBe(2_592_000);
  });

  test('the oldest audit entry is the first one written, and the log is within retention until that entry is older than AUDIT_RETENTION_DAYS', async () => {
    const first = await report(host);
    const admin = await signInAdmin(host);
    const total = (await call(host, 'GET', '/admin/audit?limit=1', { token: admin.accessToken })).body.total as number;
    const oldest = (await call(host, 'GET', `/admin/audit?limit=1&offset=${total - 1}`, { token: admin.accessToken })).body.entries[0];
    expect(first.audit).toMatchObject({ retentionDays: 400, oldestEntryAt: oldest.timestamp, withinRetention: true });
    // No cleanup runs here: the entry is within retention until the instant it is 400 days old, and past it after.
    setClock(Date.parse(oldest.timestamp) + 400 * DAY);
    expect((await report(host)).audit).toMatchObject({ oldestEntryAt: oldest.timestamp, withinRetention: true });
    advanceClock(1);
    expect((await report(host)).audit).toMatchObject({ oldestEntryAt: oldest.timestamp, withinRetention: false });
  });

  test('sessions count as older than the policy only past the maximum age', async () => {
    await signIn(host, 'hour-old@example.com');
    advanceClock(3600_000);
    expect((await report(host)).sessions.olderThanPolicy).toBe(0);
  });

  test("a signing key's rotation is due the day after it reaches SIGNING_KEY_MAX_AGE_DAYS, not on that day", async () => {
    const [key] = (await report(host)).tokens.signingKeys;
    expect(key).toMatchObject({ signing: true, ageDays: 0, rotationDue: false });
    // Kids carry their creation date: move to 180 whole days after it, then one more.
    setClock(Date.parse(key.createdAt) + 180 * DAY);
    expect((await report(host)).tokens.signingKeys[0]).toMatchObject({ kid: key.kid, ageDays: 180, rotationDue: false });
    advanceClock(DAY);
    expect((await report(host)).tokens.signingKeys[0]).toMatchObject({ kid: key.kid, ageDays: 181, rotationDue: true });
  });
});

describe('failed attempts per account against the limit of 100', () => {
  // Five tries per code, so 20 codes a window is exactly 100 failures (allowed) and 21 is 105.
  test.each([
    ['20', '5 per code, at most 100 per 3600 s', true],
    ['21', '5 per code, at most 105 per 3600 s', false],
  ])('LOGIN_MAX_PER_EMAIL=%s: %s, compliant %s', async (perEmail, actual, compliant) => {
    const host = await startTestHost({ env: { LOGIN_MAX_PER_EMAIL: perEmail } });
    try {
      const { otpPolicy } = await report(host);
      expect(otpPolicy.nist80063b.find((c: any) => c.expected === '<= 100')).toMatchObject({ actual, compliant });
      expect(otpPolicy.compliant).toBe(compliant);
    } finally {
      await host.stop();
    }
  });
});

describe('dormant admins', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host.stop());
  afterEach(() => jest.useRealTimers());

  test('an active admin is dormant once its last sign-in, or its creation if it never signed in, is more than ADMIN_INACTIVITY_DAYS old', async () => {
    // The clock stands still: everything up to the first advance happens at one instant.
    advanceClock(0);
    const superAdmin = await signInAdmin(host);
    const create = async (email: string): Promise<string> => {
      const res = await call(host, 'POST', '/admin/users', { token: superAdmin.accessToken, body: { email, role: 'admin' } });
      expect(res.status).toBe(201);
      return res.body.user.id;
    };
    await create('never-signed-in@example.com');
    await create('signed-in@example.com');
    await signIn(host, 'signed-in@example.com');
    // A deactivated admin cannot sign in, so it is not a dormant account to review.
    const deactivated = await create('deactivated@example.com');
    expect((await call(host, 'PATCH', `/admin/users/${deactivated}`, { token: superAdmin.accessToken, body: { status: 'inactive' } })).status).toBe(200);
    const dormant = async () => (await report(host)).admins.inactive.map((a: { email: string }) => a.email).sort();

    advanceClock(90 * DAY);
    expect(await dormant()).toEqual([]);
    advanceClock(1);
    expect(await dormant()).toEqual(['never-signed-in@example.com', 'signed-in@example.com']);
    await signIn(host, 'signed-in@example.com');
    expect(await dormant()).toEqual(['never-signed-in@example.com']);
  });
});
