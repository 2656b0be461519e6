import { validate } from '../../shared/http/body';
import { hashKey } from './canonical';
import { cacheUrl, expiryFromNow, hitCached, storeCached, type CachedEntry } from './cache';
import { chartJsConfig, sizeOf, validateChart, type ChartSpec } from './chart-spec';
import { invalidChartsArray, renderingFailed, tooManyItems } from './errors';
import type { Limits } from './limits';
import { RenderError } from './render/pool';
import { renderChartTask } from './render/renderer';
import { themeOf, type Theme } from './themes';

export const FORMATS = ['png', 'svg', 'base64'] as const;
export const QUALITIES = ['high', 'standard'] as const;
export type Format = (typeof FORMATS)[number];
export type Quality = (typeof QUALITIES)[number];

/** Largest PNG drawn at high quality: the 2x density is reduced for big charts to stay within memory. */
const MAX_PIXELS = 16_000_000;

export const CONTENT_TYPES = { png: 'image/png', svg: 'image/svg+xml' } as const;

const optionsSchema = {
  type: 'object',
  properties: {
    format: { enum: FORMATS },
    quality: { enum: QUALITIES },
    theme: { type: 'string', maxLength: 50 },
  },
};

export interface ChartResult {
  id: string;
  imageUrl: string;
  base64: string | null;
  metadata: { width: number; height: number; size: number; generatedAt: string; title: string | null; description: string | null };
}

/** What happened while answering, for the X-Cache / X-Render-* headers. */
export interface RenderStats {
  hits: number;
  renders: number;
  threadIds: number[];
}

/** PNG pixel density: high quality draws at 2x (print and high-DPI screens), within MAX_PIXELS. */
export function pixelRatio(quality: Quality, width: number, height: number): number {
  if (quality === 'standard') return 1;
  return Math.max(1, Math.min(2, Math.sqrt(MAX_PIXELS / (width * height))));
}

/** Checks the request body of charts/render: spec 7.3 first (charts array), then limits, options and each chart. */
export function parseChartsRequest(body: unknown, l: Limits) {
  const charts = (body as { charts?: unknown } | null)?.charts;
  if (!body || typeof body !== 'object' || Array.isArray(body) || !Array.isArray(charts)) {
    throw invalidChartsArray('The body must be a JSON object whose "charts" is an array of chart specifications');
  }
  if (charts.length === 0) throw invalidChartsArray('"charts" is empty; give at least one chart specification');
  if (charts.length > l.maxItems) throw tooManyItems('charts', charts.length, l.maxItems);
  const options = validate<{ format?: Format; quality?: Quality; theme?: string }>(optionsSchema, body);
  return {
    charts: charts.map((chart, i) => validateChart(chart, i, l)),
    format: options.format ?? 'png',
    quality: options.quality ?? 'high',
    theme: themeOf(options.theme),
  };
}

/** Renders one chart to image bytes (PNG or SVG) on the pool or the QuickChart server. */
export async function renderChartImage(spec: ChartSpec, theme: Theme, format: 'png' | 'svg', quality: Quality) {
  const { width, height } = sizeOf(spec);
  try {
    return await renderChartTask({
      kind: 'chart',
      config: chartJsConfig(spec, theme),
      width,
      height,
      pixelRatio: pixelRatio(quality, width, height),
      format,
      background: theme.backgroundColor,
    });
  } catch (error) {
    if (error instanceof RenderError) throw renderingFailed(`Chart "${spec.id ?? ''}": ${error.message}`);
    throw error;
  }
}

async function chartResult(spec: ChartSpec & { id: string }, format: Format, quality: Quality, theme: Theme, stats: RenderStats): Promise<ChartResult> {
  const { width, height } = sizeOf(spec);
  const imageFormat = format === 'svg' ? 'svg' : 'png';
  const { id, ...content } = spec;
  const key = hashKey('chart', content, format, quality, theme.name, width, height);
  let entry: CachedEntry | undefined = await hitCached(key, format === 'base64');
  if (entry) {
    stats.hits++;
  } else {
    const output = await renderChartImage(spec, theme, imageFormat, quality);
    stats.renders++;
    stats.threadIds.push(output.threadId);
    entry = { ...(await storeCached(key, output.bytes, CONTENT_TYPES[imageFormat])), bytes: Buffer.from(output.bytes) };
  }
  return {
    id,
    imageUrl: cacheUrl(key),
    base64: format === 'base64' ? `data:${CONTENT_TYPES.png};base64,${entry.bytes!.toString('base64')}` : null,
    metadata: { width, height, size: entry.size, generatedAt: entry.generatedAt, title: spec.options?.title ?? null, description: spec.options?.description ?? null },
  };
}

/** POST charts/render: every chart in parallel (cache hits skip rendering), results in request order. */
export async function renderCharts(body: unknown, l: Limits) {
  const request = parseChartsRequest(body, l);
  const stats: RenderStats = { hits: 0, renders: 0, threadIds: [] };
  const charts = await Promise.all(request.charts.map((spec) => chartResult(spec, request.format, request.quality, request.theme, stats)));
  return {
    body: { success: true as const, charts, cacheKey: hashKey('charts', charts.map((c) => c.imageUrl)), expiresAt: expiryFromNow() },
    stats,
  };
}

export function statsHeaders(stats: RenderStats): Record<string, string> {
  return {
    'X-Cache': stats.renders === 0 ? 'HIT' : stats.hits === 0 ? 'MISS' : 'PARTIAL',
    'X-Render-Count': String(stats.renders),
    'X-Render-Threads': [...new Set(stats.threadIds)].sort((a, b) => a - b).join(','),
  };
}
