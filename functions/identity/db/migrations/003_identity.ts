import { type AnyKysely, checkIn, columnTypes } from '../../../../shared/sql/dialect';

const ADMIN_PERMISSIONS = [
  'admin:users:read',
  'admin:users:create',
  'admin:users:update',
  'admin:users:delete',
  'admin:roles:read',
  'admin:roles:grant',
  'admin:audit:read',
  'admin:sessions:read',
  'admin:sessions:revoke',
  'admin:compliance:read',
];

/** The roles as first shipped; later changes to role permissions belong in later migrations. */
const ROLE_SEED = [
  { id: 'user', rank: 0, description: 'A signed-in customer', permissions: ['reports:create', 'reports:read', 'payments:create'] },
  {
    id: 'admin',
    rank: 50,
    description: 'Manages users, sessions and plans; reads the audit log',
    permissions: ['reports:create', 'reports:read', 'payments:create', ...ADMIN_PERMISSIONS],
  },
  {
    id: 'super_admin',
    rank: 100,
    description: 'Everything an admin does, and grants the admin and super_admin roles',
    permissions: ['reports:create', 'reports:read', 'payments:create', ...ADMIN_PERMISSIONS, 'admin:roles:grant-privileged'],
  },
];

/**
 * Identity: roles and their permission sets, one pending sign-in code per address, sessions with
 * their refresh-token family, fixed-window rate-limit counters and the audit log. All state that
 * must hold across instances (attempts, single use, caps, rotation) lives here.
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('identity_roles')
    .addColumn('id', t.varchar(32), (c) => c.primaryKey())
    .addColumn('description', t.varchar(200), (c) => c.notNull())
    .addColumn('permissions', t.text, (c) => c.notNull())
    .addColumn('rank', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull().defaultTo(t.now))
    .execute();
  await db
    .insertInto('identity_roles')
    .values(ROLE_SEED.map((r) => ({ id: r.id, description: r.description, permissions: JSON.stringify(r.permissions), rank: r.rank })))
    .execute();

  await db.schema
    .createTable('identity_otp_codes')
    .addColumn('email', t.varchar(320), (c) => c.primaryKey())
    .addColumn('code_hash', t.varchar(64), (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('used_at', t.timestamp)
    .execute();
  await db.schema.createIndex('ix_identity_otp_expires').on('identity_otp_codes').column('expires_at').execute();

  await db.schema
    .createTable('identity_sessions')
    .addColumn('id', t.varchar(64), (c) => c.primaryKey())
    .addColumn('user_id', t.varchar(64), (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_refreshed_at', t.timestamp)
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('revoked_at', t.timestamp)
    .addColumn('revoked_reason', t.varchar(64))
    .addColumn('ip', t.varchar(64))
    .addColumn('user_agent', t.varchar(400))
    .execute();
  await db.schema.createIndex('ix_identity_sessions_user').on('identity_sessions').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('ix_identity_sessions_created').on('identity_sessions').column('created_at').execute();

  await db.schema
    .createTable('identity_refresh_tokens')
    .addColumn('token_hash', t.varchar(64), (c) => c.primaryKey())
    .addColumn('session_id', t.varchar(64), (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('rotated_at', t.timestamp)
    .execute();
  await db.schema.createIndex('ix_identity_refresh_session').on('identity_refresh_tokens').column('session_id').execute();

  await db.schema
    .createTable('identity_rate_limits')
    .addColumn('bucket', t.varchar(200), (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ix_identity_rate_limits_expires').on('identity_rate_limits').column('expires_at').execute();

  await db.schema
    .createTable('identity_audit_log')
    .addColumn('id', 'integer', (c) => t.serialKey(c))
    .addColumn('timestamp', t.timestamp, (c) => c.notNull())
    .addColumn('actor_type', t.varchar(16), (c) => c.notNull().check(checkIn('actor_type', ['anonymous', 'user', 'admin', 'service', 'system'])))
    .addColumn('actor_id', t.varchar(320))
    .addColumn('action', t.varchar(64), (c) => c.notNull())
    .addColumn('target_type', t.varchar(32))
    .addColumn('target_id', t.varchar(320))
    .addColumn('result', t.varchar(16), (c) => c.notNull().check(checkIn('result', ['success', 'failure'])))
    .addColumn('reason', t.varchar(200))
    .addColumn('ip', t.varchar(64))
    .addColumn('user_agent', t.varchar(400))
    .addColumn('request_id', t.varchar(100))
    .addColumn('details', t.text)
    .execute();
  await db.schema.createIndex('ix_identity_audit_time').on('identity_audit_log').column('timestamp').execute();
  await db.schema.createIndex('ix_identity_audit_actor').on('identity_audit_log').columns(['actor_id', 'id']).execute();
  await db.schema.createIndex('ix_identity_audit_action').on('identity_audit_log').columns(['action', 'id']).execute();
  await db.schema.createIndex('ix_identity_audit_target').on('identity_audit_log').columns(['target_id', 'id']).execute();

  await db.schema.createIndex('ix_users_role').on('users').column('role').execute();
}
