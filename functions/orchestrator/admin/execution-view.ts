import type { Selectable } from 'kysely';
import { toIso } from '../../../shared/sql/dialect';
import type { ExecutionsTable } from '../db/tables';
import { LONG_RUNNING_MS } from './time-windows';

/**
 * health_status as the administration API reports it (HEALTHY is the only value the interface names):
 * - HEALTHY: processing within 10 minutes, or completed on the first attempt with its visuals;
 * - DEGRADED: completed (or still processing) but needed a retry (attempts > 1), or the report was
 *   produced with some or none of its visuals because the visual service failed
 *   (visuals_status partial or skipped);
 * - LONG_RUNNING: processing for more than 10 minutes;
 * - TIMEOUT: failed by the orchestrator's stuck-execution timer (it stores health_status TIMEOUT);
 * - FAILED: any other failure.
 * It is derived on every read from the row's facts rather than taken from the stored column,
 * because a processing execution turns LONG_RUNNING by the passage of time alone, with no write.
 * Every view of an execution (the owner's status, the admin views) reports this one derivation.
 */
export const HEALTH_STATUSES = ['HEALTHY', 'DEGRADED', 'LONG_RUNNING', 'TIMEOUT', 'FAILED'] as const;
export type HealthStatus = (typeof HEALTH_STATUSES)[number];

/** The execution columns the list and status views read (never the submission or assets JSON of a whole list). */
export const EXECUTION_COLUMNS = [
  'tracking_id',
  'processing_status',
  'company_name',
  'industry_id',
  'progress_percentage',
  'health_status',
  'current_step',
  'current_step_name',
  'attempts',
  'visuals_status',
  'error_message',
  'error_pattern',
  'error_source',
  'error_step',
  'created_at',
  'started_at',
  'completed_at',
  'duration_ms',
] as const satisfies readonly (keyof ExecutionsTable)[];

export type ExecutionRow = Pick<Selectable<ExecutionsTable>, (typeof EXECUTION_COLUMNS)[number]>;

/** When an execution began running: its start, or its creation while it still waits in the queue. */
const runningSince = (row: Pick<ExecutionRow, 'started_at' | 'created_at'>) => Date.parse(toIso(row.started_at ?? row.created_at)!);

export const runningSeconds = (row: Pick<ExecutionRow, 'started_at' | 'created_at'>, now: Date) =>
  Math.max(0, Math.floor((now.getTime() - runningSince(row)) / 1000));

export function healthStatus(row: ExecutionRow, now: Date): HealthStatus {
  if (row.processing_status === 'failed') return row.health_status === 'TIMEOUT' ? 'TIMEOUT' : 'FAILED';
  if (row.processing_status === 'processing' && now.getTime() - runningSince(row) > LONG_RUNNING_MS) return 'LONG_RUNNING';
  if (row.attempts > 1 || row.visuals_status === 'skipped' || row.visuals_status === 'partial') return 'DEGRADED';
  return 'HEALTHY';
}

/** An execution as the administration API lists it (tracking_id, processing_status, company, industry, progress, health_status, duration_ms, running_seconds), plus times, the current step and the classified error. */
export function executionView(row: ExecutionRow, now: Date) {
  const processing = row.processing_status === 'processing';
  const elapsedMs = Math.max(0, now.getTime() - runningSince(row));
  return {
    tracking_id: row.tracking_id,
    processing_status: row.processing_status,
    company_name: row.company_name,
    industry_id: row.industry_id,
    progress_percentage: row.progress_percentage,
    health_status: healthStatus(row, now),
    /** Finished: the stored duration. Processing: elapsed so far. */
    duration_ms: processing ? elapsedMs : row.duration_ms,
    ...(processing ? { running_seconds: runningSeconds(row, now) } : {}),
    current_step: processing && row.current_step !== null ? { step_number: row.current_step, step_name: row.current_step_name } : null,
    attempts: row.attempts,
    created_at: toIso(row.created_at),
    started_at: toIso(row.started_at),
    completed_at: toIso(row.completed_at),
    error:
      row.processing_status === 'failed'
        ? { message: row.error_message, error_pattern: row.error_pattern, error_source: row.error_source, step: row.error_step }
        : null,
  };
}
