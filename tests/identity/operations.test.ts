import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { identity } from '../../functions/identity';
import type { TimerFunction } from '../../shared/functions';
import { startTestHost, type TestHost } from '../helpers/host';
import { signIn, signInAdmin } from '../helpers/identity';
import { identityContext } from '../../functions/identity/context';
import { contextOf } from '../helpers/context';
import { toIso } from '../../shared/sql/dialect';
import { loggedAtInfo } from '../helpers/logs';
import { advanceClock, auditEntries, call, expectError, login } from './support';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../tools/cli');

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host.stop());
afterEach(() => jest.useRealTimers());
/** The host's database, as identity's code reads it. */
const hostDb = () => contextOf(identityContext, host).db;

/** Runs a CLI from the host's directory (its local.settings.json) against the host's database. */
const cli = (name: string, args: string[]) =>
  run('node', [path.join(CLI, `${name}.js`), ...args], { cwd: host.dir, env: { ...process.env, DATA_DIR: host.dataDir } });

test('users CLI creates, then changes the role of, a user', async () => {
  const created = await cli('users', ['create', '--email', 'Ops@CLI.example', '--role', 'admin']);
  expect(JSON.parse(created.stdout)).toMatchObject({ outcome: 'created', email: 'ops@cli.example', role: 'admin' });
  const ops = await signIn(host, 'ops@cli.example');
  expect(ops.user.role).toBe('admin');
  expect((await call(host, 'GET', '/admin/users', { token: ops.accessToken })).status).toBe(200);
  const demoted = await cli('users', ['create', '--email', 'ops@cli.example', '--role', 'user']);
  expect(JSON.parse(demoted.stdout)).toMatchObject({ outcome: 'promoted', role: 'user' });
  expectError(await call(host, 'GET', '/admin/users', { token: ops.accessToken }), 401, 'AUTH_SESSION_REVOKED');
  await expect(cli('users', ['create', '--email', 'x@cli.example', '--role', 'wizard'])).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringContaining('role wizard does not exist'),
  });
  await expect(cli('users', ['create'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('usage') });
});

test('service-token CLI mints a token the plan endpoint accepts', async () => {
  const { stdout } = await cli('service-token', []);
  const token = stdout.trim();
  expect(token.split('.')).toHaveLength(3);
  const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
  expect(payload).toMatchObject({
    iss: 'payment-service',
    aud: 'identity-service',
    sub: 'admin',
    role: 'service_admin',
    permissions: ['admin:users:update', 'admin:users:read'],
  });
  expect(payload.exp - payload.iat).toBe(365 * 24 * 3600);
  const user = await signIn(host, 'buyer@cli.example');
  const res = await call(host, 'PUT', `/admin/users/${user.user.id}/plan`, {
    headers: { authorization: `Bearer ${token}`, 'x-service': 'payment-service' },
    body: { plan: 'pro' },
  });
  expect(res.status).toBe(200);
});

test('the dev host banner names the outbox', () => {
  expect(identity.describe!(host.platform)).toEqual([`email        outbox ${path.join(host.dataDir, 'outbox')} (one .eml per message)`]);
});

test('the bootstrap admin is super_admin from its first sign-in (put in place by it, not at start-up)', async () => {
  const admin = await signInAdmin(host);
  expect(admin.user).toMatchObject({ email: 'admin@example.com', role: 'super_admin', status: 'active' });
});

test('the daily cleanup purges expired codes and refresh tokens', async () => {
  await login(host, 'expiring@cli.example');
  const idle = await signIn(host, 'idle@cli.example');
  const cleanup = identity.functions.find((f): f is TimerFunction => f.kind === 'timer' && f.name === 'identity-cleanup')!;
  // Daily, not hourly: an hourly run would keep a serverless database from ever pausing.
  expect(cleanup.schedule).toBe('0 17 3 * * *');
  advanceClock(15 * 24 * 3600_000);
  const verifyExpiring = () => call(host, 'POST', '/auth/verify', { body: { email: 'expiring@cli.example', code: '123456' } });
  expectError(await verifyExpiring(), 401, 'OTP_EXPIRED');
  expectError(await call(host, 'POST', '/auth/refresh', { body: { refreshToken: idle.refreshToken } }), 401, 'REFRESH_TOKEN_EXPIRED');
  await cleanup.handler({} as never, {} as never);
  // The rows are gone: the same requests now find nothing at all.
  expectError(await verifyExpiring(), 401, 'OTP_INVALID');
  expectError(await call(host, 'POST', '/auth/refresh', { body: { refreshToken: idle.refreshToken } }), 401, 'REFRESH_TOKEN_INVALID');
});

