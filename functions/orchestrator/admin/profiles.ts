import { sql, type Kysely } from 'kysely';
import { db } from '../../../shared/sql/db';
import { first, isMssql, page, toIso } from '../../../shared/sql/dialect';
import type { ExecutionStatusFilter } from './executions';

export interface ProfileQuery {
  page: number;
  limit: number;
  status: ExecutionStatusFilter;
  /** Case-insensitive substring of the company name; empty matches every company. */
  search: string;
}

/**
 * Whether a column contains `text`, ignoring case. A position search rather than LIKE, so `%`, `_`
 * and `[` in the search are plain characters on both dialects with no escaping to get wrong.
 */
function containsIgnoringCase(database: Kysely<any>, column: string, text: string) {
  const haystack = sql`lower(${sql.ref(column)})`;
  const needle = text.toLowerCase();
  return isMssql(database) ? sql<boolean>`charindex(${needle}, ${haystack}) > 0` : sql<boolean>`instr(${haystack}, ${needle}) > 0`;
}

/**
 * The client companies that submitted reports, newest submission first: per company its execution
 * count, last submission time and latest execution (status, tracking id, industry). Grouping runs
 * over the (company_name, created_at, tracking_id) index; `total` comes from a window count over the
 * filtered groups, so one query serves the page and its metadata.
 */
export async function clientProfiles(query: ProfileQuery) {
  const database = db();
  let companies = database
    .selectFrom('orchestrator_executions as e')
    .select((eb) => [
      'e.company_name',
      sql<number>`count(*)`.as('execution_count'),
      sql<string | Date>`max(e.created_at)`.as('last_submission_at'),
      first(
        database,
        eb.selectFrom('orchestrator_executions as x').select('x.tracking_id').whereRef('x.company_name', '=', 'e.company_name').orderBy('x.created_at', 'desc').orderBy('x.tracking_id', 'desc'),
        1,
      ).as('latest_tracking_id'),
    ])
    .groupBy('e.company_name');
  if (query.search) companies = companies.where(containsIgnoringCase(database, 'e.company_name', query.search));

  let profiles = database
    .with('companies', () => companies)
    .selectFrom('companies as c')
    .innerJoin('orchestrator_executions as l', 'l.tracking_id', 'c.latest_tracking_id')
    .select([
      'c.company_name',
      'c.execution_count',
      'c.last_submission_at',
      'l.tracking_id',
      'l.processing_status',
      'l.industry_id',
      sql<number>`count(*) over ()`.as('total'),
    ]);
  if (query.status !== 'all') profiles = profiles.where('l.processing_status', '=', query.status);
  const ordered = profiles.orderBy('c.last_submission_at', 'desc').orderBy('c.company_name', 'asc');
  const offset = (query.page - 1) * query.limit;
  const rows = await page(database, ordered, query.limit, offset).execute();

  // Past the last page there is no row to carry the window count: count the groups on their own.
  const total = rows.length > 0 ? Number(rows[0].total) : offset === 0 ? 0 : Number((await profiles.clearSelect().select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow()).total);

  return {
    success: true,
    profiles: rows.map((r) => ({
      company_name: r.company_name,
      industry_id: r.industry_id,
      execution_count: Number(r.execution_count),
      last_submission_at: toIso(r.last_submission_at),
      latest_status: r.processing_status,
      latest_tracking_id: r.tracking_id,
    })),
    pagination: { page: query.page, limit: query.limit, total, totalPages: Math.ceil(total / query.limit) },
    filters: { status: query.status, search: query.search },
  };
}
