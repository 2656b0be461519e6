import type { ErrorObject } from 'ajv';
import { hashKey } from './canonical';
import { expiryFromNow } from './cache';
import { chartJsConfig, schemaErrors, sizeOf, validateChart, type ChartSpec } from './chart-spec';
import type { VisualContext } from './context';
import { errorsAt, errorsOfFields, failAsRendering, invalidChartsArray, refusalOf, refuseErrors, tooManyItems } from './errors';
import type { Limits } from './limits';
import { renderChartTask, type ChartDrawer } from './render/renderer';
import { MAX_PIXELS } from './render/tasks';
import { allOrStop, CONTENT_TYPES, cachedOrRendered, imageFormatOf, imageResult, newStats, type RenderStats } from './results';
import { chartsBody, cleanChartsBody, RENDER_OPTIONS, type ChartsBody, type Format, type Quality } from './schemas';
import { themeOf, type Theme } from './themes';

export { MAX_PIXELS } from './render/tasks';

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

/** format, quality and theme of a render body its schema passed, with their defaults (format `fallback`; an unknown theme is professional). */
export function renderOptions(
  body: { format?: Format; quality?: Quality; theme?: string },
  fallback: Format,
): { format: Format; quality: Quality; theme: Theme } {
  return { format: body.format ?? fallback, quality: body.quality ?? 'high', theme: themeOf(body.theme) };
}

/**
 * The options of a render body (format, quality, theme): refused as `Invalid body` when the schema
 * found them wrong, else with their defaults.
 */
export function checkedOptions(body: object, errors: readonly ErrorObject[], fallback: Format) {
  refuseErrors('body', errorsOfFields(errors, RENDER_OPTIONS));
  return renderOptions(body, fallback);
}

/**
 * The checks of a charts/render body in the order its refusals come: the charts array first (400
 * Invalid charts array), then their number (413), the options (400), and each chart (validateChart:
 * its numbers and texts, its schema, its data items). `errors` is the schema's verdict on the body
 * (chartsBody): the route's when it validated the body, else computed here.
 */
export function parseChartsRequest(body: unknown, l: Limits, errors: readonly ErrorObject[] = schemaErrors(chartsBody(l), body, cleanChartsBody)) {
  const charts = (body as { charts?: unknown } | null)?.charts;
  if (!body || typeof body !== 'object' || Array.isArray(body) || !Array.isArray(charts)) {
    throw invalidChartsArray('The body must be a JSON object whose "charts" is an array of chart specifications');
  }
  if (charts.length === 0) throw invalidChartsArray('"charts" is empty; give at least one chart specification');
  if (charts.length > l.maxItems) throw tooManyItems('charts', charts.length, l.maxItems);
  const options = checkedOptions(body, errors, 'png');
  return { ...options, charts: charts.map((chart, i) => validateChart(chart, i, l, errorsAt(errors, `/charts/${i}`))) };
}

/**
 * A charts/render body the schema refused, answered as the API words it: the checks above, then
 * QuickChart's extra types of each chart (chartJsConfig: a progressBar's datasets), as a render
 * would meet them.
 */
export const refuseCharts = refusalOf((body, l, errors) => {
  const request = parseChartsRequest(body, l, errors);
  for (const chart of request.charts) chartJsConfig(chart, request.theme);
});

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
export async function renderCharts(ctx: VisualContext, body: ChartsBody) {
  // The route validated the body: what is left are the checks beyond its schema.
  const request = parseChartsRequest(body, ctx.limits, []);
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
