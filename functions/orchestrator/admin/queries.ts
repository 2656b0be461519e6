import { sql, first } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';
import { EXECUTION_COLUMNS, type ExecutionRow } from './execution-view';
import { LONG_RUNNING_MS, isoBefore } from './time-windows';
import { later, splitWindow } from '../rollups/keys';
import { notDiagnostic } from '../db/rollups';
import { executionHours, logCounts } from '../rollups/read';

/** The classifications the workflow logger stores at write time, which the dashboards count (defined once, with the rules that assign them). */
export { ERROR_PATTERNS, ERROR_SOURCES } from '../workflow/error-classification';

/** What the dashboards' counts read: the database. */
export type Reads = Pick<OrchestratorContext, 'db'>;

export interface ExecutionCounts {
  total: number;
  completed: number;
  failed: number;
  processing: number;
  /** Mean duration of the completed executions, rounded to whole milliseconds; 0 when none completed. */
  average_duration_ms: number;
}

/**
 * Executions created since `since`, counted by status: whole hours from the hourly rollup, and the
 * window's first, partial hour from the rows over the (processing_status, created_at, duration_ms)
 * index. Diagnostic executions are not counted (shared/sql/rollups.ts).
 */
export async function executionCounts(ctx: Reads, since: string): Promise<ExecutionCounts> {
  const { partialEnd, fromHour } = splitWindow(since);
  const [hours, partial] = await Promise.all([
    executionHours(ctx, fromHour),
    ctx.db
      .selectFrom('orchestrator_executions')
      .select([
        'processing_status',
        sql<number>`count(*)`.as('executions'),
        sql<number>`count(duration_ms)`.as('duration_count'),
        sql<number | null>`sum(cast(duration_ms as bigint))`.as('duration_sum'),
      ])
      .where('processing_status', 'in', ['completed', 'failed', 'processing'])
      .where('created_at', '>=', since)
      .where('created_at', '<', partialEnd)
      .where(notDiagnostic())
      .groupBy('processing_status')
      .execute(),
  ]);
  const counts: ExecutionCounts = { total: 0, completed: 0, failed: 0, processing: 0, average_duration_ms: 0 };
  const durations = { count: 0, sum: 0 };
  for (const row of [...hours, ...partial]) {
    counts[row.processing_status] += Number(row.executions);
    counts.total += Number(row.executions);
    if (row.processing_status === 'completed') {
      durations.count += Number(row.duration_count);
      durations.sum += Number(row.duration_sum ?? 0);
    }
  }
  if (durations.count > 0) counts.average_duration_ms = Math.round(durations.sum / durations.count);
  return counts;
}

export interface ErrorCount {
  count: number;
  latest: string | null;
}

/**
 * Log rows classified by the workflow logger, counted per error_source or error_pattern since
 * `since`, with the latest occurrence: whole hours from the hourly rollup; the window's first,
 * partial hour from the rows, one row per known value in one round trip (UNION ALL), each count
 * a range of the (column, timestamp) index and each latest a single seek at its end.
 */
export async function errorCounts(
  ctx: Reads,
  column: 'error_source' | 'error_pattern',
  values: readonly string[],
  since: string,
): Promise<Map<string, ErrorCount>> {
  const database = ctx.db;
  const { partialEnd, fromHour } = splitWindow(since);
  const [hours, partial] = await Promise.all([
    logCounts(ctx, column, fromHour),
    unionAll(
      values.map((value) => {
        const matching = () =>
          database
            .selectFrom('orchestrator_processing_log')
            .where(sql.ref(column), '=', value)
            .where('timestamp', '>=', since)
            .where('timestamp', '<', partialEnd)
            .where(notDiagnostic());
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
    ).execute(),
  ]);
  const counts = new Map(values.map((value) => [value, { count: 0, latest: null as string | null }]));
  const add = (value: string, count: number, latest: string | Date | null) => {
    const known = counts.get(value);
    if (!known) return;
    known.count += count;
    known.latest = later(known.latest, latest);
  };
  for (const row of partial) add(row.value, Number(row.count), row.latest);
  for (const row of hours) add(row.name, row.occurrences, row.latest);
  return counts;
}

/** Several single-row selects as one statement, so a dashboard needs one round trip per aggregate. */
export function unionAll<Q extends { unionAll(other: Q): Q }>(queries: Q[]): Q {
  return queries.slice(1).reduce((all, query) => all.unionAll(query), queries[0]);
}

const longRunningSince = (now: Date) => isoBefore(now, LONG_RUNNING_MS);

/**
 * Processing executions that began more than 10 minutes ago (created_at bounds the index range; a
 * start is never before creation), diagnostic ones aside (they count in no alert).
 */
function longRunningQuery(ctx: Reads, now: Date) {
  const cutoff = longRunningSince(now);
  return ctx.db
    .selectFrom('orchestrator_executions')
    .where('processing_status', '=', 'processing')
    .where('created_at', '<', cutoff)
    .where(sql<string>`coalesce(started_at, created_at)`, '<', cutoff)
    .where(notDiagnostic());
}

export async function countLongRunning(ctx: Reads, now: Date): Promise<number> {
  const row = await longRunningQuery(ctx, now)
    .select(sql<number>`count(*)`.as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The longest-running first. */
export async function longRunningExecutions(ctx: Reads, now: Date, limit: number): Promise<ExecutionRow[]> {
  return first(ctx.db, longRunningQuery(ctx, now).select(EXECUTION_COLUMNS).orderBy('created_at', 'asc').orderBy('tracking_id', 'asc'), limit).execute();
}
