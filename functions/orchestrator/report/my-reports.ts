import type { LiveUser } from '../../../shared/auth/live-session';
import type { Infer } from '../../../shared/http/schemas';
import { first, toIso } from '../../../shared/sql/dialect';
import { after, decodeCursor, encodeCursor, keysOf } from '../admin/search';
import type { OrchestratorContext } from '../context';
import type { MY_REPORTS_QUERY } from '../schemas';
import { parseAssets, type Execution } from '../workflow/executions';
import { reportQuotaStatus } from './quota';

export type MyReportsQuery = Infer<typeof MY_REPORTS_QUERY>;

const COLUMNS = ['tracking_id', 'company_name', 'processing_status', 'progress_percentage', 'created_at', 'completed_at', 'assets'] as const;
type Row = Pick<Execution, (typeof COLUMNS)[number]>;

/**
 * GET orchestrator/api/reports: the signed-in user's own reports, newest first (creation, then
 * tracking id), a page at a time with the admin search's cursor (admin/search.ts: opaque, the
 * keys of a page's last row, so a page is stable however many reports arrive meanwhile), by status;
 * completed ones with fresh download links (the PDF, and the deck when the plan made one). The
 * answer carries the quota of the current period as GET api/quota answers it (reportQuotaStatus:
 * what a next request would find).
 */
export async function myReports(ctx: OrchestratorContext, user: LiveUser, query: MyReportsQuery) {
  const now = ctx.now();
  const keys = keysOf('newest');
  let q = ctx.db.selectFrom('orchestrator_executions').select(COLUMNS).where('requested_by', '=', user.id);
  if (query.status !== 'all') q = q.where('processing_status', '=', query.status);
  if (query.cursor) q = q.where(after(keys, decodeCursor(query.cursor, 'newest', keys)));
  for (const key of keys) q = q.orderBy(key.expression, key.direction);
  // One row more than the page says whether there is a next page.
  const rows: Row[] = await first(ctx.db, q, query.limit + 1).execute();
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const reports = await Promise.all(
    page.map(async (row) => ({
      trackingId: row.tracking_id,
      company: row.company_name,
      status: row.processing_status,
      progress: row.progress_percentage,
      createdAt: toIso(row.created_at)!,
      completedAt: toIso(row.completed_at),
      downloadLinks: row.processing_status === 'completed' ? await ctx.reports.downloadLinks(parseAssets(row as Execution)) : [],
    })),
  );
  const { count, ...quota } = await reportQuotaStatus(ctx, user, now);
  return {
    success: true,
    reports,
    next_cursor:
      rows.length > query.limit && last
        ? encodeCursor(
            'newest',
            keys.map((k) => k.value(last as never)),
          )
        : null,
    quota: { ...quota, used: count },
  };
}
