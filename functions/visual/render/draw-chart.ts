/**
 * Chart.js drawing on a render thread: a chart's configuration to PNG, WebP, JPEG or SVG bytes.
 * Raster charts at density 1 are drawn on kept charts (below); everything else on a new chart.
 */
import { createCanvas, SvgExportFlag, type Canvas, type SvgCanvas } from '@napi-rs/canvas';
import { Chart, type ChartConfiguration, type ChartItem, type Plugin } from 'chart.js/auto';
import { withPlugins } from './chart-plugins';
import { encodePng } from './png';
import type { RenderTask } from './tasks';

export type ChartTask = Extract<RenderTask, { kind: 'chart' }>;

/** The input cannot be drawn (Chart.js refused the configuration, Graphviz the DOT source): the caller's input, answered with a 400. */
export class ChartConfigError extends Error {}

/**
 * How the thread draws: `extend` rewrites the options' font families (extra fonts; for SVG the text
 * subsets first), `svgDefaultFamily` is the default family while an SVG is drawn, `keepCharts`
 * false draws every chart anew.
 */
export interface DrawSettings {
  extend<T>(options: T, svg: boolean): T;
  svgDefaultFamily: string;
  keepCharts: boolean;
}

/** Fills the canvas with the colour of `state` before each draw (a kept chart's colour changes per task). */
function backgroundPlugin(state: { color: string }): Plugin {
  return {
    id: 'background',
    beforeDraw(chart) {
      const { ctx } = chart;
      ctx.save();
      ctx.fillStyle = state.color;
      ctx.fillRect(0, 0, chart.width, chart.height);
      ctx.restore();
    },
  };
}

/** The Chart.js configuration of a task, without plugins; and its background colour. */
function configOf(task: ChartTask, svg: boolean, settings: DrawSettings) {
  const prepared = withPlugins(task.config);
  const options = settings.extend((prepared.options ?? {}) as Record<string, unknown>, svg);
  // JPEG has no transparency: a transparent background would come out black.
  const background = task.format === 'jpeg' && /^(transparent|rgba\(.*,\s*0\))$/i.test(task.background.trim()) ? 'white' : task.background;
  return {
    config: {
      ...prepared,
      options: { ...options, animation: false, responsive: false, maintainAspectRatio: false, devicePixelRatio: svg ? 1 : task.pixelRatio },
    } as unknown as ChartConfiguration,
    background,
  };
}

function encodeRaster(canvas: Canvas, task: ChartTask): Buffer {
  if (task.format === 'webp') return canvas.toBuffer('image/webp', 90);
  if (task.format === 'jpeg') return canvas.toBuffer('image/jpeg', 90);
  // The surface's own (premultiplied) pixels, converted while encoding; 96 dpi per CSS pixel lets
  // documents place a 2x image at its layout size.
  return encodePng(canvas.data(), canvas.width, canvas.height, 96 * task.pixelRatio, true);
}

/**
 * The SVG document, without the empty `<text>` elements Skia writes where a text run holds nothing
 * it keeps (a lone space where the font changes): they show nothing and carry empty coordinates.
 */
function svgContent(canvas: SvgCanvas): Buffer {
  const content = canvas.getContent();
  const svg = content.toString('utf8');
  const cleaned = svg.replace(/<text[^<>]*><\/text>/g, '');
  return cleaned.length === svg.length ? content : Buffer.from(cleaned, 'utf8');
}

const encode = (canvas: Canvas | SvgCanvas, task: ChartTask): Buffer => ('getContent' in canvas ? svgContent(canvas) : encodeRaster(canvas, task));

function newChart(canvas: Canvas | SvgCanvas, config: ChartConfiguration, background: { color: string }): Chart {
  try {
    return new Chart(canvas.getContext('2d') as unknown as ChartItem, { ...config, plugins: [backgroundPlugin(background)] });
  } catch (error) {
    throw new ChartConfigError((error as Error)?.message ?? String(error));
  }
}

/** Draws on a new chart, which is destroyed after encoding (destroy clears the canvas). */
function drawFresh(canvas: Canvas | SvgCanvas, task: ChartTask, settings: DrawSettings): Buffer {
  const svg = !('toBuffer' in canvas);
  const { config, background } = configOf(task, svg, settings);
  // The default family is global to the thread; a draw is synchronous, so it is set for this one alone.
  const family = Chart.defaults.font.family;
  if (svg) Chart.defaults.font.family = settings.svgDefaultFamily;
  try {
    const chart = newChart(canvas, config, { color: background });
    try {
      return encode(canvas, task);
    } finally {
      chart.destroy();
    }
  } finally {
    Chart.defaults.font.family = family;
  }
}