test('the cleanup forgets a refresh token when its session ends, not when its own idle time would', async () => {
  const cleanup = identity.functions.find((f): f is TimerFunction => f.kind === 'timer' && f.name === 'identity-cleanup')!;
  const DAY = 24 * 3600_000;
  const refresh = (refreshToken: string) => call(host, 'POST', '/auth/refresh', { body: { refreshToken } });
  // A session of 30 days refreshed on day 10 and day 20: the last token would idle until day 34.
  const user = await signIn(host, 'last-token@cli.example');
  advanceClock(10 * DAY);
  const day10 = await refresh(user.refreshToken);
  advanceClock(10 * DAY);
  const day20 = await refresh(day10.body.refreshToken);
  expect(day20.status).toBe(200);
  advanceClock(11 * DAY);
  expectError(await refresh(day20.body.refreshToken), 401, 'REFRESH_TOKEN_EXPIRED');
  await cleanup.handler({} as never, {} as never);
  // On day 31 the row is gone with its session: the token is now unknown.
  expectError(await refresh(day20.body.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
});

test('the daily cleanup purges audit entries past AUDIT_RETENTION_DAYS and past rate-limit windows, keeping the rest', async () => {
  const cleanup = identity.functions.find((f): f is TimerFunction => f.kind === 'timer' && f.name === 'identity-cleanup')!;
  const DAY = 24 * 3600_000;
  const retentionDays = host.platform.config.AUDIT_RETENTION_DAYS;
  // Day 0: an audited change. Day 2: another. Sign-ins count in rate-limit windows as they go.
  let admin = await signInAdmin(host);
  const old = await call(host, 'POST', '/admin/users', { token: admin.accessToken, body: { email: 'retention-old@cli.example' } });
  expect(old.status).toBe(201);
  advanceClock(2 * DAY);
  admin = await signInAdmin(host);
  const recent = await call(host, 'POST', '/admin/users', { token: admin.accessToken, body: { email: 'retention-recent@cli.example' } });
  expect(recent.status).toBe(201);

  // Day retention + 1: the first change is a day past retention, the second a day within it.
  advanceClock((retentionDays - 1) * DAY);
  admin = await signInAdmin(host);
  const nowIso = new Date().toISOString();
  const windows = async () => {
    const rows = (await hostDb().selectFrom('identity_rate_limits').select(['bucket', 'expires_at']).execute()).map((r) => ({
      bucket: r.bucket,
      expiresAt: toIso(r.expires_at)!,
    }));
    return {
      past: rows.filter((r) => r.expiresAt < nowIso).length,
      live: rows
        .filter((r) => r.expiresAt >= nowIso)
        .map((r) => r.bucket)
        .sort(),
    };
  };
  const before = await windows();
  expect(before.past).toBeGreaterThan(0);
  expect(before.live.length).toBeGreaterThan(0); // the sign-in just now
  expect(await auditEntries(host, admin.accessToken, { target: old.body.user.id, action: 'user.create' })).toHaveLength(1);

  const rowsBefore = await rowCounts();
  const lines = await loggedAtInfo(host, () => cleanup.handler({} as never, {} as never));
  const rowsAfter = await rowCounts();
  // One line says how many rows of each kind went: what the tables lost.
  const deleted = Object.fromEntries(Object.entries(rowsBefore).map(([kind, count]) => [kind, count - rowsAfter[kind]]));
  expect(
    lines
      .filter((line) => line.function === 'identity-cleanup' && line.msg === 'purged expired identity rows')
      .map(({ level, msg, otpCodes, rateLimits, refreshTokens, auditEntries }) => ({ level, msg, otpCodes, rateLimits, refreshTokens, auditEntries })),
  ).toEqual([{ level: 'info', msg: 'purged expired identity rows', ...deleted }]);
  // The same run records the paid periods that ended (none here).
  expect(lines.filter((line) => line.function === 'identity-cleanup' && line.msg === 'ended paid periods recorded')).toMatchObject([{ expired: 0 }]);
  expect(deleted).toMatchObject({ rateLimits: before.past, auditEntries: expect.any(Number) });
  expect(deleted.auditEntries).toBeGreaterThan(0);

  expect(await auditEntries(host, admin.accessToken, { target: old.body.user.id })).toEqual([]);
  expect(await auditEntries(host, admin.accessToken, { target: recent.body.user.id, action: 'user.create' })).toHaveLength(1);
  expect(await windows()).toEqual({ past: 0, live: before.live });
});

/** Rows in each table the cleanup purges, named as its log line names them. */
async function rowCounts(): Promise<Record<string, number>> {
  const tables = {
    otpCodes: 'identity_otp_codes',
    rateLimits: 'identity_rate_limits',
    refreshTokens: 'identity_refresh_tokens',
    auditEntries: 'identity_audit_log',
  } as const;
  const counts: Record<string, number> = {};
  for (const [kind, table] of Object.entries(tables)) {
    const [{ rows }] = await hostDb()
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('rows'))
      .execute();
    counts[kind] = Number(rows);
  }
  return counts;
}
