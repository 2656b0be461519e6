/**
 * What a render thread does: Chart.js draws on @napi-rs/canvas; Graphviz (WebAssembly) lays out
 * diagrams; resvg rasterises SVG; pptxgenjs zips decks. All of it is synchronous CPU work, which is
 * why it runs on render threads and not on the request thread. Inputs are JSON: nothing received is
 * ever evaluated as code. The thread's entry (render-worker.ts) only carries messages.
 */
import { GlobalFonts } from '@napi-rs/canvas';
import { Resvg } from '@resvg/resvg-js';
import { Chart } from 'chart.js/auto';
import { buildDeck } from './deck';
import { ChartConfigError, drawChart, type ChartTask, type DrawSettings } from './draw-chart';
import { extraFontFamily, FONT_ALIASES, fontFiles, SVG_TEXT_FAMILY, svgFontFamily, withFallbackFamilies, withSvgTextFamily, type RenderFonts } from './fonts';
import { scriptFontsFor } from '../../../shared/script-fonts';
import { stripLinks } from './strip-links';
import { MAX_PIXELS, MAX_SVG_BYTES, MAX_TICKS_PER_AXIS, SvgTooLargeError, type RenderTask } from './tasks';

export { ChartConfigError };

/** The image would rasterise to more than MAX_PIXELS: refused before any pixel is allocated. */
export class ImageTooLargeError extends Error {
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    super(`The image would be ${width}x${height} pixels (${((width * height) / 1e6).toFixed(1)} megapixels); the limit is ${MAX_PIXELS / 1e6} megapixels`);
    this.name = 'ImageTooLargeError';
  }
}

/**
 * What a render thread is started with. `keepCharts` false draws every chart on a new chart (the
 * reference of the kept-charts test); `skiaSvg` draws SVG on Skia's SVG canvas, the writer before
 * our SVG context (the reference of its tests and the bench).
 */
export interface RenderThreadData {
  fonts: RenderFonts;
  keepCharts?: boolean;
  skiaSvg?: boolean;
  /** Ticks per axis (MAX_TICKS_PER_AXIS, or VISUAL_MAX_POINTS where an operator set it higher). */
  maxTicks?: number;
}

/** Refuses a raster larger than MAX_PIXELS, whatever asked for it (a size, a density, a diagram's layout). */
function assertPixels(width: number, height: number): void {
  const w = Math.ceil(width);
  const h = Math.ceil(height);
  if (!(w * h <= MAX_PIXELS)) throw new ImageTooLargeError(w, h);
}

/** Refuses an SVG over MAX_SVG_BYTES, before it is cleaned, rasterised or sent to be stored. */
function assertSvgBytes(what: string, svg: string | Buffer): void {
  // A character is one to three bytes: only text that could pass the cap is counted exactly.
  if (svg.length * 3 > MAX_SVG_BYTES && Buffer.byteLength(svg) > MAX_SVG_BYTES) throw new SvgTooLargeError(what);
}

type GraphvizInstance = { dot(source: string, format?: 'svg'): string };

