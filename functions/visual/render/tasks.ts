import type { Deck } from './deck';

/**
 * The most pixels any raster this service draws may hold (a 4000x4000 image): about 64 MB of
 * pixels while it is drawn. Every raster path keeps to it: chart and QuickChart densities are
 * reduced to fit, and an SVG that would rasterise larger (a diagram's size or padding, an
 * infographic's rows) is refused before a pixel is allocated.
 */
export const MAX_PIXELS = 16_000_000;

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
 * 500). `tooLarge`: the image would exceed MAX_PIXELS (a 400); nothing was drawn.
 */
export type WorkerReply =
  | { id: number; ok: true; bytes: Uint8Array; threadId: number }
  | { id: number; ok: false; error: string; invalidInput?: boolean; tooLarge?: { width: number; height: number } };
export type WorkerRequest = { id: number; task: RenderTask };
