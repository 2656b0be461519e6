import { check, checkStorage, healthFunction } from '../../shared/health';
import { visualContext, type VisualContext } from './context';
import { RENDER_POOL, renderFonts, renderPoolSize } from './render/renderer';

/**
 * Where charts are drawn, and how busy: the QuickChart server when QUICKCHART_URL is set, else the
 * render pool. A pool not started yet (a cold instance's first call is its health) is not started
 * here: its threads would load Chart.js and Skia beside the probe's own work, and the service's
 * start makes it moments later; its fonts are checked instead, the one thing that stops it.
 */
export function rendererState(ctx: Pick<VisualContext, 'config' | 'renderPool' | 'platform'>): string {
  const quickchart = ctx.config.QUICKCHART_URL;
  if (quickchart) return `QuickChart at ${quickchart}`;
  if (!ctx.platform.has(RENDER_POOL)) {
    renderFonts(ctx.config);
    return `${renderPoolSize(ctx.platform)} render threads, starting`;
  }
  const pool = ctx.renderPool;
  return `${pool.size} render threads, ${pool.pending} renders pending, ${pool.renders} done`;
}

/** GET /visual/health: the result cache's container and the renderer. */
export const HEALTH = healthFunction('visual', visualContext, (ctx) => ({
  storage: () => checkStorage(ctx.storage, ctx.config.VISUAL_CACHE_CONTAINER),
  renderer: () => check(async () => rendererState(ctx)),
}));
