import type { HttpMethod } from '@azure/functions';
import { config } from '../../shared/config';
import type { ServiceDefinition } from '../../shared/functions';
import { check, checkStorage, healthFunction } from '../../shared/health';
import { contractRoutes } from '../../shared/http/contract';
import { Code } from '../../shared/http/errors';
import { PUBLIC, refusal, RETRY_AFTER, routes } from '../../shared/http/route';
import { createLogger } from '../../shared/logging';
import { clearHotIndex, deleteExpired } from './cache';
import { renderPool, stopRenderPool } from './render/renderer';
import * as r from './routes';
import * as s from './schemas';

function describePool(): string {
  try {
    return `charts rendered in process on ${renderPool().size} threads`;
  } catch (error) {
    return `NOT AVAILABLE: ${(error as Error).message}`;
  }
}

const route = routes('visual');
const ALL: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];
// A render can fail or find every renderer busy, on every rendering route.
const RENDERING = { 500: refusal([Code.RENDER_FAILED, Code.INTERNAL]), 503: refusal([Code.RENDERER_BUSY], { headers: RETRY_AFTER }) };
const NO_RESOURCE = refusal([Code.RESOURCE_NOT_FOUND, Code.OPERATION_NOT_FOUND]);

/** The visual service's whole HTTP surface: one route per line (id, method, path, who may call, what it takes and answers, handler). */
// prettier-ignore
const ROUTES = [
  healthFunction('visual', () => ({
    storage: checkStorage,
    renderer: () => check(async () => (config().QUICKCHART_URL ? `QuickChart at ${config().QUICKCHART_URL}` : `${renderPool().size} render threads, ${renderPool().pending} renders pending, ${renderPool().renders} done`)),
  })),
  route('charts-render', 'POST', 'api/v1/charts/render', r.VISUAL_TOKEN, { body: s.CHARTS_BODY, otherMethods: 405, 200: s.CHARTS, ...RENDERING }, r.charts),
  route('infographics-generate', 'POST', 'api/v1/infographics/generate', r.VISUAL_TOKEN, { body: s.INFOGRAPHICS_BODY, otherMethods: 405, 200: s.INFOGRAPHICS, ...RENDERING }, r.infographics),
  route('presentations-generate', 'POST', 'api/v1/presentations/generate', r.VISUAL_TOKEN, { body: s.PRESENTATION_BODY, otherMethods: 405, 200: s.PRESENTATION, ...RENDERING }, r.presentations),
  route('diagrams-render', 'POST', 'api/v1/diagrams/render', r.VISUAL_TOKEN, { body: s.DIAGRAMS_BODY, otherMethods: 405, 200: s.DIAGRAMS, ...RENDERING }, r.diagrams),
  route('api', ALL, 'api/v1/{*rest}', PUBLIC, { params: s.API_REST, 404: NO_RESOURCE }, r.apiFallback),
  route('api-root', ALL, 'api/v1', PUBLIC, { 404: NO_RESOURCE }, r.apiFallback),
  route('cache', ['GET', 'HEAD'], 'cache/{key}', PUBLIC, { params: s.CACHE_KEY, 200: s.CACHED, 304: s.NOT_MODIFIED, 404: refusal([Code.CACHE_ENTRY_NOT_FOUND]) }, r.cached),
  route('quickchart-chart', ['GET', 'POST'], '/quickchart/chart', r.QUICKCHART_KEY, { body: s.QUICKCHART_BODY, 200: s.QUICKCHART_IMAGE }, r.quickChart),
];

/** Paths outside /api/v1/ answer 200 with a plain-text banner, written from the route table. */
const bannerLines = () => [
  'Visual rendering service (API v1)',
  ...ROUTES.filter((fn) => fn.doc.summary && !fn.doc.path.includes('{*') && fn.doc.id !== 'api-root').map(
    (fn) => `${fn.doc.methods.join('|').padEnd(8)} /${fn.doc.path}  ${fn.doc.summary}`,
  ),
  'API document: GET /visual/openapi.json; reference: /visual/docs',
];
const BANNER_ROUTE = route('banner', ALL, '{*rest}', PUBLIC, { 200: s.BANNER }, r.banner(bannerLines));

const DESCRIPTION =
  'Chart.js-style chart specifications to PNG, SVG or base64 with themes and a Blob cache; infographics, presentations and diagrams; a QuickChart-compatible endpoint.';

export const visual: ServiceDefinition = {
  name: 'visual',
  functions: [
    ...ROUTES,
    BANNER_ROUTE,
    ...contractRoutes('visual', DESCRIPTION, () => ROUTES),
    {
      kind: 'timer',
      name: 'visual-cache-cleanup',
      schedule: '0 */15 * * * *',
      handler: async () => {
        const deleted = await deleteExpired();
        if (deleted) createLogger({ service: 'visual' }).info('expired cache entries deleted', { deleted });
      },
    },
  ],
  async start() {
    // A renderer that cannot start (VISUAL_FONT_DIR without the fonts) must not stop the app's other
    // services: it is logged, the health route reports it, and renders answer 500 naming it.
    try {
      renderPool();
    } catch (error) {
      createLogger({ service: 'visual' }).error('render pool did not start', { error: (error as Error).message });
    }
  },
  async stop() {
    clearHotIndex();
    await stopRenderPool();
  },
  describe: () => [`renderer     ${config().QUICKCHART_URL ? `charts rendered by QuickChart at ${config().QUICKCHART_URL}` : describePool()}`],
};
