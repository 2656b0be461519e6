/**
 * Chart.js drawing on a render thread: a chart's configuration to PNG, WebP, JPEG or SVG bytes.
 * Rasters are drawn on @napi-rs/canvas; SVG by our SVG context (svg-context.ts), which writes
 * elements as Chart.js draws and measures text on a raster canvas with the same fonts. Charts of
 * a shape an update handles exactly like a new chart are drawn on kept charts (below).
 */
import { Color } from '@kurkle/color';
import { createCanvas, SvgExportFlag, type Canvas, type SKRSContext2D, type SvgCanvas } from '@napi-rs/canvas';
import { Chart, type ChartConfiguration, type ChartItem, type Plugin } from 'chart.js/auto';
import { withPlugins } from './chart-plugins';
import { encodePng } from './png';
import { SvgContext } from './svg-context';
import { SvgTooLargeError, TooManyTicksError, type RenderTask } from './tasks';

export type ChartTask = Extract<RenderTask, { kind: 'chart' }>;

/** The input cannot be drawn (Chart.js refused the configuration, Graphviz the DOT source): the caller's input, answered with a 400. */
export class ChartConfigError extends Error {}

/**
 * How the thread draws: `extend` rewrites the options' font families (extra fonts; for Skia's SVG
 * canvas the text subsets first), `svgDefaultFamily` is the default family while Skia draws an SVG,
 * `keepCharts` false draws every chart anew, `skiaSvg` draws SVG with Skia's SVG canvas (the
 * writer before our SVG context, kept as the reference its tests and the bench compare against).
 */
