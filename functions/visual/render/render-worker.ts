/**
 * A render thread of the pool. Chart.js draws on @napi-rs/canvas; Graphviz (WebAssembly) lays out
 * diagrams; resvg rasterises SVG; pptxgenjs zips decks. All of it is synchronous CPU work, which is why it runs here and
 * not on the request thread. Inputs are JSON: nothing received is ever evaluated as code.
 */
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { createCanvas, GlobalFonts, SvgExportFlag, type Canvas, type SvgCanvas } from '@napi-rs/canvas';
import { encodePng } from './png';
import { Resvg } from '@resvg/resvg-js';
import { Chart, type ChartConfiguration, type ChartItem, type Plugin } from 'chart.js/auto';
import { withPlugins } from './chart-plugins';
import { buildDeck } from './deck';
import { extraFontFamily, FONT_ALIASES, fontFiles, withFallbackFamilies, type RenderFonts } from './fonts';
import { stripLinks } from './strip-links';
import type { RenderTask, WorkerReply, WorkerRequest } from './tasks';

const fonts = (workerData as { fonts: RenderFonts }).fonts;
const files = fontFiles(fonts.dir);
for (const alias of FONT_ALIASES) for (const file of files) GlobalFonts.registerFromPath(file, alias);
// Skia draws a glyph the first family lacks from a later family of the same font list, never from
// a font the list does not name: so the extra fonts are appended to every family a chart names.
const extraFamilies = fonts.extra.map((file) => {
  GlobalFonts.registerFromPath(file, extraFontFamily(file));
  return extraFontFamily(file);
});
if (extraFamilies.length) Chart.defaults.font.family = withFallbackFamilies(Chart.defaults.font.family ?? 'sans-serif', extraFamilies);

/** The configuration with the extra families appended to every `family` it names (only when there are extra fonts). */
function withExtraFamilies<T>(value: T): T {
  if (!extraFamilies.length || !value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(withExtraFamilies) as T;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    out[key] = key === 'family' && typeof item === 'string' ? withFallbackFamilies(item, extraFamilies) : withExtraFamilies(item);
  return out as T;
}

function backgroundPlugin(color: string): Plugin {
  return {
    id: 'background',
    beforeDraw(chart) {
      const { ctx } = chart;
      ctx.save();
      ctx.fillStyle = color;
      ctx.fillRect(0, 0, chart.width, chart.height);
      ctx.restore();
    },
  };
}

// Raster canvases of the sizes drawn most, kept for reuse: allocating one is a tenth of a render.
// Only at density 1 (Chart.js resizes the canvas to the density and reads its size back as the
// chart's), and only after a render that finished (a failed one may leave its state behind).
const MAX_KEPT_CANVASES = 8;
const keptCanvases = new Map<string, Canvas>();

/** The chart's configuration could not be drawn (Chart.js refused it): the caller's input, answered with a 400. */
class ChartConfigError extends Error {}

type ChartTask = Extract<RenderTask, { kind: 'chart' }>;

function encodeRaster(canvas: Canvas, task: ChartTask): Buffer {
  if (task.format === 'webp') return canvas.toBuffer('image/webp', 90);
  if (task.format === 'jpeg') return canvas.toBuffer('image/jpeg', 90);
  // getImageData gives straight alpha (the raw surface is premultiplied); 96 dpi per CSS pixel lets
  // documents place a 2x image at its layout size.
  const image = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
  return encodePng(image.data, image.width, image.height, 96 * task.pixelRatio);
}

function drawChart(canvas: Canvas | SvgCanvas, task: ChartTask): Buffer {
  const svg = 'getContent' in canvas;
  const prepared = withPlugins(task.config);
  const options = withExtraFamilies((prepared.options ?? {}) as Record<string, unknown>);
  // JPEG has no transparency: a transparent background would come out black.
  const background = task.format === 'jpeg' && /^(transparent|rgba\(.*,\s*0\))$/i.test(task.background.trim()) ? 'white' : task.background;
  const config = {
    ...prepared,
    options: { ...options, animation: false, responsive: false, maintainAspectRatio: false, devicePixelRatio: svg ? 1 : task.pixelRatio },
    plugins: [backgroundPlugin(background)],
  } as unknown as ChartConfiguration;
  let chart: Chart;
  try {
    chart = new Chart(canvas.getContext('2d') as unknown as ChartItem, config);
  } catch (error) {
    throw new ChartConfigError((error as Error)?.message ?? String(error));
  }
  try {
    // Encode before destroy: destroy clears the canvas.
    return svg ? canvas.getContent() : encodeRaster(canvas, task);
  } finally {
    chart.destroy();
  }
}

function renderChart(task: ChartTask): Buffer {
  if (task.format === 'svg') return drawChart(createCanvas(task.width, task.height, SvgExportFlag.NoPrettyXML), task);
  if (task.pixelRatio !== 1) return drawChart(createCanvas(task.width, task.height), task);
  const key = `${task.width}x${task.height}`;
  const canvas = keptCanvases.get(key) ?? createCanvas(task.width, task.height);
  keptCanvases.delete(key);
  const bytes = drawChart(canvas, task);
  if (keptCanvases.size >= MAX_KEPT_CANVASES) keptCanvases.delete(keptCanvases.keys().next().value!);
  keptCanvases.set(key, canvas);
  return bytes;
}

/** A one-page PDF holding the chart as a PNG, the page the chart's layout size (QuickChart's pdf format). */
async function chartPdf(task: ChartTask): Promise<Buffer> {
  const png = renderChart({ ...task, format: 'png' });
  const PDFDocument = require('pdfkit') as typeof import('pdfkit');
  const width = task.width * 0.75; // CSS pixels to points
  const height = task.height * 0.75;
  const doc = new PDFDocument({ size: [width, height], margin: 0, info: { Title: 'Chart', Producer: 'visual' } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.image(png, 0, 0, { width, height });
  doc.end();
  return done;
}

function svgToPng(svg: string, pixelRatio: number): Buffer {
  const resvg = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: pixelRatio },
    font: {
      fontFiles: [...files, ...fonts.extra.filter((file) => /\.(ttf|otf|ttc)$/i.test(file))],
      loadSystemFonts: false,
      defaultFontFamily: 'DejaVu Sans',
      sansSerifFamily: 'DejaVu Sans',
    },
  });
  return resvg.render().asPng();
}

type GraphvizInstance = { dot(source: string, format?: 'svg'): string };
let graphviz: Promise<GraphvizInstance> | undefined;
function loadGraphviz(): Promise<GraphvizInstance> {
  graphviz ??= (require('@hpcc-js/wasm-graphviz') as { Graphviz: { load(): Promise<GraphvizInstance> } }).Graphviz.load();
  return graphviz;
}

async function run(task: RenderTask): Promise<Buffer> {
  switch (task.kind) {
    case 'chart':
      return task.format === 'pdf' ? chartPdf(task) : renderChart(task);
    case 'svg-to-png':
      return svgToPng(task.svg, task.pixelRatio);
    case 'dot': {
      const svg = stripLinks((await loadGraphviz()).dot(task.source, 'svg'));
      return task.format === 'png' ? svgToPng(svg, 1) : Buffer.from(svg, 'utf8');
    }
    case 'pptx':
      return buildDeck(task.deck);
  }
}

parentPort!.on('message', async ({ id, task }: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    const bytes = await run(task);
    reply = { id, ok: true, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), threadId };
  } catch (error) {
    reply = { id, ok: false, error: (error as Error)?.message ?? String(error), invalidInput: error instanceof ChartConfigError };
  }
  parentPort!.postMessage(reply);
});
