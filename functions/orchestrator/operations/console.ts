import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { LiveUser } from '../../../shared/auth/live-session';
import { badRequest, Code, notFound, serviceUnavailable } from '../../../shared/http/errors';
import type { Config } from '../../../shared/config';
import { json } from '../../../shared/http/handler';
import type { Infer } from '../../../shared/http/schemas';
import { consoleAssets, lookupAsset, type Asset } from '../console/assets';
import { consoleConfig, consoleCsp } from '../console/client-config';
import { checkTimeZone, trendChart } from '../console/trend-chart';
import { op } from '../context';
import type * as s from '../schemas';

/** Headers of every console response: the page may not be framed, sniffed or leak its address. */
const PAGE_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY' };

function serveAsset(cfg: Config, request: HttpRequest, asset: Asset): HttpResponseInit {
  const headers: Record<string, string> = {
    ...PAGE_HEADERS,
    'Content-Type': asset.contentType,
    ETag: asset.etag,
    // Hashed files never change under their name; index.html (and the SPA fallback) is revalidated on every load, so a deployment shows at once.
    'Cache-Control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    'Content-Security-Policy': consoleCsp(cfg),
    Vary: 'Accept-Encoding',
  };
  if (request.headers.get('if-none-match') === asset.etag) return { status: 304, headers };
  const gzip = asset.gzip && /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
  if (gzip) headers['Content-Encoding'] = 'gzip';
  return { status: 200, headers, body: gzip ? asset.gzip! : asset.body };
}

/**
 * The folder form of a path, as a path with exactly one leading slash and no empty segment: a
 * request for `/.//orchestrator/console` must not be sent to `//orchestrator/console/`, which a
 * browser reads as the host `orchestrator`.
 */
export const folderLocation = (path: string): string => `/${path.split('/').filter(Boolean).join('/')}/`;

/** GET|HEAD orchestrator/console/{*path}: the console's static files, with index.html for every page path of the single-page app. */
export const consoleFiles = op<undefined, unknown, unknown, Infer<typeof s.CONSOLE_PATH>>(
  'The administration console: its page and files',
  async ({ request, params, ctx }) => {
    // orchestrator/console without the slash: relative asset URLs and the router need the folder form.
    const path = new URL(request.url).pathname;
    if (params.path === undefined && !path.endsWith('/')) {
      return { status: 308, headers: { ...PAGE_HEADERS, Location: folderLocation(path), 'Cache-Control': 'no-cache' } };
    }
    const found = lookupAsset(params.path, consoleAssets(ctx));
    if (found.kind === 'invalid') throw badRequest(`Console path refused: ${found.reason}`, Code.INVALID_PATH);
    if (found.kind === 'not-found') throw notFound(`The console has no file ${params.path?.slice(0, 200)}`, Code.CONSOLE_FILE_NOT_FOUND);
    if (found.kind === 'not-built') throw serviceUnavailable('The administration console is not built: run npm run build', Code.CONSOLE_NOT_BUILT);
    return serveAsset(ctx.config, request, found.asset);
  },
);

/** GET orchestrator/console/config.json: the services' base URLs (public information; no token needed to read it). */
export const consoleConfigFile = op('Where the console finds each service (their base URLs)', async ({ ctx }) =>
  json(200, consoleConfig(ctx.config), { ...PAGE_HEADERS, 'Cache-Control': 'no-cache' }),
);

/** GET orchestrator/api/admin/dashboard/trend-chart: the overview's 24-hour trend drawn by the visual service; SVG, sandboxed if opened directly, never stored (admin data). */
export const trendChartSvg = op<LiveUser, unknown, Infer<typeof s.TREND_QUERY>>(
  'The 24-hour hourly trend as an SVG chart drawn by the visual service (themed, cached there)',
  async ({ ctx, query }) => {
    const chart = await trendChart(ctx, ctx.now(), query.theme, checkTimeZone(query.tz), query.layout);
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
  },
);
