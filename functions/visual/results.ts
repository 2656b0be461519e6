import { cacheUrl, hitCached, storeCached, type CachedEntry } from './cache';

/** Output formats of the API: base64 is a PNG returned inline as a data URI as well as by URL. */
export const FORMATS = ['png', 'svg', 'base64'] as const;
export const QUALITIES = ['high', 'standard'] as const;
export type Format = (typeof FORMATS)[number];
export type Quality = (typeof QUALITIES)[number];
export const CONTENT_TYPES = { png: 'image/png', svg: 'image/svg+xml', webp: 'image/webp', jpeg: 'image/jpeg', pdf: 'application/pdf' } as const;
export const imageFormatOf = (format: Format): 'png' | 'svg' => (format === 'svg' ? 'svg' : 'png');

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

/** The cached entry under `key`, or a fresh render stored under it. Bytes are included when `withBytes`. */
export async function cachedOrRendered(
  key: string,
  contentType: string,
  withBytes: boolean,
  stats: RenderStats,
  render: () => Promise<{ bytes: Uint8Array; threadId?: number }>,
): Promise<CachedEntry> {
  const hit = await hitCached(key, withBytes);
  if (hit) {
    stats.hits++;
    return hit;
  }
  const output = await render();
  stats.renders++;
  if (output.threadId !== undefined) stats.threadIds.push(output.threadId);
  return { ...(await storeCached(key, output.bytes, contentType)), bytes: Buffer.from(output.bytes) };
}

/** The result of one rendered item (id, imageUrl, base64, metadata), shared by charts, infographics and diagrams. */
export interface ImageResult {
  id: string;
  imageUrl: string;
  base64: string | null;
  metadata: { width: number; height: number; size: number; generatedAt: string; title: string | null; description: string | null };
}

export function imageResult(
  id: string,
  entry: CachedEntry,
  format: Format,
  meta: { width: number; height: number; title?: string; description?: string },
): ImageResult {
  return {
    id,
    imageUrl: cacheUrl(entry.key),
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
