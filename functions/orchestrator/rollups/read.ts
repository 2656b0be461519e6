import { sql } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';
import type { ExecutionsTable, LogRollupDimension } from '../db/tables';

type Reads = Pick<OrchestratorContext, 'db'>;

/**
 * Reads of the rollups for whole hours from `fromHour` on (see splitWindow in ./keys); callers add
 * the raw rows of the window's first, partial hour.
 */

export interface ExecutionHour {
  hour: string;
  processing_status: ExecutionsTable['processing_status'];
  executions: number;
  duration_count: number;
  duration_sum: number;
}

/** Executions per status from `fromHour` on, summed over the hours; `byHour` keeps one row per hour and status instead. */
export async function executionHours(ctx: Reads, fromHour: string, byHour = false): Promise<ExecutionHour[]> {
  const rows = await ctx.db
    .selectFrom('orchestrator_execution_rollup')
    .select([
      byHour ? 'hour' : sql<string>`''`.as('hour'),
      'processing_status',
      sql<number>`sum(executions)`.as('executions'),
      sql<number>`sum(duration_count)`.as('duration_count'),
      sql<number>`sum(duration_sum)`.as('duration_sum'),
    ])
    .where('hour', '>=', fromHour)
    .groupBy(byHour ? ['hour', 'processing_status'] : ['processing_status'])
    .execute();
  return rows.map((r) => ({
    hour: r.hour,
    processing_status: r.processing_status,
    executions: Number(r.executions),
    duration_count: Number(r.duration_count),
    duration_sum: Number(r.duration_sum),
  }));
}

export interface LogCount {
  name: string;
  step_number: number | null;
  step_name: string | null;
  occurrences: number;
  latest: string | Date;
}

/** Log rows of one dimension from `fromHour` on, per counted value. */
export async function logCounts(ctx: Reads, dimension: LogRollupDimension, fromHour: string): Promise<LogCount[]> {
  const rows = await ctx.db
    .selectFrom('orchestrator_log_rollup')
    .select([
      'name',
      sql<number | null>`max(step_number)`.as('step_number'),
      sql<string | null>`max(step_name)`.as('step_name'),
      sql<number>`sum(occurrences)`.as('occurrences'),
      sql<string | Date>`max(latest)`.as('latest'),
    ])
    .where('dimension', '=', dimension)
    .where('hour', '>=', fromHour)
    .groupBy('name')
    .execute();
  return rows.map((r) => ({ ...r, occurrences: Number(r.occurrences) }));
}

/** Failed log rows per hour from `fromHour` on. */
export async function failuresPerHour(ctx: Reads, fromHour: string): Promise<{ hour: string; failures: number }[]> {
  const rows = await ctx.db
    .selectFrom('orchestrator_log_rollup')
    .select(['hour', sql<number>`sum(occurrences)`.as('failures')])
    .where('dimension', '=', 'failed_step')
    .where('hour', '>=', fromHour)
    .groupBy('hour')
    .execute();
  return rows.map((r) => ({ hour: r.hour, failures: Number(r.failures) }));
}
