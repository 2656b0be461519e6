import type { Infer } from '../../../shared/http/schemas';
import { containsIgnoringCase, sql, page, toIso } from '../../../shared/sql/dialect';
import type { PROFILES_QUERY } from '../schemas';
import type { Reads } from './queries';

/**
 * The client companies that submitted reports, newest submission first: per company its execution
 * count, last submission time and latest execution (status, tracking id, industry). All of it is
 * the company rollup's (kept with every insert, status change and delete of an execution), paged
 * over its (last_submission_at, company_name) index; the search (a case-insensitive substring of
 * the company name, trimmed; empty matches every company) and the status apply to its rows.
 */
export async function clientProfiles(ctx: Reads, query: Infer<typeof PROFILES_QUERY>) {
  const database = ctx.db;
  const search = query.search?.trim() ?? '';
  let profiles = database.selectFrom('orchestrator_company_rollup');
  if (search) profiles = profiles.where(containsIgnoringCase(database, 'company_name', search));
  if (query.status !== 'all') profiles = profiles.where('latest_status', '=', query.status);
  const ordered = profiles.selectAll().orderBy('last_submission_at', 'desc').orderBy('company_name', 'asc');
  const offset = (query.page - 1) * query.limit;
  const [rows, count] = await Promise.all([
    page(database, ordered, query.limit, offset).execute(),
    profiles.select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow(),
  ]);
  const total = Number(count.total);

  return {
    success: true,
    profiles: rows.map((r) => ({
      company_name: r.company_name,
      industry_id: r.latest_industry_id,
      execution_count: Number(r.execution_count),
      last_submission_at: toIso(r.last_submission_at),
      latest_status: r.latest_status,
      latest_tracking_id: r.latest_tracking_id,
    })),
    pagination: { page: query.page, limit: query.limit, total, totalPages: Math.ceil(total / query.limit) },
    filters: { status: query.status, search },
  };
}
