import type { Config } from '../../shared/config';
import { cacheUrl, firstSight, hitCached, recentCached, storeCached, storeCachedIfAbsent, type CacheContext } from './cache';
import type { CachedEntry } from './cache-index';
import type { Format } from './schemas';

export const CONTENT_TYPES = { png: 'image/png', svg: 'image/svg+xml', webp: 'image/webp', jpeg: 'image/jpeg', pdf: 'application/pdf' } as const;
export const imageFormatOf = (format: Format): 'png' | 'svg' => (format === 'svg' ? 'svg' : 'png');

/**
 * Each item's result, in order, or the first failure. On the first failure the signal the others
 * were given aborts, so their renders not yet taken by a thread leave the pool's queue at once
 * instead of rendering for an answer that is already an error (RenderPool.run).
 */
export async function allOrStop<T, R>(items: readonly T[], work: (item: T, signal: AbortSignal) => Promise<R>): Promise<R[]> {
  const stop = new AbortController();
  return Promise.all(
    items.map(async (item) => {
      try {
        return await work(item, stop.signal);
      } catch (error) {
        stop.abort();
        throw error;
      }
    }),
  );
}

/** What happened while answering, for the X-Cache / X-Render-* headers. */
export interface RenderStats {
  hits: number;
  renders: number;
  threadIds: number[];
}
export const newStats = (): RenderStats => ({ hits: 0, renders: 0, threadIds: [] });

export function statsHeaders(stats: RenderStats): Record<string, string> {
  return {
    'X-Cache': stats.renders === 0 ? 'HIT' : stats.hits === 0 ? 'MISS' : 'PARTIAL',
    'X-Render-Count': String(stats.renders),
    'X-Render-Threads': [...new Set(stats.threadIds)].sort((a, b) => a - b).join(','),
  };
}

/**
 * Which comes first on a request: the drawing or the cache's lookup. A chart (PNG or SVG) is drawn
 * first and stored only if its key is free, so a miss costs one storage call instead of two: each
 * call costs about 1 ms of this process's CPU through the Storage SDK (a lookup that misses as much
 * as an upload) and a round trip, while most charts carry fresh data and miss. A chart another
 * instance stored, or this one longer ago than its index remembers, is then drawn for nothing (its
 * stored entry is still the answer). Decks, diagrams and infographics' PNGs ask the cache first:
 * they are drawn from more parts (a PowerPoint file, Graphviz's layout, a composed page), the same
 * source is asked for again more often, and their drawing was not measured as cheap as a lookup.
 */
export type CacheOrder = 'draw-first' | 'look-first';

/**
 * The cached entry under `key`, or a fresh render stored under it. Bytes are included when `withBytes`.
 *
 * Drawn first (see CacheOrder): when the key is taken, the stored entry is the hit, renewed as any
 * hit is, and served with the bytes just drawn, which are the same (the key is their hash); the
 * drawing is not counted as a render. An expired blob under the key is replaced.
 */
export async function cachedOrRendered(
  ctx: CacheContext,
  key: string,
  contentType: string,
  withBytes: boolean,
  stats: RenderStats,
  order: CacheOrder,
  render: () => Promise<{ bytes: Uint8Array; threadId?: number }>,
): Promise<CachedEntry> {
  const drawFirst = order === 'draw-first';
  const hit = drawFirst ? recentCached(ctx, key, withBytes) : await hitCached(ctx, key, withBytes);
  if (hit) {
    stats.hits++;
    return hit;
  }
  const output = await render();
  const bytes = Buffer.from(output.bytes);
  const stored = drawFirst ? await storeCachedIfAbsent(ctx, key, output.bytes, contentType) : undefined;
  if (drawFirst && !stored) {
    const found = await hitCached(ctx, key, false);
    if (found) {
      stats.hits++;
      return { ...found, bytes };
    }
  }
  countRender(stats, output);
  return { ...(stored ?? (await storeCached(ctx, key, output.bytes, contentType))), bytes };
}

/**
 * For an answer that carries the bytes and no URL (the QuickChart drop-in): the chart is stored on
 * its second request, not its first. A key this instance was not asked for within the renewal
 * interval is drawn and answered without a storage call; a repeat goes through `cachedOrRendered`,
 * so the third and later requests are hits. Most charts posted to a drop-in carry fresh data and
 * are asked for once: storing them costs a lookup that misses, an upload before the answer (about
 * 1 ms of this process and 2-4 ms of Storage's here, a round trip in Azure) and a blob nobody reads.
 * A chart behind a URL that is fetched again (a mail, a dashboard) is stored by its second fetch.
 * A repeated PNG asks the cache first (a repeat is the chart most likely stored, by another
 * instance, and a PNG costs several lookups to draw); a repeated SVG, cheap to draw, is drawn first.
 */
export async function cachedOnRepeat(
  ctx: CacheContext,
  key: string,
  contentType: string,
  stats: RenderStats,
  render: () => Promise<{ bytes: Uint8Array; threadId?: number }>,
): Promise<Buffer> {
  if (!firstSight(ctx, key)) {
    const order = contentType === CONTENT_TYPES.svg ? 'draw-first' : 'look-first';
    return (await cachedOrRendered(ctx, key, contentType, true, stats, order, render)).bytes!;
  }
  const output = await render();
  countRender(stats, output);
  return Buffer.from(output.bytes);
}

function countRender(stats: RenderStats, output: { threadId?: number }): void {
  stats.renders++;
  if (output.threadId !== undefined) stats.threadIds.push(output.threadId);
}

/** The result of one rendered item (id, imageUrl, base64, metadata), shared by charts, infographics and diagrams. */
export interface ImageResult {
  id: string;
  imageUrl: string;
  base64: string | null;
  metadata: { width: number; height: number; size: number; generatedAt: string; title: string | null; description: string | null };
}

export function imageResult(
  config: Config,
  id: string,
  entry: CachedEntry,
  format: Format,
  meta: { width: number; height: number; title?: string; description?: string },
): ImageResult {
  return {
    id,
    imageUrl: cacheUrl(config, entry.key),
    base64: format === 'base64' ? `data:${CONTENT_TYPES.png};base64,${entry.bytes!.toString('base64')}` : null,
    metadata: {
      width: meta.width,
      height: meta.height,
      size: entry.size,
      generatedAt: entry.generatedAt,
      title: meta.title ?? null,
      description: meta.description ?? null,
    },
  };
}
