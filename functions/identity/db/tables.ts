import type { Generated } from 'kysely';
import type { Plan, PlanSource } from '../../../shared/plan-ids';
import type { Timestamp } from '../../../shared/sql/tables';

/**
 * Users. Identity owns this table: it is the only service that reads or writes it; the others
 * learn a user's role, plan and status from identity (access tokens, the live-session check).
 */
export interface UsersTable {
  id: string;
  email: string;
  role: string;
  /** JSON array of explicit permissions (on top of the role's). */
  permissions: string;
  plan: Plan;
  status: 'active' | 'inactive';
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Request time of the last plan update applied (migration 007): an older one is refused as stale. */
  plan_request_at: Timestamp | null;
  /** When the paid period ends (migration 014): past it the user is on free; null is no end (a manual grant). */
  plan_period_end: Timestamp | null;
  /** Where the plan comes from: a subscription, a one-off purchase of one period, or a manual grant. */
  plan_source: PlanSource | null;
}

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

/** Identity's tables (migrations 001, 003 and 007). */
export type IdentityTables = {
  users: UsersTable;
  identity_roles: RolesTable;
  identity_otp_codes: OtpCodesTable;
  identity_sessions: SessionsTable;
  identity_refresh_tokens: RefreshTokensTable;
  identity_rate_limits: RateLimitsTable;
  identity_audit_log: AuditLogTable;
};
