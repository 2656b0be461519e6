import type { ContainerClient } from '@azure/storage-blob';
import { serviceUrl, type Config } from '../../shared/config';
import { RENEW_INTERVAL_MS, type CachedEntry } from './cache-index';
import type { VisualContext } from './context';

/**
 * Rendered results in Blob Storage, one blob per key, with their expiry in the blob's metadata.
 * The key is a hash of everything that determines the bytes, so a blob never changes while it
 * lives; a hit pushes its expiry to a full lifetime from now (the expiresAt the caller is told).
 *
 * Blob Storage is the truth (every instance sees it). Each instance also keeps a small index of
 * entries it has just stored or renewed (cache-index.ts), so repeated hits cost no storage round
 * trip: the blob's expiry is written RENEW_INTERVAL beyond the lifetime, and an index entry is
 * trusted only for RENEW_INTERVAL after its renewal, so the blob always outlives every expiresAt
 * given out.
 *
 * Every function takes what it reaches: the settings (container, lifetime), the clock, the storage
 * account and the platform's index, all from the visual context.
 */
export type CacheContext = Pick<VisualContext, 'config' | 'storage' | 'now' | 'cacheIndex' | 'seenKeys'>;

export const KEY_PATTERN = /^[a-f0-9]{64}$/;

const cacheContainer = (ctx: CacheContext): Promise<ContainerClient> => ctx.storage.container(ctx.config.VISUAL_CACHE_CONTAINER);
const ttlMs = (ctx: CacheContext) => ctx.config.VISUAL_CACHE_TTL_SECONDS * 1000;
const nowMs = (ctx: Pick<CacheContext, 'now'>) => ctx.now().getTime();
/** The expiresAt a caller is told: a full lifetime from now. */
export const expiryFromNow = (ctx: CacheContext) => new Date(nowMs(ctx) + ttlMs(ctx)).toISOString();
const blobExpiryFromNow = (ctx: CacheContext) => new Date(nowMs(ctx) + ttlMs(ctx) + RENEW_INTERVAL_MS).toISOString();

/** True the first time this instance is asked for `key` within the renewal interval (and records the request). */
export const firstSight = (ctx: CacheContext, key: string) => ctx.seenKeys.firstSight(key, nowMs(ctx));
const rememberHot = (ctx: CacheContext, entry: CachedEntry) => ctx.cacheIndex.remember(entry, nowMs(ctx));
const fromHot = (ctx: CacheContext, key: string, withBytes: boolean) => ctx.cacheIndex.find(key, withBytes, nowMs(ctx));

/** Where a stored result is served (GET /visual/cache/{key}) under these settings. */
export const cacheUrl = (config: Config, key: string) => `${serviceUrl('visual', config)}/cache/${key}`;

const isMissing = (error: unknown) => (error as { statusCode?: number })?.statusCode === 404;
const isExpired = (ctx: CacheContext, metadata: Record<string, string> | undefined) => !metadata?.expiresat || Date.parse(metadata.expiresat) <= nowMs(ctx);

async function streamToBuffer(stream: NodeJS.ReadableStream | undefined): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream ?? []) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

