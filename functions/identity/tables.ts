import type { Generated, Kysely } from 'kysely';
import { db } from '../../shared/sql/db';
import type { PlatformTables, Timestamp } from '../../shared/sql/tables';

export interface RolesTable {
  id: string;
  description: string;
  /** JSON array of permission names. */
  permissions: string;
  /** Privilege order: granting or removing a role ranked above `user` needs admin:roles:grant-privileged. */
  rank: number;
  created_at: Timestamp;
}

export interface OtpCodesTable {
  email: string;
  /** HMAC-SHA256 (OTP_HMAC_KEY) of email and code, hex. */
  code_hash: string;
  attempts: number;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: Timestamp;
  last_refreshed_at: Timestamp | null;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  revoked_reason: string | null;
  ip: string | null;
  user_agent: string | null;
}

export interface RefreshTokensTable {
  /** SHA-256 of the opaque token, hex; the token itself is never stored. */
  token_hash: string;
  session_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  rotated_at: Timestamp | null;
}

export interface RateLimitsTable {
  bucket: string;
  count: number;
  expires_at: Timestamp;
}

export interface AuditLogTable {
  id: Generated<number>;
  timestamp: Timestamp;
  actor_type: ActorType;
  actor_id: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  result: 'success' | 'failure';
  reason: string | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  details: string | null;
}

export type ActorType = 'anonymous' | 'user' | 'admin' | 'service' | 'system';

export type IdentityOwnTables = {
  identity_roles: RolesTable;
  identity_otp_codes: OtpCodesTable;
  identity_sessions: SessionsTable;
  identity_refresh_tokens: RefreshTokensTable;
  identity_rate_limits: RateLimitsTable;
  identity_audit_log: AuditLogTable;
};

export type IdentityTables = PlatformTables & IdentityOwnTables;

export const identityDb = (): Kysely<IdentityTables> => db().withTables<IdentityOwnTables>();
