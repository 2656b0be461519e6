// The services read the time from their platform's clock, so a test moves time for one host
// without faking the process's Date (which every other host, timer and library in the process
// would see too).
import { startTestHost, type TestHost } from '../helpers/host';
import { latestCode } from '../helpers/identity';
import { call, expectError } from '../identity/support';

let host: TestHost;
let at = Date.parse('2026-11-27T09:00:00Z');
const clock = { now: () => new Date(at) };

beforeAll(async () => {
  host = await startTestHost({ env: { SERVICES: 'identity' }, clock });
});
afterAll(() => host.stop());

const post = (path: string, body: unknown) => call(host, 'POST', path, { body });

test("a sign-in code expires after 10 minutes of the platform's time, whatever the process's Date says", async () => {
  expect((await post('/auth/login', { email: 'clock@example.com' })).status).toBe(200);
  const code = latestCode(host, 'clock@example.com');
  const processTime = Date.now();

  at += 10 * 60_000 + 1000;
  expectError(await post('/auth/verify', { email: 'clock@example.com', code }), 401, 'OTP_EXPIRED');
  // The process's clock did not move: only the platform's did.
  expect(Date.now() - processTime).toBeLessThan(10 * 60_000);

  at -= 2000;
  const verified = await post('/auth/verify', { email: 'clock@example.com', code });
  expect(verified.status).toBe(200);
});

test("a token is issued at the platform's time", async () => {
  at = Date.parse('2026-11-27T10:00:00Z');
  await post('/auth/login', { email: 'stamp@example.com' });
  const verified = await post('/auth/verify', { email: 'stamp@example.com', code: latestCode(host, 'stamp@example.com') });
  expect(verified.status).toBe(200);
  const claims = JSON.parse(Buffer.from((verified.body as { accessToken: string }).accessToken.split('.')[1], 'base64url').toString()) as { iat: number };
  expect(claims.iat).toBe(at / 1000);
});
