import type { Plan } from '../../../shared/plan-ids';
import type { Generated, Insertable } from 'kysely';
import type { Timestamp } from '../../../shared/sql/tables';

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
  plan: Plan;
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
  /** The quota period the report was counted in (orchestrator_report_usage.period); null when it took none (migration 020). */
  quota_period: string | null;
}

/** Reports a user requested in one calendar month (UTC), against their plan's quota (migration 008). */
/** Replaced by ReportUsageTable (migration 019); kept until the next release drops it. */
export interface ReportQuotaTable {
  user_id: string;
  /** YYYY-MM, UTC. */
  month: string;
  reports: number;
}

/** Reports requested per user and billing period (migration 019). */
export interface ReportUsageTable {
  user_id: string;
  /** The paid period's end (ISO instant), or the calendar month YYYY-MM (UTC) for free and plans without an end. */
  period: string;
  reports: number;
}

/**
 * Executions per hour of creation and status (migration 009), kept in the transaction of every
 * insert, status change and delete: the dashboards' counts and mean durations read these instead
 * of the executions.
 */
export interface ExecutionRollupTable {
  /** The hour of created_at as its ISO 8601 prefix, `2026-11-22T04`. */
  hour: string;
  processing_status: ExecutionsTable['processing_status'];
  executions: number;
  /** Executions with a duration_ms, and the sum of those durations (the mean is their ratio). */
  duration_count: number;
  duration_sum: number;
}

/** Which log rows a log rollup row counts: those with that error_pattern, that error_source, or failed rows of that step. */
export type LogRollupDimension = 'error_pattern' | 'error_source' | 'failed_step';

/** Processing-log rows per hour and dimension (migration 009), kept in the transaction that inserts them. */
export interface LogRollupTable {
  dimension: LogRollupDimension;
  hour: string;
  /** The counted value: the pattern, the source, or for a step a key made of its number and name. */
  name: string;
  step_number: number | null;
  step_name: string | null;
  occurrences: number;
  /** The newest timestamp counted. */
  latest: Timestamp;
}

/** Per client company (migration 009): its executions, last submission and latest execution, kept with each insert and delete. */
export interface CompanyRollupTable {
  company_name: string;
  execution_count: number;
  last_submission_at: Timestamp;
  /** The newest execution by created_at, then tracking_id (the profiles' latest execution), with its industry and current status. */
  latest_tracking_id: string;
  latest_industry_id: string;
  latest_status: ExecutionsTable['processing_status'];
}

/** What an administrator did to an execution (migration 010): retry, re-run, cancel, bulk retry, refused or done. */
export interface AdminActionsTable {
  id: Generated<number>;
  created_at: Timestamp;
  /** execution.retry, execution.rerun, execution.cancel, executions.retry_failed. */
  action: string;
  /** The execution acted on (null for a bulk retry's summary). */
  tracking_id: string | null;
  /** A re-run: the new execution. */
  related_tracking_id: string | null;
  actor_id: string;
  actor_email: string;
  result: 'success' | 'failure';
  /** The refusal's error code. */
  reason: string | null;
  /** JSON: non-secret facts (the previous error, a bulk retry's range and count). */
  details: string | null;
  request_id: string | null;
  /** Unique: the action, the execution and the caller's Idempotency-Key (a fresh id without one). */
  dedupe_key: string;
}

/** A user's Idempotency-Key of POST api/reports (migration 020): the request it came with and the report it answers, kept 24 hours. */
export interface ReportKeysTable {
  user_id: string;
  idempotency_key: string;
  /** SHA-256 (hex) of the checked request body: the same key with another body is refused. */
  request_hash: string;
  tracking_id: string;
  created_at: Timestamp;
}

/** A share link of a completed report (migration 021): only the SHA-256 of its token is stored. */
export interface ReportSharesTable {
  /** shr_ and 24 hex characters: how the owner names the link (list, revoke); not a secret. */
  share_id: string;
  tracking_id: string;
  owner_id: string;
  /** SHA-256 of the token, hex (64 characters), unique. */
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  /** Page views counted while the link was valid. */
  views: number;
  last_viewed_at: Timestamp | null;
}

