import { sql } from 'kysely';
import { db } from '../../../shared/sql/db';
import { first, toIso } from '../../../shared/sql/dialect';
import { EXECUTION_COLUMNS, type ExecutionRow } from './execution-view';
import { LONG_RUNNING_MS, isoBefore } from './time-windows';

/** The classifications the workflow logger stores at write time, which the dashboards count (defined once, with the rules that assign them). */
export { ERROR_PATTERNS, ERROR_SOURCES } from '../workflow/error-classification';

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
    .where('processing_status', 'in', ['completed', 'failed', 'processing'])
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
 * `since`. One row per known value, all in one round trip (UNION ALL): each count is a range of the
 * (column, timestamp) index, and each latest occurrence a single seek at the end of that range,
 * which is several times cheaper than grouping the whole range.
 */
export async function errorCounts(column: 'error_source' | 'error_pattern', values: readonly string[], since: string): Promise<Map<string, ErrorCount>> {
  const database = db();
  const rows = await unionAll(
    values.map((value) => {
      const matching = () => database.selectFrom('orchestrator_processing_log').where(sql.ref(column), '=', value).where('timestamp', '>=', since);
      return database.selectNoFrom([
        sql<string>`${value}`.as('value'),
        matching()
          .select(sql<number>`count(*)`.as('n'))
          .$asScalar()
          .as('count'),
        matching()
          .select(sql<string | Date>`max(${sql.ref('timestamp')})`.as('t'))
          .$asScalar()
          .as('latest'),
      ]);
    }),
  ).execute();
  return new Map(rows.map((r) => [r.value, { count: Number(r.count), latest: toIso(r.latest) }]));
}

/** Several single-row selects as one statement, so a dashboard needs one round trip per aggregate. */
export function unionAll<Q extends { unionAll(other: Q): Q }>(queries: Q[]): Q {
  return queries.slice(1).reduce((all, query) => all.unionAll(query), queries[0]);
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
  const row = await longRunningQuery(now)
    .select(sql<number>`count(*)`.as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The longest-running first. */
export async function longRunningExecutions(now: Date, limit: number): Promise<ExecutionRow[]> {
  return first(db(), longRunningQuery(now).select(EXECUTION_COLUMNS).orderBy('created_at', 'asc').orderBy('tracking_id', 'asc'), limit).execute();
}
