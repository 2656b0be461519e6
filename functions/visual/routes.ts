import type { HttpMethod } from '@azure/functions';
import { Code } from '../../shared/http/errors';
import { PUBLIC, refusal, RETRY_AFTER, routes } from '../../shared/http/route';
import { visualContext } from './context';
import { QUICKCHART_KEY, VISUAL_TOKEN } from './guards';
import { HEALTH } from './health';
import { refuseCharts } from './charts';
import { refuseDiagrams } from './diagrams';
import { refuseInfographics } from './infographics';
import * as api from './operations/api';
import { banner } from './operations/banner';
import { cached } from './operations/cache';
import { quickChart } from './operations/quickchart';
import { refusePresentation } from './presentations';
import * as s from './schemas';

const route = routes('visual', visualContext);
const ALL: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];
// A render can fail or find every renderer busy, on every rendering route.
const RENDERING = { 500: refusal([Code.RENDER_FAILED, Code.INTERNAL]), 503: refusal([Code.RENDERER_BUSY], { headers: RETRY_AFTER }) };
const NO_RESOURCE = refusal([Code.RESOURCE_NOT_FOUND, Code.OPERATION_NOT_FOUND]);

/** The visual service's whole HTTP surface: one route per line (id, method, path, who may call, what it takes and answers, handler). */
// prettier-ignore
export const ROUTES = [
  HEALTH,
  route('charts-render', 'POST', 'api/v1/charts/render', VISUAL_TOKEN, { body: { ...s.CHARTS_BODY, refuse: refuseCharts }, otherMethods: 405, 200: s.CHARTS, ...RENDERING }, api.charts),
  route('infographics-generate', 'POST', 'api/v1/infographics/generate', VISUAL_TOKEN, { body: { ...s.INFOGRAPHICS_BODY, refuse: refuseInfographics }, otherMethods: 405, 200: s.INFOGRAPHICS, ...RENDERING }, api.infographics),
  route('presentations-generate', 'POST', 'api/v1/presentations/generate', VISUAL_TOKEN, { body: { ...s.PRESENTATION_BODY, refuse: refusePresentation }, otherMethods: 405, 200: s.PRESENTATION, ...RENDERING }, api.presentations),
  route('diagrams-render', 'POST', 'api/v1/diagrams/render', VISUAL_TOKEN, { body: { ...s.DIAGRAMS_BODY, refuse: refuseDiagrams }, otherMethods: 405, 200: s.DIAGRAMS, ...RENDERING }, api.diagrams),
  route('api', ALL, 'api/v1/{*rest}', PUBLIC, { params: s.API_REST, 404: NO_RESOURCE }, api.apiFallback),
  route('api-root', ALL, 'api/v1', PUBLIC, { 404: NO_RESOURCE }, api.apiFallback),
  route('cache', ['GET', 'HEAD'], 'cache/{key}', PUBLIC, { params: s.CACHE_KEY, 200: s.CACHED, 304: s.NOT_MODIFIED, 404: refusal([Code.CACHE_ENTRY_NOT_FOUND]) }, cached),
  route('quickchart-chart', ['GET', 'POST'], '/quickchart/chart', QUICKCHART_KEY, { body: s.QUICKCHART_BODY, 200: s.QUICKCHART_IMAGE }, quickChart),
];

/** Paths outside /api/v1/ answer 200 with a plain-text banner, written from the route table. */
const bannerLines = () => [
  'Visual rendering service (API v1)',
  ...ROUTES.filter((fn) => fn.doc.summary && !fn.doc.path.includes('{*') && fn.doc.id !== 'api-root').map(
    (fn) => `${fn.doc.methods.join('|').padEnd(8)} /${fn.doc.path}  ${fn.doc.summary}`,
  ),
  'API document: GET /visual/openapi.json; reference: /visual/docs',
];
export const BANNER_ROUTE = route('banner', ALL, '{*rest}', PUBLIC, { 200: s.BANNER }, banner(bannerLines));

export const DESCRIPTION =
  'Chart.js-style chart specifications to PNG, SVG or base64 with themes and a Blob cache; infographics, presentations and diagrams; a QuickChart-compatible endpoint.';
