import { validate } from '../../shared/http/body';
import { hashKey } from './canonical';
import { expiryFromNow } from './cache';
import { chartJsConfig, sizeOf, validateChart, type ChartSpec } from './chart-spec';
import { failAsRendering, invalidChartsArray, tooManyItems } from './errors';
import type { Limits } from './limits';
import type { VisualContext } from './context';
import { renderChartTask, type ChartDrawer } from './render/renderer';
import {
  allOrStop,
  CONTENT_TYPES,
  FORMATS,
  QUALITIES,
  cachedOrRendered,
  imageFormatOf,
  imageResult,
  newStats,
  type Format,
  type Quality,
  type RenderStats,
} from './results';
import { themeOf, type Theme } from './themes';
import { MAX_PIXELS } from './render/tasks';

export { MAX_PIXELS } from './render/tasks';

export const renderOptionsSchema = {
  type: 'object',
  properties: {
    format: { enum: FORMATS },
    quality: { enum: QUALITIES },
    theme: { type: 'string', maxLength: 50 },
  },
};

/**
 * The largest density up to `wanted` at which a width x height image stays within MAX_PIXELS,
 * rounded down to a thousandth so that the rounded-up raster still fits.
 */
export const fittingDensity = (wanted: number, width: number, height: number): number =>
  Math.min(wanted, Math.floor(Math.sqrt(MAX_PIXELS / (width * height)) * 1000) / 1000);

/**
 * PNG pixel density: high quality draws at 2x (print and high-DPI screens), reduced to stay within
 * MAX_PIXELS; never below 1x (an image too large even at 1x is refused, IMAGE_TOO_LARGE).
 */
export function pixelRatio(quality: Quality, width: number, height: number): number {
  if (quality === 'standard') return 1;
  return Math.max(1, fittingDensity(2, width, height));
}

/** format, quality and theme of a request body, with their defaults (an unknown theme is professional). */
export function renderOptions(body: object): { format: Format; quality: Quality; theme: Theme } {
  const options = validate<{ format?: Format; quality?: Quality; theme?: string }>(renderOptionsSchema, body);
  return { format: options.format ?? 'png', quality: options.quality ?? 'high', theme: themeOf(options.theme) };
}

/** Checks the request body of charts/render: the charts array first (400 Invalid charts array), then limits, options and each chart. */
export function parseChartsRequest(body: unknown, l: Limits) {
  const charts = (body as { charts?: unknown } | null)?.charts;
  if (!body || typeof body !== 'object' || Array.isArray(body) || !Array.isArray(charts)) {
    throw invalidChartsArray('The body must be a JSON object whose "charts" is an array of chart specifications');
  }
  if (charts.length === 0) throw invalidChartsArray('"charts" is empty; give at least one chart specification');
  if (charts.length > l.maxItems) throw tooManyItems('charts', charts.length, l.maxItems);
  return { ...renderOptions(body), charts: charts.map((chart, i) => validateChart(chart, i, l)) };
}

/** Renders one chart to image bytes (PNG or SVG) on the pool or the QuickChart server; `signal` drops it from the pool's queue. */
export async function renderChartImage(ctx: ChartDrawer, spec: ChartSpec, theme: Theme, format: 'png' | 'svg', quality: Quality, signal?: AbortSignal) {
  const { width, height } = sizeOf(spec);
  return failAsRendering(`Chart "${spec.id ?? ''}"`, () =>
    renderChartTask(
      ctx,
      {
        kind: 'chart',
        config: chartJsConfig(spec, theme),
        width,
        height,
        pixelRatio: pixelRatio(quality, width, height),
        format,
        background: theme.backgroundColor,
      },
      signal,
    ),
  );
}

/** The cache key of a chart: its specification without the id (the id does not change the image) and the render options. */
export function chartKey(spec: ChartSpec, format: Format, quality: Quality, theme: Theme): string {
  const { width, height } = sizeOf(spec);
  const { id: _id, ...content } = spec;
  return hashKey('chart', content, format, quality, theme.name, width, height);
}

async function chartResult(
  ctx: VisualContext,
  spec: ChartSpec & { id: string },
  format: Format,
  quality: Quality,
  theme: Theme,
  stats: RenderStats,
  signal: AbortSignal,
) {
  const imageFormat = imageFormatOf(format);
  const entry = await cachedOrRendered(ctx, chartKey(spec, format, quality, theme), CONTENT_TYPES[imageFormat], format === 'base64', stats, 'draw-first', () =>
    renderChartImage(ctx, spec, theme, imageFormat, quality, signal),
  );
  return imageResult(ctx.config, spec.id, entry, format, { ...sizeOf(spec), title: spec.options?.title, description: spec.options?.description });
}

/** POST charts/render: every chart in parallel (cache hits skip rendering), results in request order; the first failure stops the rest. */
export async function renderCharts(ctx: VisualContext, body: unknown) {
  const request = parseChartsRequest(body, ctx.limits);
  const stats = newStats();
  const charts = await allOrStop(request.charts, (spec, signal) => chartResult(ctx, spec, request.format, request.quality, request.theme, stats, signal));
  return {
    body: {
      success: true as const,
      charts,
      cacheKey: hashKey(
        'charts',
        charts.map((c) => c.imageUrl),
      ),
      expiresAt: expiryFromNow(ctx),
    },
    stats,
  };
}
