import { visualConfig } from '../settings';
import type { VisualConfig } from '../settings';
import { member, type Platform } from '../../../shared/platform';
import { bundledFontDir, extraFontFiles, fontFiles, svgTextFonts, type RenderFonts } from './fonts';
import { SCRIPT_FONTS, scriptFontFile, scriptFontsBuilt } from '../../../shared/script-fonts';

/** The script fonts the build wrote (their paths only: a thread reads a file the first time a text needs it). */
const renderScriptFonts = () => (scriptFontsBuilt() ? SCRIPT_FONTS.map((font) => ({ id: font.id, family: font.family, file: scriptFontFile(font) })) : []);
import { RenderError, RenderPool } from './pool';
import { MAX_TICKS_PER_AXIS, type RenderOutput, type RenderTask } from './tasks';
import { trimTrailingSlashes } from '../../../shared/text';

/**
 * The platform's render pool, started on first use (or by the service's start hook), its threads
 * stopped when the platform closes. A pool that cannot start is not kept: the next render tries again.
 */
export const RENDER_POOL = member(
  'render pool',
  (platform): RenderPool => {
    const cfg = visualConfig(platform);
    return new RenderPool(
      renderPoolSize(platform),
      cfg.VISUAL_RENDER_TIMEOUT_MS,
      renderFonts(cfg),
      cfg.VISUAL_RENDER_QUEUE_MAX,
      undefined,
      // A category axis of every label of a full dataset always draws.
      { maxTicks: Math.max(MAX_TICKS_PER_AXIS, cfg.VISUAL_MAX_POINTS) },
    );
  },
  (pool) => pool.close(),
);

/** How many render threads the platform's pool runs. */
export const renderPoolSize = (platform: Platform) => RenderPool.defaultSize(visualConfig(platform).VISUAL_RENDER_WORKERS);

/**
 * The fonts the render threads load, checked: a misconfigured VISUAL_FONT_DIR or VISUAL_EXTRA_FONTS
 * throws RenderError naming it (every render then answers 500 Chart rendering failed, and health
 * names it, without starting a thread).
 */
export function renderFonts(cfg: VisualConfig): RenderFonts {
  const dir = cfg.VISUAL_FONT_DIR ?? bundledFontDir();
  try {
    fontFiles(dir);
    return { dir, extra: extraFontFiles(cfg.VISUAL_EXTRA_FONTS), svgText: svgTextFonts(dir), scripts: renderScriptFonts() };
  } catch (error) {
    throw new RenderError((error as Error).message);
  }
}

export type ChartTask = Extract<RenderTask, { kind: 'chart' }>;

/** Renders a chart on a self-hosted QuickChart server through its official client (QUICKCHART_URL). */
async function renderOnQuickChart(base: string, apiKey: string | undefined, task: ChartTask): Promise<RenderOutput> {
  const url = new URL(base);
  // The QuickChart client (and its fetch polyfill) loads only when a QuickChart server is configured.
  const QuickChart = require('quickchart-js') as typeof import('quickchart-js').default;
  const client = new QuickChart(apiKey)
    .setScheme(url.protocol.replace(':', '') as 'http' | 'https')
    // quickchart-js joins `${scheme}://${host}/chart`, so a base path rides along in the host.
    .setHost(`${url.host}${trimTrailingSlashes(url.pathname)}`)
    .setConfig(JSON.stringify(task.config))
    .setVersion('4')
    .setWidth(task.width)
    .setHeight(task.height)
    .setDevicePixelRatio(task.format === 'svg' ? 1 : task.pixelRatio)
    .setBackgroundColor(task.background)
    .setFormat(task.format);
  try {
    const bytes = await client.toBinary();
    return { bytes, threadId: 0 };
  } catch (error) {
    throw new RenderError(`QuickChart server: ${(error as Error).message}`);
  }
}

/** What drawing a chart reaches: the settings (QUICKCHART_URL, QUICKCHART_API_KEY) and the platform's render pool. */
export interface ChartDrawer {
  readonly config: VisualConfig;
  readonly renderPool: RenderPool;
}

/**
 * Renders one chart in process, or on the QuickChart server when QUICKCHART_URL is set; `signal`
 * drops it from the pool's queue (the QuickChart client takes none: a request sent there runs on).
 */
export function renderChartTask(ctx: ChartDrawer, task: ChartTask, signal?: AbortSignal): Promise<RenderOutput> {
  const quickchart = ctx.config.QUICKCHART_URL;
  return quickchart ? renderOnQuickChart(quickchart, ctx.config.QUICKCHART_API_KEY, task) : ctx.renderPool.run(task, signal);
}
