import type { Insertable, Selectable } from 'kysely';
import type { LiveUser } from '../../../shared/auth/live-session';
import { serviceUrl } from '../../../shared/config';
import { Code, conflict, notFound } from '../../../shared/http/errors';
import { toIso } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';
import type { ReportSharesTable } from '../db/tables';
import { findExecution, parseAssets, type Execution } from '../workflow/executions';
import { newShareId, newShareToken, shareTokenHash } from './tokens';

type Ctx = Pick<OrchestratorContext, 'db' | 'now' | 'reports' | 'config'>;
type ShareRow = Selectable<ReportSharesTable>;

/** The longest a link lives, in days (the body's expiresInDays is 1 to this). */
export const MAX_SHARE_DAYS = 30;
/** The links a list answers at most, newest first (a report is shared a few times, not hundreds). */
export const SHARE_LIST_LIMIT = 100;

export type ShareState = 'active' | 'expired' | 'revoked';

/** A link as its owner reads it: never its token (SQL has only the hash). */
export interface ShareView {
  shareId: string;
  trackingId: string;
  status: ShareState;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  views: number;
  lastViewedAt: string | null;
}

export function shareState(row: Pick<ShareRow, 'revoked_at' | 'expires_at'>, now: Date): ShareState {
  if (row.revoked_at) return 'revoked';
  return new Date(toIso(row.expires_at)!).getTime() <= now.getTime() ? 'expired' : 'active';
}

const viewOf = (row: ShareRow, now: Date): ShareView => ({
  shareId: row.share_id,
  trackingId: row.tracking_id,
  status: shareState(row, now),
  createdAt: toIso(row.created_at)!,
  expiresAt: toIso(row.expires_at)!,
  revokedAt: toIso(row.revoked_at),
  views: Number(row.views),
  lastViewedAt: toIso(row.last_viewed_at),
});

/** The page's address for a token (the PDF's is the same with /pdf). */
export const sharePageUrl = (ctx: Pick<OrchestratorContext, 'config'>, token: string): string => `${serviceUrl('orchestrator', ctx.config)}/r/${token}`;

/** The report, when `user` owns it; anyone else gets the same 404 as an unknown id (admins too: sharing is the owner's). */
async function ownedReport(ctx: Ctx, user: LiveUser, trackingId: string): Promise<Execution> {
  const execution = await findExecution(ctx, trackingId);
  if (!execution || execution.requested_by !== user.id) throw notFound(`No report ${trackingId}`, Code.REPORT_NOT_FOUND);
  return execution;
}

/** The PDF of a completed report, or null. */
export const pdfOf = (execution: Execution) =>
  execution.processing_status === 'completed' ? (parseAssets(execution).find((a) => a.kind === 'pdf') ?? null) : null;

/**
 * POST api/reports/{trackingId}/shares: a new link to the report's web page, valid `days` days.
 * The token is answered here once; SQL keeps its SHA-256 only. Only a completed report whose page
 * data was stored with its PDF can be shared (409 otherwise).
 */
export async function createShare(ctx: Ctx, user: LiveUser, trackingId: string, days: number) {
  return shareReport(ctx, await ownedReport(ctx, user, trackingId), days);
}

/** A new link to `execution`'s page for its owner (the owner's route above, or the notice e-mail of a completed report). */
export async function shareReport(ctx: Ctx, execution: Execution, days: number) {
  const trackingId = execution.tracking_id;
  const pdf = pdfOf(execution);
  if (!pdf) throw conflict(`Report ${trackingId} is not completed: only a completed report can be shared`, Code.REPORT_NOT_SHAREABLE);
  if (!(await ctx.reports.readPage(pdf)))
    throw conflict(`Report ${trackingId} was made before shared pages existed and has no page to share; request it again`, Code.REPORT_NOT_SHAREABLE);
  const now = ctx.now();
  const token = newShareToken();
  const row: Insertable<ReportSharesTable> & ShareRow = {
    share_id: newShareId(),
    tracking_id: trackingId,
    owner_id: execution.requested_by,
    token_hash: shareTokenHash(token),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + days * 86_400_000).toISOString(),
    revoked_at: null,
    views: 0,
    last_viewed_at: null,
  };
  await ctx.db.insertInto('orchestrator_report_shares').values(row).execute();
  const url = sharePageUrl(ctx, token);
  return { success: true as const, ...viewOf(row, now), token, url, pdfUrl: `${url}/pdf` };
}