/** Registers the fonts (once per thread) and returns the thread's task runner. */
export function renderTasks({
  fonts,
  keepCharts = true,
  skiaSvg = false,
  maxTicks = MAX_TICKS_PER_AXIS,
}: RenderThreadData): (task: RenderTask) => Promise<Buffer> {
  const files = fontFiles(fonts.dir);
  for (const alias of FONT_ALIASES) for (const file of files) GlobalFonts.registerFromPath(file, alias);
  // Skia draws a glyph the first family lacks from a later family of the same font list, never from
  // a font the list does not name: so the extra fonts are appended to every family a chart names.
  // Registering a file under an alias also registers it under the font's own family name, which
  // is what an SVG written by our context names (a viewer knows "Noto Sans Thai", not the alias).
  const ownNames = new Map<string, string>();
  const extraFamilies = fonts.extra.map((file) => {
    const alias = extraFontFamily(file);
    const before = new Set(GlobalFonts.families.map((f) => f.family));
    GlobalFonts.registerFromPath(file, alias);
    const own = GlobalFonts.families.map((f) => f.family).find((family) => !before.has(family) && family !== alias);
    if (own) ownNames.set(alias.toLowerCase(), own);
    return alias;
  });
  if (extraFamilies.length) Chart.defaults.font.family = withFallbackFamilies(Chart.defaults.font.family ?? 'sans-serif', extraFamilies);
  const baseDefaultFamily = Chart.defaults.font.family ?? 'sans-serif';

  // The script fonts: each registered (read from disk) the first time a task's text needs it, and
  // appended to the family lists of the tasks that need it only, so a Latin chart is drawn, and
  // its SVG written, the same whatever the thread drew before.
  const scriptFiles = new Map((fonts.scripts ?? []).map((font) => [font.id, font]));
  const registered = new Set<string>();
  /** The script fonts' families a text needs, registered now if they were not. */
  function scriptFamilies(text: string, register = true): { families: string[]; files: string[] } {
    const needed = scriptFontsFor(text).flatMap((font) => scriptFiles.get(font.id) ?? []);
    for (const font of needed)
      if (register && !registered.has(font.id)) {
        GlobalFonts.registerFromPath(font.file);
        registered.add(font.id);
      }
    return { families: needed.map((font) => font.family), files: needed.map((font) => font.file) };
  }
  /** The extra families of the task being drawn: VISUAL_EXTRA_FONTS, then the script fonts its text needs. */
  let families = extraFamilies;
  // SVG text looks in the DejaVu Sans subsets first wherever a chart's family list starts with a
  // family drawn with DejaVu Sans; the full fonts, next in the list, draw the other characters.
  for (const file of fonts.svgText ?? []) GlobalFonts.registerFromPath(file, SVG_TEXT_FAMILY);
  const svgText = Boolean(fonts.svgText?.length);
  const forSvg = (family: string) => (svgText ? withSvgTextFamily(family) : family);

  /** Every `family` the configuration names, rewritten. */
  function withFamilies<T>(value: T, rewrite: (family: string) => string): T {
    if (!value || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => withFamilies(item, rewrite)) as T;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = key === 'family' && typeof item === 'string' ? rewrite(item) : withFamilies(item, rewrite);
    return out as T;
  }
  const settings: DrawSettings = {
    // The extra families are appended to every family a chart names; for SVG the subsets go first.
    extend(options, svg) {
      if (!families.length && !(svg && svgText)) return options;
      return withFamilies(options, (family) => {
        const withExtras = withFallbackFamilies(family, families);
        return svg ? forSvg(withExtras) : withExtras;
      });
    },
    svgDefaultFamily: forSvg(baseDefaultFamily),
    svgFontFamily: (list) => svgFontFamily(list, ownNames),
    keepCharts,
    skiaSvg,
    maxTicks,
  };

  /** A one-page PDF holding the chart as a PNG, the page the chart's layout size (QuickChart's pdf format). */
  async function chartPdf(task: ChartTask): Promise<Buffer> {
    const png = withScriptFonts(task, () => drawChart({ ...task, format: 'png' }, settings));
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
    assertSvgBytes('The SVG to rasterise', svg);
    const resvg = new Resvg(svg, {
      fitTo: { mode: 'zoom', value: pixelRatio },
      font: {
        // resvg falls back, glyph by glyph, to any font it is given: the script fonts the text needs are among them.
        fontFiles: [...files, ...fonts.extra.filter((file) => /\.(ttf|otf|ttc)$/i.test(file)), ...scriptFamilies(svg, false).files],
        loadSystemFonts: false,
        defaultFontFamily: 'DejaVu Sans',
        sansSerifFamily: 'DejaVu Sans',
      },
    });
    // Parsing sized the image; rendering allocates it. The size comes from what the caller wrote
    // (a diagram's pad or size, an infographic's rows), so it is checked first.
    assertPixels(resvg.width * pixelRatio, resvg.height * pixelRatio);
    return resvg.render().asPng();
  }

  /** Graphviz's layout as SVG; source it cannot read (a syntax error, or no graph at all) is the caller's input to fix, not a failure. */
  function dotToSvg(graphviz: GraphvizInstance, source: string): string {
    let svg: string;
    try {
      svg = graphviz.dot(source, 'svg');
    } catch (error) {
      const message = String((error as Error)?.message ?? error).trim();
      if (/syntax|error in line/i.test(message)) throw new ChartConfigError(message);
      throw error;
    }
    if (!svg.trim()) throw new ChartConfigError('the DOT source holds no graph: write digraph { ... } or graph { ... }');
    assertSvgBytes("The diagram's SVG", svg);
    return svg;
  }

  let graphviz: Promise<GraphvizInstance> | undefined;
  function loadGraphviz(): Promise<GraphvizInstance> {
    graphviz ??= (require('@hpcc-js/wasm-graphviz') as { Graphviz: { load(): Promise<GraphvizInstance> } }).Graphviz.load();
    return graphviz;
  }

  /** Draws a chart with the script fonts its text needs in every family list, then puts the lists back. */
  function withScriptFonts<T>(task: Extract<RenderTask, { kind: 'chart' }>, draw: () => T): T {
    const needed = scriptFamilies(JSON.stringify(task.config)).families;
    if (!needed.length) return draw();
    families = [...extraFamilies, ...needed];
    Chart.defaults.font.family = withFallbackFamilies(baseDefaultFamily, needed);
    settings.svgDefaultFamily = forSvg(Chart.defaults.font.family);
    try {
      return draw();
    } finally {
      families = extraFamilies;
      Chart.defaults.font.family = baseDefaultFamily;
      settings.svgDefaultFamily = forSvg(baseDefaultFamily);
    }
  }

  return async (task) => {
    switch (task.kind) {
      case 'chart':
        if (task.format === 'svg') {
          // Our SVG context stops at the cap as it writes; this counts the bytes of what it wrote (and Skia's SVG).
          const svg = withScriptFonts(task, () => drawChart(task, settings));
          assertSvgBytes("The chart's SVG", svg);
          return svg;
        }
        assertPixels(task.width * task.pixelRatio, task.height * task.pixelRatio);
        return task.format === 'pdf' ? chartPdf(task) : withScriptFonts(task, () => drawChart(task, settings));
      case 'svg-to-png':
        return svgToPng(task.svg, task.pixelRatio);
      case 'dot': {
        const svg = stripLinks(dotToSvg(await loadGraphviz(), task.source));
        return task.format === 'png' ? svgToPng(svg, 1) : Buffer.from(svg, 'utf8');
      }
      case 'pptx':
        return buildDeck(task.deck);
    }
  };
}
