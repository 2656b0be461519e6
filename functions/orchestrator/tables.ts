import type { Generated } from 'kysely';
import type { Timestamp } from '../../shared/sql/tables';

/**
 * The workflow's processing log, whose ten columns are a published contract (other tools read the
 * table): one row per step of an execution (tracking id, step name and number, status, duration,
 * tokens, error, metadata; id and timestamp filled by the database).
 */
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

/** Columns the workflow logger adds to the processing log (migration 002): the classification of each failure. */
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

/** The orchestrator's tables (migrations 001, 002 and 008). */
export type OrchestratorTables = {
  orchestrator_processing_log: ProcessingLogTable & ProcessingLogExtension;
  orchestrator_executions: ExecutionsTable;
  orchestrator_report_quota: ReportQuotaTable;
};