/** Per user (migration 022): the address their last report request came with, and the e-mail opt-out. */
export interface NotifyUsersTable {
  user_id: string;
  email: string | null;
  /** 1: e-mail the requester when a report finishes (the default); 0: opted out. */
  email_enabled: number | boolean;
  updated_at: Timestamp;
}

export type NotifyEventType = 'report.completed' | 'report.failed';

/** A finished report to tell its requester about (migration 022), written with the finish itself. */
export interface NotifyEventsTable {
  /** evt_… : the webhook event's id. */
  id: string;
  tracking_id: string;
  user_id: string;
  /** The execution's plan: only Pro and Enterprise reports are sent to webhooks. */
  plan: string;
  type: NotifyEventType;
  /** JSON: { status, company, error? } (the client's words for a failure). */
  data: string;
  created_at: Timestamp;
  /** pending until its e-mail is settled and its webhook deliveries are made. */
  state: 'pending' | 'done';
  /** Compare-and-set counter: a dispatcher claims the event by moving it. */
  version: Generated<number>;
  next_at: Timestamp;
  webhooks_done: Generated<number | boolean>;
  email_state: 'pending' | 'sent' | 'skipped' | 'failed';
  email_attempts: Generated<number>;
  email_error: string | null;
}

/** A user's webhook endpoint (migration 022). */
export interface WebhookEndpointsTable {
  /** we_… */
  id: string;
  user_id: string;
  url: string;
  description: string | null;
  /** whsec_…: signs every delivery. */
  secret: string;
  /** The secret before the last rotation: signs too until previous_secret_expires_at. */
  previous_secret: string | null;
  previous_secret_expires_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One event to one endpoint (migration 022). */
export interface WebhookDeliveriesTable {
  /** wd_… */
  id: string;
  endpoint_id: string;
  user_id: string;
  event_id: string;
  event_type: NotifyEventType;
  tracking_id: string;
  /** The JSON body, frozen when the delivery was made (every try signs the same bytes). */
  payload: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Generated<number>;
  /** Tries since the window began (the backoff's count; a re-send starts it again). */
  window_attempts: Generated<number>;
  next_attempt_at: Timestamp | null;
  /** When the current retry window (3 days) began: the delivery's creation, or its last re-send. */
  window_started_at: Timestamp;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One try of a delivery and the answer (migration 022). */
export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempt: number;
  at: Timestamp;
  duration_ms: number;
  status_code: number | null;
  response_excerpt: string | null;
  error: string | null;
  outcome: 'succeeded' | 'failed';
}

/** The orchestrator's tables (migrations 001, 002, 008, 009, 010, 019, 020, 021 and 022). */
export type OrchestratorTables = {
  orchestrator_processing_log: ProcessingLogTable & ProcessingLogExtension;
  orchestrator_executions: ExecutionsTable;
  orchestrator_report_quota: ReportQuotaTable;
  orchestrator_report_usage: ReportUsageTable;
  orchestrator_execution_rollup: ExecutionRollupTable;
  orchestrator_log_rollup: LogRollupTable;
  orchestrator_company_rollup: CompanyRollupTable;
  orchestrator_admin_actions: AdminActionsTable;
  orchestrator_report_keys: ReportKeysTable;
  orchestrator_report_shares: ReportSharesTable;
  orchestrator_notify_users: NotifyUsersTable;
  orchestrator_notify_events: NotifyEventsTable;
  orchestrator_webhook_endpoints: WebhookEndpointsTable;
  orchestrator_webhook_deliveries: WebhookDeliveriesTable;
  orchestrator_webhook_attempts: WebhookAttemptsTable;
};

/** A processing-log row as the workflow writes it. */
export type LogRow = Insertable<OrchestratorTables['orchestrator_processing_log']>;