/**
 * Kept charts: a chart built once per type and size and updated with each new configuration of that
 * type and size, which saves about a fifth of the drawing (Chart.js's set-up of scales, controllers
 * and option resolvers). Only raster charts at density 1 (an SVG canvas only ever appends to its
 * document), and only configurations of a shape an update handles exactly like a new chart: a core
 * chart type, no dataset of another type, none of the optional plugins (their state lives in the
 * chart). A test holds a kept chart's output equal to a new chart's, byte for byte. A kept chart
 * whose update fails is dropped and the task drawn on a new chart, which reports the error as usual.
 */
const KEEPABLE_TYPES = new Set(['bar', 'line', 'pie', 'doughnut', 'radar', 'polarArea', 'scatter', 'bubble']);
const MAX_KEPT = 8;
/** Rasters up to this many pixels are kept (an 800x400 chart at 2x is 1.28 million): 8 kept canvases hold at most 64 MB per thread. */
const KEPT_MAX_PIXELS = 2_000_000;
interface Kept {
  canvas: Canvas;
  chart?: Chart;
  type?: string;
  background: { color: string };
}
const kept = new Map<string, Kept>();

function keepable(config: ChartConfiguration): boolean {
  const plugins = (config.options?.plugins ?? {}) as Record<string, unknown>;
  const datasets = (config.data?.datasets ?? []) as { type?: string }[];
  return (
    typeof config.type === 'string' &&
    KEEPABLE_TYPES.has(config.type) &&
    datasets.every((dataset) => dataset.type === undefined || dataset.type === config.type) &&
    ['datalabels', 'annotation', 'doughnutlabel', 'gaugeNeedle'].every((id) => plugins[id] === false)
  );
}

function drawKept(task: ChartTask, settings: DrawSettings): Buffer {
  const key = `${task.width}x${task.height}@${task.pixelRatio}`;
  const entry = kept.get(key) ?? { canvas: createCanvas(task.width, task.height), background: { color: '' } };
  kept.delete(key);
  // A chart at density d made the canvas d times its size; a new chart must find it at its CSS size again.
  const fitCanvas = () => {
    if (entry.canvas.width !== task.width) entry.canvas.width = task.width;
    if (entry.canvas.height !== task.height) entry.canvas.height = task.height;
  };
  const { config, background } = configOf(task, false, settings);
  let bytes: Buffer;
  if (settings.keepCharts && keepable(config)) {
    entry.background.color = background;
    if (entry.chart && entry.type === config.type) {
      try {
        entry.chart.data = config.data;
        entry.chart.options = config.options!;
        entry.chart.update();
      } catch {
        entry.chart.destroy();
        entry.chart = undefined;
      }
    } else {
      entry.chart?.destroy();
      entry.chart = undefined;
    }
    if (!entry.chart) {
      fitCanvas();
      entry.chart = newChart(entry.canvas, config, entry.background);
      entry.type = config.type;
    }
    bytes = encodeRaster(entry.canvas, task);
  } else {
    entry.chart?.destroy();
    entry.chart = undefined;
    fitCanvas();
    bytes = drawFresh(entry.canvas, task, settings);
  }
  // Kept only after a draw that finished (a failed one may leave its state behind); Map order makes the first key the least recently used.
  if (kept.size >= MAX_KEPT) {
    const [oldest] = kept.keys();
    kept.get(oldest)!.chart?.destroy();
    kept.delete(oldest);
  }
  kept.set(key, entry);
  return bytes;
}

/** A chart task's image bytes (PNG, WebP, JPEG or SVG; PDF is made from the PNG by the caller). */
export function drawChart(task: ChartTask, settings: DrawSettings): Buffer {
  if (task.format === 'svg') return drawFresh(createCanvas(task.width, task.height, SvgExportFlag.NoPrettyXML), task, settings);
  if (task.width * task.height * task.pixelRatio ** 2 > KEPT_MAX_PIXELS) return drawFresh(createCanvas(task.width, task.height), task, settings);
  return drawKept(task, settings);
}
