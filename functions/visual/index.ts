import { visualConfig } from './settings';
import type { ServiceDefinition } from '../../shared/functions';
import { contractRoutes } from '../../shared/http/contract';
import { createLogger } from '../../shared/logging';
import type { Platform } from '../../shared/platform';
import { HOT_INDEX } from './cache-index';
import { TIMERS } from './timers';
import { RENDER_POOL } from './render/renderer';
import { ROUTES, DESCRIPTION, BANNER_ROUTE } from './routes';

/** The dev host's banner line: where charts are drawn (the QuickChart server, or the platform's pool and its size). */
function describeRenderer(platform: Platform): string {
  const quickchart = visualConfig(platform).QUICKCHART_URL;
  if (quickchart) return `charts rendered by QuickChart at ${quickchart}`;
  try {
    return `charts rendered in process on ${platform.get(RENDER_POOL).size} threads`;
  } catch (error) {
    return `NOT AVAILABLE: ${(error as Error).message}`;
  }
}

export const visual: ServiceDefinition = {
  name: 'visual',
  functions: [...ROUTES, BANNER_ROUTE, ...contractRoutes('visual', DESCRIPTION, () => ROUTES), ...TIMERS],
  async start(platform) {
    // A renderer that cannot start (VISUAL_FONT_DIR without the fonts) must not stop the app's other
    // services: it is logged, the health route reports it, and renders answer 500 naming it.
    try {
      platform.get(RENDER_POOL);
    } catch (error) {
      createLogger({ service: 'visual' }).error('render pool did not start', { error: (error as Error).message });
    }
  },
  async stop(platform) {
    await platform.release(HOT_INDEX);
    await platform.release(RENDER_POOL);
  },
  describe: (platform) => [`renderer     ${describeRenderer(platform)}`],
};
