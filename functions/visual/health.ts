import { check, checkStorage, healthFunction } from '../../shared/health';
import { visualContext, type VisualContext } from './context';

/** Where charts are drawn, and how busy: the QuickChart server when QUICKCHART_URL is set, else the render pool. */
export function rendererState(ctx: Pick<VisualContext, 'config' | 'renderPool'>): string {
  const quickchart = ctx.config.QUICKCHART_URL;
  if (quickchart) return `QuickChart at ${quickchart}`;
  const pool = ctx.renderPool;
  return `${pool.size} render threads, ${pool.pending} renders pending, ${pool.renders} done`;
}

/** GET /visual/health: the result cache's container and the renderer. */
export const HEALTH = healthFunction('visual', visualContext, (ctx) => ({
  storage: () => checkStorage(ctx.storage, ctx.config.VISUAL_CACHE_CONTAINER),
  renderer: () => check(async () => rendererState(ctx)),
}));
