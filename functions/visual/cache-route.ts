import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { config } from '../../shared/config';
import { Code, notFound } from '../../shared/http/errors';
import { KEY_PATTERN, servedCached } from './cache';
import { IMAGE_SAFETY_HEADERS } from './headers';
import { PPTX_CONTENT_TYPE } from './presentations';
import { currentTimeMs } from '../../shared/platform';

/**
 * GET /visual/cache/{key}: the stored bytes with their content type. The key is a content hash,
 * so the ETag is the key itself and the response is immutable until it expires.
 */
export async function serveCached(request: HttpRequest): Promise<HttpResponseInit> {
  const key = (request.params.key ?? '').toLowerCase();
  const entry = KEY_PATTERN.test(key) ? await servedCached(key, request.method !== 'HEAD') : undefined;
  if (!entry) throw notFound(`No cached result "${request.params.key}" (never rendered, or expired)`, Code.CACHE_ENTRY_NOT_FOUND);
  const etag = `"${key}"`;
  // The blob outlives the advertised lifetime by the renewal interval; clients are never told more than the lifetime.
  const maxAge = Math.max(0, Math.min(config().VISUAL_CACHE_TTL_SECONDS, Math.floor((Date.parse(entry.expiresAt) - currentTimeMs()) / 1000)));
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
