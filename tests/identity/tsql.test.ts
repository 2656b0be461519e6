import { expectValidTsql, recordAzureSql } from '../helpers/tsql';
import { generateSigningJwk } from '../../shared/auth/keys';
import { useProcessSettings } from '../../shared/config';

/**
 * Every identity query compiled for Azure SQL and parsed as T-SQL. The driver records each query and
 * answers one placeholder row so the domain code goes on to its next statement.
 */
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
  code_hash: '00',
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
const { statements: compiled, db: azureSql } = recordAzureSql(placeholderRow);

beforeAll(async () => {
  useProcessSettings({
    SERVICES: 'identity',
    JWT_SIGNING_KEYS: JSON.stringify([await generateSigningJwk()]),
    SERVICE_TOKEN_SECRET: 'x'.repeat(40),
    OTP_HMAC_KEY: 'y'.repeat(40),
  });
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

const operations: [string, () => Promise<unknown>][] = [
  ['list users with every filter', () => id().listUsers({ email: "o'neil_100%[x]", role: 'user', plan: 'pro', status: 'active', limit: 20, offset: 40 })],
  [
    'list audit with every filter',
    () =>
      require('../../functions/identity/audit').listAudit({
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
  ['list sessions', () => require('../../functions/identity/sessions').listSessions({ userId: 'u1', state: 'active', limit: 10, offset: 0 })],
  ['compliance report', () => require('../../functions/identity/compliance').complianceReport()],
  ['cleanup', () => require('../../functions/identity/cleanup').purgeExpired()],
  [
    'issue and consume a code',
    async () => {
      const otp = require('../../functions/identity/otp');
      await otp.resendCooldown('a@example.com');
      await otp.issueCode('a@example.com');
      await otp.consumeCode('a@example.com', '123456');
    },
  ],
  ['rate limit', () => require('../../functions/identity/rate-limit').hitRateLimit('login-ip:x', 5, 3600)],
  [
    'sessions and refresh rotation',
    async () => {
      const sessions = require('../../functions/identity/sessions');
      await sessions.createSession('u1', meta, azureSql);
      await sessions.rotateRefreshToken('rt_x');
      await sessions.revokeUserSessions('u1', 'logout');
    },
  ],
  [
    'sign-in completion',
    () =>
      require('../../functions/identity/login')
        .completeLogin('a@example.com', '123456', meta)
        .catch(() => undefined),
  ],
  [
    'plan update',
    () =>
      require('../../functions/identity/plan').updatePlan(
        { actor: { type: 'service', id: 'payment-service' }, defaultUpdatedBy: 'payment-service' },
        'u1',
        { plan: 'pro' },
        meta,
      ),
  ],
  [
    'user administration',
    async () => {
      const users = require('../../functions/identity/user-admin');
      await users.patchUser(admin, 'u1', { plan: 'pro', status: 'inactive', email: 'b@example.com' }, meta).catch(() => undefined);
      await users.deleteUser(admin, 'u1', meta).catch(() => undefined);
      await users.grantRole(admin, 'u1', 'admin', meta).catch(() => undefined);
    },
  ],
];

test.each(operations)('%s: every statement is valid T-SQL, never LIMIT', async (_name, run) => {
  await run().catch(() => undefined);
  expectValidTsql(compiled);
});
