import type { ColumnType, Generated } from 'kysely';

/** Timestamps: written as ISO 8601 strings, read as strings (SQLite) or Date (Azure SQL); normalise with toIso. */
export type Timestamp = ColumnType<string | Date, string | undefined, string>;

export interface UsersTable {
  id: string;
  email: string;
  role: string;
  /** JSON array of explicit permissions (on top of the role's). */
  permissions: string;
  plan: 'free' | 'pro' | 'enterprise';
  status: 'active' | 'inactive';
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Request time of the last plan update applied (migration 007): an older one is refused as stale. */
  plan_request_at: Timestamp | null;
}

/** Spec 2.4, column for column. Services that add columns extend this in their own table types. */
export interface ProcessingLogTable {
  id: Generated<number>;
  tracking_id: string;
  step_name: string | null;
  step_number: number | null;
  status: string;
  duration_ms: number | null;
  tokens_used: number | null;
  error_message: string | null;
  metadata: string | null;
  timestamp: Timestamp;
}

/** Columns the workflow logger adds to spec 2.4 (migration 002): the classification of each failure. */
export interface ProcessingLogExtension {
  error_pattern: string | null;
  error_source: string | null;
  error_details: string | null;
}

export interface ExecutionsTable {
  tracking_id: string;
  company_name: string;
  industry_id: string;
  processing_status: 'processing' | 'completed' | 'failed';
  progress_percentage: number;
  health_status: string;
  /** JSON of the submitted request body. */
  submission: string;
  requested_by: string;
  plan: 'free' | 'pro' | 'enterprise';
  current_step: number | null;
  current_step_name: string | null;
  /** How many times a queue message started this execution. */
  attempts: number;
  /** JSON array of stored report files ({ kind, blob, contentType }); links are signed on read. */
  assets: string | null;
  /** Whether the report got its visuals: included, skipped (visual service failed) or null before PDF_ENHANCEMENT. */
  visuals_status: string | null;
  visuals_error: string | null;
  error_message: string | null;
  error_pattern: string | null;
  error_source: string | null;
  error_step: string | null;
  created_at: Timestamp;
  started_at: Timestamp | null;
  completed_at: Timestamp | null;
  updated_at: Timestamp;
  duration_ms: number | null;
}

/** Reports a user requested in one calendar month (UTC), against their plan's quota (migration 008). */
export interface ReportQuotaTable {
  user_id: string;
  /** YYYY-MM, UTC. */
  month: string;
  reports: number;
}

/** Tables of migrations 001-002 and 008. Each service adds its own with `db().withTables<...>()`. */
export interface PlatformTables {
  users: UsersTable;
  orchestrator_processing_log: ProcessingLogTable & ProcessingLogExtension;
  orchestrator_executions: ExecutionsTable;
  orchestrator_report_quota: ReportQuotaTable;
}
