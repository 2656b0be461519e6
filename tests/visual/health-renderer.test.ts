/**
 * Visual's health reports the renderer without starting it: a cold instance's first call is often
 * its health, and the render threads (Chart.js and Skia in each) would start beside the probe's own
 * work. The fonts, the one thing that stops the pool, are checked instead; once the pool runs, its
 * state is reported.
 */
import { SETTINGS } from '../../functions/settings';
import { visualContext } from '../../functions/visual/context';
import { rendererState } from '../../functions/visual/health';
import { RENDER_POOL, renderPoolSize } from '../../functions/visual/render/renderer';
import { createLogger } from '../../shared/logging';
import { Platform } from '../../shared/platform';

const platforms: Platform[] = [];
afterAll(() => Promise.all(platforms.map((platform) => platform.close())));
const contextOf = (settings: Record<string, string>) => {
  const platform = new Platform({ VISUAL_RENDER_WORKERS: '1', ...settings }, undefined, { settings: SETTINGS, requireFor: [] });
  platforms.push(platform);
  return visualContext(platform, createLogger({ component: 'health-renderer test' }));
};

test('a pool not started is reported as starting, and stays not started; a started one by its state', async () => {
  const ctx = contextOf({});
  expect(rendererState(ctx)).toBe(`${renderPoolSize(ctx.platform)} render threads, starting`);
  expect(ctx.platform.has(RENDER_POOL)).toBe(false);
  ctx.platform.get(RENDER_POOL);
  expect(rendererState(ctx)).toBe('1 render threads, 0 renders pending, 0 done');
});

test('fonts that stop the pool fail the check without a thread started', () => {
  const ctx = contextOf({ VISUAL_FONT_DIR: '/nonexistent-font-dir' });
  expect(() => rendererState(ctx)).toThrow('/nonexistent-font-dir/DejaVuSans.ttf');
  expect(ctx.platform.has(RENDER_POOL)).toBe(false);
});
