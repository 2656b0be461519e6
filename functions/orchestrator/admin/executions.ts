import type { Infer } from '../../../shared/http/schemas';
import { containsIgnoringCase, sql, first, toIso } from '../../../shared/sql/dialect';
import type { EXECUTIONS_QUERY, ExecutionStatusFilter } from '../schemas';
import { EXECUTION_COLUMNS, executionView, runningSeconds } from './execution-view';
import { countLongRunning, executionCounts, longRunningExecutions, type Reads } from './queries';
import { RECENT_WINDOW_MS, isoBefore } from './time-windows';

/** The long-running list is bounded like the recent list; long_running_count says how many there are in all. */
export const LONG_RUNNING_LIST_LIMIT = 100;

/**
 * The newest executions, optionally of one status and of companies whose name contains `search`
 * (ignoring case), over the (processing_status, created_at) or (created_at) index.
 *
 * With a search, the company rollup says how many executions the matching companies have. Walking
 * the newest executions and testing each name reads about limit x all / matching rows before it has
 * `limit` matches; reading the matching companies' executions over the company index reads
 * `matching` rows and sorts them. The cheaper of the two is taken: one company of 50,000 is a few
 * index ranges instead of a walk through most of the table, a common word stays a short walk.
 */
async function recentExecutions(ctx: Reads, limit: number, status: ExecutionStatusFilter, search: string) {
  const database = ctx.db;
  let query = database.selectFrom('orchestrator_executions').select(EXECUTION_COLUMNS);
  if (status !== 'all') query = query.where('processing_status', '=', status);
  if (search) {
    const companies = database.selectFrom('orchestrator_company_rollup').where(containsIgnoringCase(database, 'company_name', search));
    const { matching, all } = await database
      .selectFrom('orchestrator_company_rollup')
      .select([
        sql<number>`coalesce(sum(case when ${containsIgnoringCase(database, 'company_name', search)} then execution_count else 0 end), 0)`.as('matching'),
        sql<number>`coalesce(sum(execution_count), 0)`.as('all'),
      ])
      .executeTakeFirstOrThrow();
    const byCompany = Number(matching) ** 2 < limit * Number(all);
    query = byCompany
      ? query.where('company_name', 'in', companies.select('company_name'))
      : query.where(containsIgnoringCase(database, 'company_name', search));
  }
  return first(database, query.orderBy('created_at', 'desc').orderBy('tracking_id', 'desc'), limit).execute();
}

/** GET dashboard/executions: a 24-hour summary, the newest executions (of a status, of companies matching the trimmed search) and every long-running one. */
export async function executionsMonitor(ctx: Reads, now: Date, query: Infer<typeof EXECUTIONS_QUERY>) {
  const { limit, status } = query;
  const search = query.search?.trim() ?? '';
  const since = isoBefore(now, RECENT_WINDOW_MS);
  const [counts, longRunningCount, recent, longRunning] = await Promise.all([
    executionCounts(ctx, since),
    countLongRunning(ctx, now),
    recentExecutions(ctx, limit, status, search),
    longRunningExecutions(ctx, now, LONG_RUNNING_LIST_LIMIT),
  ]);
  return {
    success: true,
    generated_at: now.toISOString(),
    filters: search ? { limit, status, search } : { limit, status },
    executions: {
      summary: { ...counts, long_running_count: longRunningCount, window: '24h', since },
      recent: recent.map((row) => executionView(row, now)),
      long_running: longRunning.map((row) => ({
        tracking_id: row.tracking_id,
        running_seconds: runningSeconds(row, now),
        processing_status: row.processing_status,
        company_name: row.company_name,
        current_step: row.current_step_name,
        running_since: toIso(row.started_at ?? row.created_at),
      })),
    },
  };
}