/** Ends a link by its id, whoever asks (the caller has checked the right to): revokeShare's update. */
export async function endShare(ctx: Pick<Ctx, 'db' | 'now'>, trackingId: string, shareId: string): Promise<void> {
  await ctx.db
    .updateTable('orchestrator_report_shares')
    .set({ revoked_at: ctx.now().toISOString() })
    .where('share_id', '=', shareId)
    .where('tracking_id', '=', trackingId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** GET api/reports/{trackingId}/shares: the report's links, newest first, with their view counts. */
export async function listShares(ctx: Ctx, user: LiveUser, trackingId: string) {
  await ownedReport(ctx, user, trackingId);
  const rows = await ctx.db
    .selectFrom('orchestrator_report_shares')
    .selectAll()
    .where('tracking_id', '=', trackingId)
    .where('owner_id', '=', user.id)
    .orderBy('created_at', 'desc')
    .orderBy('share_id')
    .limit(SHARE_LIST_LIMIT)
    .execute();
  const now = ctx.now();
  return { success: true as const, trackingId, shares: rows.map((r) => viewOf(r, now)) };
}

/** POST api/reports/{trackingId}/shares/{shareId}/revoke: the link answers 410 from now on. Revoking a revoked link changes nothing and answers the same. */
export async function revokeShare(ctx: Ctx, user: LiveUser, trackingId: string, shareId: string) {
  await ownedReport(ctx, user, trackingId);
  const now = ctx.now();
  await endShare(ctx, trackingId, shareId);
  const row = await ctx.db
    .selectFrom('orchestrator_report_shares')
    .selectAll()
    .where('share_id', '=', shareId)
    .where('tracking_id', '=', trackingId)
    .executeTakeFirst();
  if (!row) throw notFound(`Report ${trackingId} has no share link ${shareId}`, Code.SHARE_NOT_FOUND);
  return { success: true as const, share: viewOf(row, now) };
}

/** What a token opens: the link's row when it is valid, or why not. */
export type Opened = { kind: 'open'; share: ShareRow; execution: Execution } | { kind: 'unknown' } | { kind: 'gone'; reason: 'expired' | 'revoked' };

/**
 * The link a token names. `count`: the page is being viewed, so the view is counted by one
 * conditional increment that also checks the link is still valid at `now` (a link revoked at the
 * same moment counts nothing and answers 410).
 */
export async function openShare(ctx: Ctx, token: string, count: boolean): Promise<Opened> {
  const hash = shareTokenHash(token);
  const now = ctx.now();
  const nowIso = now.toISOString();
  const row = await ctx.db.selectFrom('orchestrator_report_shares').selectAll().where('token_hash', '=', hash).executeTakeFirst();
  if (!row) return { kind: 'unknown' };
  const state = shareState(row, now);
  if (state !== 'active') return { kind: 'gone', reason: state };
  if (count) {
    const counted = await ctx.db
      .updateTable('orchestrator_report_shares')
      .set((eb) => ({ views: eb('views', '+', 1), last_viewed_at: nowIso }))
      .where('token_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', nowIso)
      .executeTakeFirst();
    if (Number(counted.numUpdatedRows) !== 1) {
      const again = await ctx.db
        .selectFrom('orchestrator_report_shares')
        .select(['revoked_at', 'expires_at'])
        .where('token_hash', '=', hash)
        .executeTakeFirst();
      return { kind: 'gone', reason: again?.revoked_at ? 'revoked' : 'expired' };
    }
  }
  const execution = await findExecution(ctx, row.tracking_id);
  // The report itself is gone (deleted): the link is as good as revoked.
  if (!execution || !pdfOf(execution)) return { kind: 'gone', reason: 'revoked' };
  return { kind: 'open', share: row, execution };
}
