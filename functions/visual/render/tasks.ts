import type { Deck } from './deck';

/**
 * The most pixels any raster this service draws may hold (a 4000x4000 image): about 64 MB of
 * pixels while it is drawn. Every raster path keeps to it: chart and QuickChart densities are
 * reduced to fit, and an SVG that would rasterise larger (a diagram's size or padding, an
 * infographic's rows) is refused before a pixel is allocated.
 */
export const MAX_PIXELS = 16_000_000;

/**
 * The most ticks one axis may have (or VISUAL_MAX_POINTS, when an operator sets it higher, so that
 * a category axis of every label of a full dataset still draws). Chart.js's own bounds (100,000 on
 * a time axis; none on a linear axis's `ticks.count`) are far more than an axis can show: every tick
 * is formatted, measured and laid out before most are skipped, about 25 µs each here, so 100,000
 * ticks held a render thread 1.7 s (and `ticks.count: 1e9` would exhaust its memory) for a 165-byte
 * chart. 5,000 ticks cost about 120 ms, a category axis of VISUAL_MAX_POINTS labels as much.
 * Refused before the ticks are made where the options say how many there will be (see tick-limit.ts).
 */
export const MAX_TICKS_PER_AXIS = 5_000;

/**
 * The most bytes of any SVG this service writes or rasterises: a chart's (our SVG context stops
 * writing when it passes it), a diagram's (Graphviz's output, checked before it is cleaned or
 * rasterised) and an SVG given to the rasteriser. A line chart of 20 datasets x 5,000 points with
 * point markers is 47 MB of SVG (a marker is about 470 bytes), which held 500 MB of a render
 * thread's heap after it was drawn; the same chart without markers is 1 MB, a category axis of
 * 5,000 labels 0.5 MB, a 500-node flowchart about 1 MB. Infographics' SVG is bounded by their
 * schema well below it (tests/visual/render-bounds.test.ts).
 */
export const MAX_SVG_BYTES = 4 * 1024 * 1024;

/** An axis would have more ticks than its limit: refused before they are made (a 400). */
export class TooManyTicksError extends Error {
  constructor(
    /** Where the axis is in the configuration: `scales.<id>`. */
    readonly axis: string,
    message: string,
  ) {
    super(message);
    this.name = 'TooManyTicksError';
  }
}

/** An SVG passed MAX_SVG_BYTES: writing stopped there, nothing is stored (a 400). */
export class SvgTooLargeError extends Error {
  constructor(what: string) {
    super(`${what} is larger than ${MAX_SVG_BYTES / 1024 / 1024} MiB, the limit for SVG output`);
    this.name = 'SvgTooLargeError';
  }
}

/** What a chart renders to: the API's PNG and SVG, and QuickChart's WebP, JPEG and PDF (a page holding the PNG). */
export type ChartFormat = 'png' | 'svg' | 'webp' | 'jpeg' | 'pdf';

/** Work the render pool runs on its threads; everything crossing the thread boundary is plain data. */
export type RenderTask =
  | {
      kind: 'chart';
      /** A Chart.js configuration as JSON; never code. */
      config: Record<string, unknown>;
      width: number;
      height: number;
      /** Raster pixel density (1 or 2); SVG is vector and ignores it. */
      pixelRatio: number;
      format: ChartFormat;
      background: string;
    }
  | { kind: 'svg-to-png'; svg: string; pixelRatio: number }
  | { kind: 'dot'; source: string; format: 'svg' | 'png' }
  | { kind: 'pptx'; deck: Deck };

export interface RenderOutput {
  bytes: Uint8Array;
  /** The worker thread that did the work (shows that a request's charts really ran in parallel). */
  threadId: number;
}

/**
 * `invalidInput`: Chart.js refused the configuration (a 400), as opposed to a renderer failure (a
 * 500). `tooLarge`: the image would exceed MAX_PIXELS (a 400); nothing was drawn. `tooManyTicks`:
 * an axis would pass its tick limit (a 400). `svgTooLarge`: the SVG passed MAX_SVG_BYTES (a 400).
 */
export type WorkerReply = (
  | { id: number; ok: true; bytes: Uint8Array; threadId: number }
  | {
      id: number;
      ok: false;
      error: string;
      invalidInput?: boolean;
      tooLarge?: { width: number; height: number };
      tooManyTicks?: { axis: string };
      svgTooLarge?: boolean;
    }
) & {
  /** The thread's V8 heap before and after the task (bytes committed): the pool replaces a thread a task grew too much (pool.ts shouldRecycle). */
  heapBytesBefore?: number;
  heapBytes?: number;
};
export type WorkerRequest = { id: number; task: RenderTask };