/** Reads an entry (its bytes too when asked); undefined when missing or expired. */
export async function readCached(ctx: CacheContext, key: string, withBytes: boolean): Promise<CachedEntry | undefined> {
  const blob = (await cacheContainer(ctx)).getBlockBlobClient(key);
  try {
    const props = withBytes ? await blob.download() : await blob.getProperties();
    if (isExpired(ctx, props.metadata)) {
      // The stream of an expired download is dropped unread.
      if ('readableStreamBody' in props) props.readableStreamBody?.resume();
      return undefined;
    }
    const bytes = 'readableStreamBody' in props && withBytes ? await streamToBuffer(props.readableStreamBody) : undefined;
    return {
      key,
      contentType: props.contentType ?? 'application/octet-stream',
      size: props.contentLength ?? bytes?.length ?? 0,
      generatedAt: props.metadata!.generatedat,
      expiresAt: props.metadata!.expiresat,
      bytes,
    };
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/**
 * An entry for GET/HEAD /cache/{key} (never renewed): from this instance's index when it stored or
 * renewed the entry within the renewal interval (the caller of a render usually fetches its imageUrl
 * at once, from the same instance), else from the blob.
 */
export async function servedCached(ctx: CacheContext, key: string, withBytes: boolean): Promise<CachedEntry | undefined> {
  const recent = fromHot(ctx, key, withBytes);
  if (recent && Date.parse(recent.expiresAt) > nowMs(ctx)) return recent;
  return readCached(ctx, key, withBytes);
}

/** A hit in this instance's index alone (no storage call): an entry it stored or renewed within the renewal interval. */
export function recentCached(ctx: CacheContext, key: string, withBytes: boolean): CachedEntry | undefined {
  const recent = fromHot(ctx, key, withBytes);
  return recent && { ...recent, expiresAt: expiryFromNow(ctx) };
}

/** A cache hit: the live entry, its blob renewed to outlive a full lifetime from now (the expiresAt returned). */
export async function hitCached(ctx: CacheContext, key: string, withBytes: boolean): Promise<CachedEntry | undefined> {
  const recent = recentCached(ctx, key, withBytes);
  if (recent) return recent;
  const entry = await readCached(ctx, key, withBytes);
  if (!entry) return undefined;
  const blob = (await cacheContainer(ctx)).getBlockBlobClient(key);
  try {
    await blob.setMetadata({ generatedat: entry.generatedAt, expiresat: blobExpiryFromNow(ctx) });
  } catch (error) {
    if (isMissing(error)) return undefined; // cleaned between the two calls
    throw error;
  }
  rememberHot(ctx, entry);
  return { ...entry, expiresAt: expiryFromNow(ctx) };
}

export async function storeCached(ctx: CacheContext, key: string, bytes: Uint8Array, contentType: string): Promise<CachedEntry> {
  return (await store(ctx, key, bytes, contentType, false))!;
}

/** Stores the entry unless a blob is under its key already (then undefined, and nothing is written). */
export const storeCachedIfAbsent = (ctx: CacheContext, key: string, bytes: Uint8Array, contentType: string): Promise<CachedEntry | undefined> =>
  store(ctx, key, bytes, contentType, true);

async function store(ctx: CacheContext, key: string, bytes: Uint8Array, contentType: string, ifAbsent: boolean): Promise<CachedEntry | undefined> {
  const generatedAt = ctx.now().toISOString();
  // One Put Blob (shared/blob-put.ts): answered 201, the blob is readable from every instance, and
  // only then is its URL given out; any other answer throws, and the request fails with no URL.
  const outcome = await ctx.storage.putBlob(ctx.config.VISUAL_CACHE_CONTAINER, key, bytes, {
    contentType,
    metadata: { generatedat: generatedAt, expiresat: blobExpiryFromNow(ctx) },
    ifAbsent,
  });
  if (outcome === 'exists') return undefined;
  const entry = { key, contentType, size: bytes.byteLength, generatedAt, expiresAt: expiryFromNow(ctx) };
  rememberHot(ctx, { ...entry, bytes: Buffer.from(bytes) });
  return entry;
}

/** Deletes every expired entry; the cleanup timer runs it (in Azure a lifecycle rule also ages blobs out). */
export async function deleteExpired(ctx: CacheContext): Promise<number> {
  const client = await cacheContainer(ctx);
  let deleted = 0;
  for await (const item of client.listBlobsFlat({ includeMetadata: true })) {
    if (!isExpired(ctx, item.metadata)) continue;
    await client.deleteBlob(item.name, { deleteSnapshots: 'include' }).catch((error) => {
      if (!isMissing(error)) throw error;
    });
    deleted++;
  }
  return deleted;
}