export interface DrawSettings {
  extend<T>(options: T, svg: boolean): T;
  svgDefaultFamily: string;
  /** The `font-family` our SVG context names for a CSS family list (fonts.ts svgFontFamily). */
  svgFontFamily(list: string): string;
  keepCharts: boolean;
  skiaSvg?: boolean;
  /** Ticks per axis (tick-limit.ts). */
  maxTicks: number;
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

/** The Chart.js configuration of a task, without plugins; and its background colour. `skiaSvg`: families for Skia's SVG canvas. */
function configOf(task: ChartTask, skiaSvg: boolean, settings: DrawSettings) {
  const prepared = withPlugins(task.config, settings.maxTicks);
  const options = settings.extend((prepared.options ?? {}) as Record<string, unknown>, skiaSvg);
  // JPEG has no transparency: a transparent background would come out black.
  const background = task.format === 'jpeg' && /^(transparent|rgba\(.*,\s*0\))$/i.test(task.background.trim()) ? 'white' : task.background;
  const vector = task.format === 'svg';
  return {
    config: {
      ...prepared,
      options: { ...options, animation: false, responsive: false, maintainAspectRatio: false, devicePixelRatio: vector ? 1 : task.pixelRatio },
    } as unknown as ChartConfiguration,
    background,
  };
}

/** What a chart is drawn on: the item Chart.js is given, and how its drawing becomes bytes. */
interface Surface {
  item: ChartItem;
  /** The backing canvas's size (a raster at density d is d times the chart's). */
  size: { width: number; height: number };
  /** Called before each draw: an SVG document starts again with the initial state. */
  begin?(): void;
  encode(task: ChartTask): Buffer;
}

/**
 * Whether a background leaves no pixel transparent: the background plugin fills the whole canvas
 * before Chart.js draws, and everything after it is drawn over it (source-over), so every pixel of
 * a chart on an opaque background is opaque and premultiplied colour is straight colour already.
 */
const opaque = (background: string) => new Color(background).rgb.a === 1;

function encodeRaster(canvas: Canvas, task: ChartTask): Buffer {
  if (task.format === 'webp') return canvas.toBuffer('image/webp', 90);
  if (task.format === 'jpeg') return canvas.toBuffer('image/jpeg', 90);
  // The surface's own (premultiplied) pixels, converted while encoding unless the background is
  // opaque; 96 dpi per CSS pixel lets documents place a 2x image at its layout size.
  return encodePng(canvas.data(), canvas.width, canvas.height, 96 * task.pixelRatio, !opaque(task.background));
}

/**
 * The canvas, its context made to ignore an arc or an ellipse that is not finite, as the canvas
 * specification says (and browsers do). Skia's binding panics in Rust on one (@napi-rs/canvas,
 * "called Option::unwrap() on a None value" in sk.rs), and a panic there aborts the whole process,
 * every request of the instance with it: Chart.js draws one for an item it cannot place (a box
 * plot or violin without labels puts its points at x NaN). Found by the API document's generated
 * corpus (tests/platform/openapi-validator.test.ts); tests/visual/render-bounds.test.ts keeps it.
 */
function finiteArcs<C extends Canvas | SvgCanvas>(canvas: C): C {
  const context = canvas.getContext('2d');
  for (const name of ['arc', 'ellipse'] as const) {
    const draw = context[name] as (...args: unknown[]) => void;
    const finite = (...args: unknown[]) => {
      if (args.every((arg) => typeof arg !== 'number' || Number.isFinite(arg))) draw.apply(context, args);
    };
    Object.defineProperty(context, name, { value: finite, configurable: true, writable: true });
  }
  return canvas;
}

const rasterSurface = (canvas: Canvas): Surface => {
  finiteArcs(canvas);
  return { item: canvas as unknown as ChartItem, size: canvas, encode: (task) => encodeRaster(canvas, task) };
};

let measurer: SKRSContext2D | undefined;
/** The raster context SVG text is measured with (the thread's fonts are registered for it). */
const measuringContext = () => (measurer ??= createCanvas(1, 1).getContext('2d'));

function svgSurface(width: number, height: number, settings: DrawSettings): Surface {
  const context = new SvgContext(width, height, measuringContext(), (list) => settings.svgFontFamily(list));
  return {
    item: context.canvas as unknown as ChartItem,
    size: context.canvas,
    begin: () => context.reset(),
    encode: () => Buffer.from(context.document(), 'utf8'),
  };
}

/**
 * Skia's SVG document, without the empty `<text>` elements Skia writes where a text run holds
 * nothing it keeps (a lone space where the font changes): they show nothing and carry empty
 * coordinates.
 */
function skiaSvgContent(canvas: SvgCanvas): Buffer {
  const content = canvas.getContent();
  const svg = content.toString('utf8');
  const cleaned = svg.replace(/<text[^<>]*><\/text>/g, '');
  return cleaned.length === svg.length ? content : Buffer.from(cleaned, 'utf8');
}

/** A limit of ours refused the chart while it was drawn (its ticks, its SVG's size): passed on as it is, not as Chart.js's refusal. */
const isLimit = (error: unknown) => error instanceof TooManyTicksError || error instanceof SvgTooLargeError;

function newChart(surface: Surface, config: ChartConfiguration, background: { color: string }): Chart {
  try {
    return new Chart(surface.item, { ...config, plugins: [backgroundPlugin(background)] });
  } catch (error) {
    // A chart that fails while it is built stays among Chart.js's instances, holding its data and the canvas.
    try {
      Chart.getChart(surface.item)?.destroy();
    } catch {
      // Half built: what destroy could not release goes with the instance, no longer referenced.
    }
    if (isLimit(error)) throw error;
    throw new ChartConfigError((error as Error)?.message ?? String(error));
  }
}

/** Draws on a new chart, which is destroyed after encoding (destroy clears the canvas). */
function drawFresh(surface: Surface, task: ChartTask, settings: DrawSettings, skiaSvg = false): Buffer {
  const { config, background } = configOf(task, skiaSvg, settings);
  // The default family is global to the thread; a draw is synchronous, so it is set for this one alone.
  const family = Chart.defaults.font.family;
  if (skiaSvg) Chart.defaults.font.family = settings.svgDefaultFamily;
  surface.begin?.();
  try {
    const chart = newChart(surface, config, { color: background });
    try {
      return surface.encode(task);
    } finally {
      chart.destroy();
    }
  } finally {
    Chart.defaults.font.family = family;
  }
}

/** Skia's SVG canvas: the SVG writer before our context (the reference of its tests and the bench). */
function drawSkiaSvg(task: ChartTask, settings: DrawSettings): Buffer {
  const canvas = finiteArcs(createCanvas(task.width, task.height, SvgExportFlag.NoPrettyXML));
  return drawFresh({ item: canvas.getContext('2d') as unknown as ChartItem, size: canvas, encode: () => skiaSvgContent(canvas) }, task, settings, true);
}

/**
 * Kept charts: a chart built once per format, size and density and updated with each new
 * configuration of that kind, which saves about a fifth of the drawing (Chart.js's set-up of
 * scales, controllers and option resolvers). Only configurations of a shape an update handles
 * exactly like a new chart: a core chart type, no dataset of another type, none of the optional
 * plugins (their state lives in the chart). A test holds a kept chart's output equal to a new
 * chart's, byte for byte, raster and SVG. A kept chart whose update fails is dropped and the task
 * drawn on a new chart, which reports the error as usual.
 */
const KEEPABLE_TYPES: ReadonlySet<string> = new Set(['bar', 'line', 'pie', 'doughnut', 'radar', 'polarArea', 'scatter', 'bubble']);
const MAX_KEPT = 8;
/** Rasters up to this many pixels are kept (an 800x400 chart at 2x is 1.28 million): 8 kept canvases hold at most 64 MB per thread. */
const KEPT_MAX_PIXELS = 2_000_000;
interface Kept {
  surface: Surface;
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
  const vector = task.format === 'svg';
  const key = vector ? `svg ${task.width}x${task.height}` : `${task.width}x${task.height}@${task.pixelRatio}`;
  const entry = kept.get(key) ?? {
    surface: vector ? svgSurface(task.width, task.height, settings) : rasterSurface(createCanvas(task.width, task.height)),
    background: { color: '' },
  };
  kept.delete(key);
  // A chart at density d made the canvas d times its size; a new chart must find it at its CSS size again.
  const fitCanvas = () => {
    if (entry.surface.size.width !== task.width) entry.surface.size.width = task.width;
    if (entry.surface.size.height !== task.height) entry.surface.size.height = task.height;
  };
  const { config, background } = configOf(task, false, settings);
  let bytes: Buffer;
  if (settings.keepCharts && keepable(config)) {
    entry.background.color = background;
    entry.surface.begin?.();
    if (entry.chart && entry.type === config.type) {
      try {
        entry.chart.data = config.data;
        entry.chart.options = config.options!;
        entry.chart.update();
      } catch (error) {
        entry.chart.destroy();
        entry.chart = undefined;
        // Drawn anew it would be refused again, at the same cost.
        if (isLimit(error)) throw error;
      }
    } else {
      entry.chart?.destroy();
      entry.chart = undefined;
    }
    if (!entry.chart) {
      fitCanvas();
      entry.chart = newChart(entry.surface, config, entry.background);
      entry.type = config.type;
    }
    bytes = entry.surface.encode(task);
  } else {
    entry.chart?.destroy();
    entry.chart = undefined;
    fitCanvas();
    bytes = drawFresh(entry.surface, task, settings);
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
  if (task.format === 'svg' && settings.skiaSvg) return drawSkiaSvg(task, settings);
  if (task.format !== 'svg' && task.width * task.height * task.pixelRatio ** 2 > KEPT_MAX_PIXELS)
    return drawFresh(rasterSurface(createCanvas(task.width, task.height)), task, settings);
  return drawKept(task, settings);
}
