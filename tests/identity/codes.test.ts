// One-time codes and rate-limit counters at their edges, on the host's own clock and database: what
// the routes' tests reach only on the happy path (a code that expires before its cooldown ends, two
// instances issuing or consuming one code at once, a counter's second hit in its window).
import { identityContext, type IdentityContext } from '../../functions/identity/context';
import { consumeCode, generateCode, issueCode } from '../../functions/identity/otp';
import { hitRateLimit } from '../../functions/identity/rate-limit';
import { contextOf } from '../helpers/context';
import { startTestHost, type TestHost } from '../helpers/host';
import { expectError, login } from './support';

let host: TestHost;
/** identity's context on the host's platform, as its code is handed it. */
let ctx: IdentityContext;
// The same settings with a code that lives 60 s and a cooldown of 120 s between codes to one address.
let shortLived: TestHost;
let at = Date.parse('2031-08-01T09:00:00Z');
const clock = { now: () => new Date(at) };
const COOLDOWN_MS = 60_000;
const SHORT_TTL_MS = 60_000;
const LONG_COOLDOWN_MS = 120_000;

beforeAll(async () => {
  host = await startTestHost({ clock });
  ctx = contextOf(identityContext, host);
  shortLived = await startTestHost({ env: { OTP_TTL_SECONDS: '60', OTP_RESEND_COOLDOWN_SECONDS: '120' }, clock });
});
afterAll(async () => {
  await shortLived.stop();
  await host.stop();
});

let ip = 0;
const nextIp = () => `127.0.9.${++ip}`;

test('a code is exactly OTP_LENGTH digits, leading zeros kept', () => {
  // 500 two-digit codes: one in ten is below 10, so a code without its zero shows up (odds of none: 1e-23).
  const codes = Array.from({ length: 500 }, () => generateCode(2));
  expect(codes.filter((code) => !/^\d{2}$/.test(code))).toEqual([]);
  expect(codes.some((code) => code.startsWith('0'))).toBe(true);
});

test('a code that expired before its cooldown ended does not hold back a new one: refused until the instant it expires', async () => {
  const email = 'short-lived@example.com';
  expect((await login(shortLived, email, nextIp())).status).toBe(200);
  const sent = at;
  at = sent + SHORT_TTL_MS - 1000;
  const early = await login(shortLived, email, nextIp());
  expectError(early, 429, 'OTP_RESEND_COOLDOWN');
  expect(early.headers.get('retry-after')).toBe(String((LONG_COOLDOWN_MS - SHORT_TTL_MS + 1000) / 1000));
  at = sent + SHORT_TTL_MS;
  expect((await login(shortLived, email, nextIp())).status).toBe(200);
});

test('issuing replaces a live code only once the cooldown is over, by its own condition (two instances past the route check at once)', async () => {
  const email = 'issue-race@example.com';
  const first = await issueCode(ctx, email);
  expect(first).toMatch(/^\d{6}$/);
  const issuedAt = at;
  at = issuedAt + COOLDOWN_MS - 1;
  expect(await issueCode(ctx, email)).toBeUndefined();
  at = issuedAt + COOLDOWN_MS;
  const second = await issueCode(ctx, email);
  expect(second).toMatch(/^\d{6}$/);
  expect(await consumeCode(ctx, email, second!)).toBe('valid');
});

test('two instances consuming one right code at once: one signs in, the other is told the code was used', async () => {
  const email = 'consume-race@example.com';
  const code = (await issueCode(ctx, email))!;
  const results = await Promise.all([consumeCode(ctx, email, code), consumeCode(ctx, email, code)]);
  expect(results.sort()).toEqual(['used', 'valid']);
});

test('a stored hash that is not a hash makes the code wrong, never an error', async () => {
  const email = 'corrupt-hash@example.com';
  const code = (await issueCode(ctx, email))!;
  await ctx.db.updateTable('identity_otp_codes').set({ code_hash: 'abc' }).where('email', '=', email).execute();
  expect(await consumeCode(ctx, email, code)).toBe('wrong');
});

test('a counter counts each hit in its window once, and starts again in the next window', async () => {
  at = Date.parse('2031-08-02T10:00:00Z');
  const hits = [];
  for (let i = 0; i < 3; i++) hits.push(await hitRateLimit(ctx, 'test:counter', 2, 3600));
  expect(hits.map(({ allowed, count, retryAfterSeconds }) => ({ allowed, count, retryAfterSeconds }))).toEqual([
    { allowed: true, count: 1, retryAfterSeconds: 3600 },
    { allowed: true, count: 2, retryAfterSeconds: 3600 },
    { allowed: false, count: 3, retryAfterSeconds: 3600 },
  ]);
  at += 3600_000;
  expect(await hitRateLimit(ctx, 'test:counter', 2, 3600)).toEqual({ allowed: true, count: 1, retryAfterSeconds: 3600 });
});
