import { SETTINGS } from '../../functions/settings';
import { createHmac } from 'node:crypto';
import { describeWithTsql, expectValidTsql, recordAzureSql } from '../helpers/tsql';
import { generateSigningJwk } from '../../shared/auth/keys';
import { useProcessSettings } from '../../shared/config';
import { createLogger } from '../../shared/logging';
import { currentPlatform } from '../../shared/platform';

/**
 * Every identity query compiled for Azure SQL and parsed as T-SQL. The driver records each query and
 * answers rows that lead the domain code down its successful path to the end: one placeholder row,
 * except where that row would stop the path early (an address already taken, an unknown role, a
 * code that does not match). Every operation must finish: none of their errors is swallowed, and
 * each names the statements it must have compiled, so a path that stops early fails the test.
 */
const OTP_HMAC_KEY = 'y'.repeat(40);
const now = new Date();
const placeholderRow = {
  id: 'u1',
  email: 'a@example.com',
  role: 'user',
  permissions: '[]',
  plan: 'free',
  status: 'active',
  created_at: now,
  updated_at: now,
  description: 'd',
  rank: 0,
  // The code '123456' sent to a@example.com, hashed as identity stores it (an HMAC of address and code).
  code_hash: createHmac('sha256', OTP_HMAC_KEY).update('a@example.com\n123456').digest('hex'),
  attempts: 1,
  expires_at: new Date(now.getTime() + 60_000),
  used_at: null,
  token_hash: 'h',
  session_id: 's1',
  user_id: 'u1',
  rotated_at: null,
  revoked_at: null,
  session_expires_at: new Date(now.getTime() + 60_000),
  count: 1,
  total: 1,
  active: 1,
  stale: 0,
  entries: 1,
  oldest: now,
  last_sign_in: now,
};
const ROLES = [
  { id: 'user', description: 'Signed-in user', permissions: '[]', rank: 0 },
  { id: 'admin', description: 'Administrator', permissions: '["admin:users:read"]', rank: 1 },
  { id: 'super_admin', description: 'Super administrator', permissions: '["*"]', rank: 2 },
];
const { statements: compiled, db: azureSql } = recordAzureSql((query) => {
  if (/^select \* from "identity_roles"/.test(query.sql)) return ROLES;
  // The address a user is being moved to is free.
  if (/^select .* from "users" where "email" = @1/.test(query.sql) && query.parameters[0] === 'b@example.com') return [];
  return [placeholderRow];
});

beforeAll(async () => {
  useProcessSettings(
    {
      SERVICES: 'identity',
      JWT_SIGNING_KEYS: JSON.stringify([await generateSigningJwk()]),
      SERVICE_TOKEN_SECRET: 'x'.repeat(40),
      OTP_HMAC_KEY,
    },
    { settings: SETTINGS },
  );
});
beforeEach(() => {
  compiled.length = 0;
});

const meta = { ip: '203.0.113.1', userAgent: 'jest', requestId: 'r1' };
const admin = {
  actor: { type: 'admin' as const, id: 'a1' },
  user: {
    id: 'a1',
    email: 'boss@example.com',
    role: 'super_admin',
    permissions: ['admin:roles:grant-privileged'],
    explicitPermissions: [],
    plan: 'free' as const,
    status: 'active' as const,
    createdAt: null,
    updatedAt: null,
  },
};
const id = () => require('../../functions/identity/users');
/** identity's context on the test's platform, its database the recording one (required after the mock, as the code under test). */
const ctx = () => {
  const { identityContext } = require('../../functions/identity/context') as typeof import('../../functions/identity/context');
  return Object.defineProperty(identityContext(currentPlatform(), createLogger({ component: 'test' })), 'db', { value: azureSql });
};

const operations: [string, string[], () => Promise<unknown>][] = [
  [
    'list users with every filter',
    ['select', 'select', 'select'],
    () => id().listUsers(ctx(), { email: "o'neil_100%[x]", role: 'user', plan: 'pro', status: 'active', limit: 20, offset: 40 }),
  ],
  [
    'list audit with every filter',
    ['select', 'select'],
    () =>
      require('../../functions/identity/audit').listAudit(ctx(), {
        actor: 'a',
        action: 'auth.login',
        target: 't',
        result: 'failure',
        since: now.toISOString(),
        until: now.toISOString(),
        limit: 10,
        offset: 5,
      }),
  ],
  [
    'list sessions',
    ['select', 'select'],
    () => require('../../functions/identity/sessions').listSessions(ctx(), { userId: 'u1', state: 'active', limit: 10, offset: 0 }),
  ],
  [
    'compliance report',
    ['select', 'select', 'select', 'select', 'select', 'select', 'select'],
    () => require('../../functions/identity/compliance').complianceReport(ctx()),
  ],
  ['cleanup', ['delete', 'delete', 'delete', 'delete'], () => require('../../functions/identity/cleanup').purgeExpired(ctx())],
  [
    'issue and consume a code',
    ['select', 'update', 'update', 'select', 'update'],
    async () => {
      const otp = require('../../functions/identity/otp');
      await otp.resendCooldown(ctx(), 'a@example.com');
      await otp.issueCode(ctx(), 'a@example.com');
      await otp.consumeCode(ctx(), 'a@example.com', '123456');
    },
  ],
  ['rate limit', ['update', 'select'], () => require('../../functions/identity/rate-limit').hitRateLimit(ctx(), 'login-ip:x', 5, 3600)],
  [
    'sessions and refresh rotation',
    ['insert', 'insert', 'select', 'update', 'update', 'insert', 'update'],
    async () => {
      const sessions = require('../../functions/identity/sessions');
      await sessions.createSession(ctx(), 'u1', meta, azureSql);
      await sessions.rotateRefreshToken(ctx(), 'rt_x');
      await sessions.revokeUserSessions(ctx(), 'u1', 'logout');
    },
  ],
  [
    'sign-in completion',
    ['update', 'select', 'update', 'select', 'insert', 'insert', 'insert', 'delete', 'delete'],
    () => require('../../functions/identity/login').completeLogin(ctx(), 'a@example.com', '123456', meta),
  ],
  [
    'plan update',
    ['select', 'update', 'insert'],
    () =>
      require('../../functions/identity/plan').updatePlan(
        ctx(),
        { actor: { type: 'service', id: 'payment-service' }, defaultUpdatedBy: 'payment-service' },
        'u1',
        { plan: 'pro' },
        meta,
      ),
  ],
  [
    'user administration',
    [
      'select',
      'select',
      'update',
      'select',
      'update',
      'insert',
      'select',
      'update',
      'select',
      'update',
      'insert',
      'select',
      'update',
      'delete',
      'delete',
      'insert',
    ],
    async () => {
      const users = require('../../functions/identity/user-admin');
      expect(await users.patchUser(ctx(), admin, 'u1', { plan: 'pro', status: 'inactive', email: 'b@example.com' }, meta)).toMatchObject({ id: 'u1' });
      expect(await users.grantRole(ctx(), admin, 'u1', 'admin', meta)).toMatchObject({ changed: true });
      expect(await users.deleteUser(ctx(), admin, 'u1', meta)).toEqual({ revokedSessions: 1 });
    },
  ],
];

describeWithTsql('identity statements for Azure SQL', (tsql) => {
  test.each(operations)('%s: every statement is valid T-SQL (ScriptDom), of the kinds expected', async (_name, kinds, run) => {
    await run();
    await expectValidTsql(tsql(), compiled, kinds);
  });
});
