import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { requireAdmin } from '../../../shared/auth/access-token';
import type { HttpFunction } from '../../../shared/functions';
import { readQuery } from '../../../shared/http/body';
import { HttpError, badRequest, notFound } from '../../../shared/http/errors';
import { http, json } from '../../../shared/http/handler';
import { querySchema } from '../admin/params';
import { lookupAsset, type Asset } from './assets';
import { consoleConfig, consoleCsp } from './client-config';
import { TREND_THEMES, checkTimeZone, trendChart, type TrendTheme } from './trend-chart';

/** Headers of every console response: the page may not be framed, sniffed or leak its address. */
const PAGE_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY' };

function serveAsset(request: HttpRequest, asset: Asset): HttpResponseInit {
  const headers: Record<string, string> = {
    ...PAGE_HEADERS,
    'Content-Type': asset.contentType,
    ETag: asset.etag,
    // Hashed files never change under their name; index.html (and the SPA fallback) is revalidated on every load, so a deployment shows at once.
    'Cache-Control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    'Content-Security-Policy': consoleCsp(),
    Vary: 'Accept-Encoding',
  };
  if (request.headers.get('if-none-match') === asset.etag) return { status: 304, headers };
  const gzip = asset.gzip && /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
  if (gzip) headers['Content-Encoding'] = 'gzip';
  return { status: 200, headers, body: gzip ? asset.gzip! : asset.body };
}

/** GET|HEAD orchestrator/console/{*path}: the console's static files, with index.html for every page path of the single-page app. */
export const consoleFilesFunction: HttpFunction = {
  kind: 'http',
  name: 'orchestrator-console',
  route: 'orchestrator/console/{*path}',
  methods: ['GET', 'HEAD'],
  handler: http('orchestrator', async (request) => {
    // orchestrator/console without the slash: relative asset URLs and the router need the folder form.
    if (request.params.path === undefined && !new URL(request.url).pathname.endsWith('/')) {
      return { status: 308, headers: { ...PAGE_HEADERS, Location: `${new URL(request.url).pathname}/`, 'Cache-Control': 'no-cache' } };
    }
    const found = lookupAsset(request.params.path);
    if (found.kind === 'invalid') throw badRequest(`Console path refused: ${found.reason}`, 'INVALID_PATH');
    if (found.kind === 'not-found') throw notFound(`The console has no file ${request.params.path?.slice(0, 200)}`, 'CONSOLE_FILE_NOT_FOUND');
    if (found.kind === 'not-built') throw new HttpError(503, 'Service unavailable', 'The administration console is not built: run npm run build', 'CONSOLE_NOT_BUILT');
    return serveAsset(request, found.asset);
  }),
};

/** GET orchestrator/console/config.json: the services' base URLs (public information; no token needed to read it). */
export const consoleConfigFunction: HttpFunction = {
  kind: 'http',
  name: 'orchestrator-console-config',
  route: 'orchestrator/console/config.json',
  methods: ['GET'],
  handler: http('orchestrator', async () => json(200, consoleConfig(), { ...PAGE_HEADERS, 'Cache-Control': 'no-cache' })),
};

const trendQuery = querySchema({ theme: { enum: TREND_THEMES }, tz: { maxLength: 64 } });

/** The trend chart response: SVG, sandboxed if opened directly, never stored (admin data). */
async function trendSvg(request: HttpRequest): Promise<HttpResponseInit> {
  const query = readQuery<{ theme?: TrendTheme; tz?: string }>(request, trendQuery);
  const chart = await trendChart(new Date(), query.theme ?? 'professional', checkTimeZone(query.tz ?? 'UTC'));
  return {
    status: 200,
    body: chart.svg,
    headers: {
      'Content-Type': 'image/svg+xml',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      'X-Content-Type-Options': 'nosniff',
      'X-Cache': chart.cache,
    },
  };
}

/** GET orchestrator/api/admin/dashboard/trend-chart?theme&tz: the overview's 24-hour trend drawn by the visual service (admin or super_admin only). */
export const trendChartFunction: HttpFunction = {
  kind: 'http', name: 'orchestrator-admin-trend-chart', route: 'orchestrator/api/admin/dashboard/trend-chart', methods: ['GET'],
  handler: http('orchestrator', async (request) => (await requireAdmin(request), trendSvg(request))),
};

export const consoleFunctions: HttpFunction[] = [consoleConfigFunction, consoleFilesFunction, trendChartFunction];
