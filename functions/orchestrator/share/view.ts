import type { HttpResponseInit } from '@azure/functions';
import { toIso } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';
import { gonePage, PAGE_HEADERS } from './html';
import { reportPage } from './page';
import { pageModelOf, type ReportPageData } from './page-data';
import { openShare, pdfOf, type Opened } from './shares';
import { SHARE_TOKEN } from './tokens';

type Ctx = Pick<OrchestratorContext, 'db' | 'now' | 'reports' | 'config'>;

/** 404 for a token no link has, 410 for an expired or revoked link: each a page saying so. */
function refused(opened: Exclude<Opened, { kind: 'open' }>): HttpResponseInit {
  if (opened.kind === 'unknown') return { status: 404, headers: PAGE_HEADERS, body: gonePage('unknown') };
  return { status: 410, headers: PAGE_HEADERS, body: gonePage(opened.reason) };
}

const open = (ctx: Ctx, token: string, count: boolean): Promise<Opened> =>
  SHARE_TOKEN.test(token) ? openShare(ctx, token, count) : Promise.resolve({ kind: 'unknown' });

/** GET orchestrator/r/{token}: the shared report as a web page (the view counted), or the page saying why not. */
export async function sharedPage(ctx: Ctx, token: string): Promise<HttpResponseInit> {
  const opened = await open(ctx, token, true);
  if (opened.kind !== 'open') return refused(opened);
  const stored = await ctx.reports.readPage(pdfOf(opened.execution)!);
  if (!stored) return refused({ kind: 'gone', reason: 'revoked' });
  const { model, svgs } = pageModelOf(JSON.parse(stored.toString('utf8')) as ReportPageData);
  const expiresAt = toIso(opened.share.expires_at)!;
  return { status: 200, headers: PAGE_HEADERS, body: reportPage(model, svgs, { pdf: `${token}/pdf`, expiresAt }) };
}

/**
 * GET orchestrator/r/{token}/pdf: the report's PDF through the link: a redirect (303) to a
 * read-only storage link of ORCHESTRATOR_DOWNLOAD_LINK_MINUTES, made for this request. Not a view.
 */
export async function sharedPdf(ctx: Ctx, token: string): Promise<HttpResponseInit> {
  const opened = await open(ctx, token, false);
  if (opened.kind !== 'open') return refused(opened);
  const [link] = await ctx.reports.downloadLinks([pdfOf(opened.execution)!]);
  return { status: 303, headers: { Location: link.url, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Robots-Tag': 'noindex, nofollow' } };
}
