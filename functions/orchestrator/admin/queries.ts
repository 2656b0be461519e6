import { sql } from 'kysely';
import { db } from '../../../shared/sql/db';
import { first, toIso } from '../../../shared/sql/dialect';
import { EXECUTION_COLUMNS, type ExecutionRow } from './execution-view';
import { LONG_RUNNING_MS, isoBefore } from './time-windows';

/** Spec 7.4 classifications, stored by the workflow logger at write time. */
export const ERROR_SOURCES = ['SQL_DATABASE', 'AI_SERVICE', 'BLOB_STORAGE'] as const;
export const ERROR_PATTERNS = ['DATABASE_CONSTRAINT', 'SCHEMA_MISSING', 'SQL_CONNECTION', 'BLOB_CONNECTION', 'AI_SERVICE', 'TIMEOUT', 'RATE_LIMIT', 'OTHER'] as const;

export interface ExecutionCounts {
  total: number;
  completed: number;
  failed: number;
  processing: number;
  /** Mean duration of the completed executions, rounded to whole milliseconds; 0 when none completed. */
  average_duration_ms: number;
}

/** Executions created since `since`, counted by status in one pass over the (processing_status, created_at, duration_ms) index. */
export async function executionCounts(since: string): Promise<ExecutionCounts> {
  const rows = await db()
    .selectFrom('orchestrator_executions')
    .select(['processing_status', sql<number>`count(*)`.as('count'), sql<number | null>`avg(duration_ms * 1.0)`.as('avg_duration')])
    .where('created_at', '>=', since)
    .groupBy('processing_status')
    .execute();
  const counts: ExecutionCounts = { total: 0, completed: 0, failed: 0, processing: 0, average_duration_ms: 0 };
  for (const row of rows) {
    counts[row.processing_status] = Number(row.count);
    counts.total += Number(row.count);
    if (row.processing_status === 'completed') counts.average_duration_ms = Math.round(Number(row.avg_duration ?? 0));
  }
  return counts;
}

export interface ErrorCount {
  count: number;
  latest: string | null;
}

/**
 * Log rows classified by the workflow logger, counted per error_source or error_pattern since
 * `since`. Listing the known values turns the filter into one seek per value on the
 * (column, timestamp) index, which also covers count and max.
 */
export async function errorCounts(column: 'error_source' | 'error_pattern', values: readonly string[], since: string): Promise<Map<string, ErrorCount>> {
  const rows = await db()
    .selectFrom('orchestrator_processing_log')
    .select([sql.ref<string>(column).as('value'), sql<number>`count(*)`.as('count'), sql<string | Date>`max(${sql.ref('timestamp')})`.as('latest')])
    .where(sql.ref(column), 'in', values)
    .where('timestamp', '>=', since)
    .groupBy(sql.ref(column))
    .execute();
  return new Map(rows.map((r) => [r.value, { count: Number(r.count), latest: toIso(r.latest) }]));
}

const longRunningSince = (now: Date) => isoBefore(now, LONG_RUNNING_MS);

/** Processing executions that began more than 10 minutes ago (created_at bounds the index range; a start is never before creation). */
function longRunningQuery(now: Date) {
  const cutoff = longRunningSince(now);
  return db()
    .selectFrom('orchestrator_executions')
    .where('processing_status', '=', 'processing')
    .where('created_at', '<', cutoff)
    .where(sql<string>`coalesce(started_at, created_at)`, '<', cutoff);
}

export async function countLongRunning(now: Date): Promise<number> {
  const row = await longRunningQuery(now).select(sql<number>`count(*)`.as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The longest-running first. */
export async function longRunningExecutions(now: Date, limit: number): Promise<ExecutionRow[]> {
  return first(db(), longRunningQuery(now).select(EXECUTION_COLUMNS).orderBy('created_at', 'asc').orderBy('tracking_id', 'asc'), limit).execute();
}
