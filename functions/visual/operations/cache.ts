import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { Code, notFound } from '../../../shared/http/errors';
import { KEY_PATTERN, servedCached, type CacheContext } from '../cache';
import { op } from '../context';
import { IMAGE_SAFETY_HEADERS } from '../headers';
import { PPTX_CONTENT_TYPE } from '../presentations';

/**
 * GET /visual/cache/{key}: the stored bytes with their content type. The key is a content hash,
 * so the ETag is the key itself and the response is immutable until it expires.
 */
export async function serveCached(ctx: CacheContext, request: HttpRequest): Promise<HttpResponseInit> {
  const key = (request.params.key ?? '').toLowerCase();
  const entry = KEY_PATTERN.test(key) ? await servedCached(ctx, key, request.method !== 'HEAD') : undefined;
  if (!entry) throw notFound(`No cached result "${request.params.key}" (never rendered, or expired)`, Code.CACHE_ENTRY_NOT_FOUND);
  const etag = `"${key}"`;
  // The blob outlives the advertised lifetime by the renewal interval; clients are never told more than the lifetime.
  const secondsLeft = Math.floor((Date.parse(entry.expiresAt) - ctx.now().getTime()) / 1000);
  const maxAge = Math.max(0, Math.min(ctx.config.VISUAL_CACHE_TTL_SECONDS, secondsLeft));
  const headers = {
    'Content-Type': entry.contentType,
    ETag: etag,
    'Cache-Control': `public, max-age=${maxAge}, immutable`,
    ...IMAGE_SAFETY_HEADERS,
    ...(entry.contentType === PPTX_CONTENT_TYPE ? { 'Content-Disposition': `attachment; filename="presentation-${key.slice(0, 12)}.pptx"` } : {}),
  };
  const matches = (request.headers.get('if-none-match') ?? '')
    .split(',')
    .map((s) => s.trim())
    .some((t) => t === etag || t === `W/${etag}` || t === '*');
  if (matches) return { status: 304, headers };
  return { status: 200, headers: { ...headers, 'Content-Length': String(entry.size) }, body: request.method === 'HEAD' ? undefined : entry.bytes };
}

export const cached = op('A stored result by its key (ETag; immutable until it expires)', async ({ ctx, request }) => serveCached(ctx, request));
