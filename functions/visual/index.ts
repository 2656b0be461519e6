import type { HttpMethod } from '@azure/functions';
import { config } from '../../shared/config';
import type { ServiceDefinition } from '../../shared/functions';
import { check, healthFunction } from '../../shared/health';
import { http } from '../../shared/http/handler';
import { createLogger } from '../../shared/logging';
import { dispatchApi } from './api';
import { deleteExpired } from './cache';
import { serveCached } from './cache-route';
import { quickChartEndpoint } from './quickchart';
import { renderPool, stopRenderPool } from './render/renderer';

const BANNER = [
  'Visual rendering service (API v1)',
  'POST /visual/api/v1/charts/render',
  'POST /visual/api/v1/infographics/generate',
  'POST /visual/api/v1/presentations/generate',
  'POST /visual/api/v1/diagrams/render',
  'GET  /visual/cache/{key}',
  'QuickChart-compatible: GET|POST /quickchart/chart',
  '',
].join('\n');

/** Every method reaches the handler, so it (not the host's routing) answers 405 and 404 as spec 7.3 says. */
const ALL_METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

export const visual: ServiceDefinition = {
  name: 'visual',
  functions: [
    healthFunction('visual', () => ({
      renderer: check(async () => (config().QUICKCHART_URL ? `QuickChart at ${config().QUICKCHART_URL}` : `${renderPool().size} render threads, ${renderPool().renders} renders`)),
    })),
    { kind: 'http', name: 'visual-api', route: 'visual/api/v1/{resource?}/{*rest}', methods: ALL_METHODS, handler: http('visual', dispatchApi) },
    { kind: 'http', name: 'visual-cache', route: 'visual/cache/{key}', methods: ['GET', 'HEAD'], handler: http('visual', serveCached) },
    {
      kind: 'http',
      name: 'visual-banner',
      route: 'visual/{*rest}',
      methods: ALL_METHODS,
      handler: async () => ({ status: 200, body: BANNER, headers: { 'Content-Type': 'text/plain; charset=utf-8' } }),
    },
    { kind: 'http', name: 'quickchart-chart', route: 'quickchart/chart', methods: ['GET', 'POST'], handler: http('visual', quickChartEndpoint) },
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
    renderPool();
  },
  stop: stopRenderPool,
  describe: () => [`visual        ${config().QUICKCHART_URL ? `charts rendered by QuickChart at ${config().QUICKCHART_URL}` : `charts rendered in process on ${renderPool().size} threads`}`],
};
