import type { HttpMethod } from '@azure/functions';
import { config } from '../../shared/config';
import type { ServiceDefinition } from '../../shared/functions';
import { check, healthFunction } from '../../shared/health';
import { http } from '../../shared/http/handler';
import { createLogger } from '../../shared/logging';
import { dispatchApi } from './api';
import { clearHotIndex, deleteExpired } from './cache';
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

function describePool(): string {
  try {
    return `charts rendered in process on ${renderPool().size} threads`;
  } catch (error) {
    return `NOT AVAILABLE: ${(error as Error).message}`;
  }
}

/** Every method reaches the handler, so it (not the host's routing) answers 405 and 404 as spec 7.3 says. */
const ALL_METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

export const visual: ServiceDefinition = {
  name: 'visual',
  functions: [
    healthFunction('visual', () => ({
      renderer: check(async () => (config().QUICKCHART_URL ? `QuickChart at ${config().QUICKCHART_URL}` : `${renderPool().size} render threads, ${renderPool().pending} renders pending, ${renderPool().renders} done`)),
    })),
    { kind: 'http', name: 'visual-api', route: 'visual/api/v1/{resource}/{*rest}', methods: ALL_METHODS, handler: http('visual', dispatchApi) },
    // `/api/v1/` with no resource is an unknown resource (404), not the banner.
    { kind: 'http', name: 'visual-api-root', route: 'visual/api/v1', methods: ALL_METHODS, handler: http('visual', dispatchApi) },
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
