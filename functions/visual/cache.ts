import type { ContainerClient } from '@azure/storage-blob';
import { config, serviceUrl } from '../../shared/config';
import { currentPlatform, member, currentTime, currentTimeMs } from '../../shared/platform';
import { container } from '../../shared/storage';

/**
 * Rendered results in Blob Storage, one blob per key, with their expiry in the blob's metadata.
 * The key is a hash of everything that determines the bytes, so a blob never changes while it
 * lives; a hit pushes its expiry to a full lifetime from now (the expiresAt the caller is told).
 *
 * Blob Storage is the truth (every instance sees it). Each instance also keeps a small index of
 * entries it has just stored or renewed, so repeated hits cost no storage round trip: the blob's
 * expiry is written RENEW_INTERVAL beyond the lifetime, and an index entry is trusted only for
 * RENEW_INTERVAL after its renewal, so the blob always outlives every expiresAt given out.
 */
export interface CachedEntry {
  key: string;
  contentType: string;
  size: number;
  generatedAt: string;
  expiresAt: string;
  bytes?: Buffer;
}

export const KEY_PATTERN = /^[a-f0-9]{64}$/;

const cacheContainer = (): Promise<ContainerClient> => container(config().VISUAL_CACHE_CONTAINER);
const ttlMs = () => config().VISUAL_CACHE_TTL_SECONDS * 1000;
export const expiryFromNow = () => new Date(currentTimeMs() + ttlMs()).toISOString();

export const RENEW_INTERVAL_MS = 10 * 60_000;
const blobExpiryFromNow = () => new Date(currentTimeMs() + ttlMs() + RENEW_INTERVAL_MS).toISOString();

const HOT_MAX_ENTRIES = 5000;
const HOT_MAX_BYTES = 64 * 1024 * 1024;

/** The instance's index of entries it has just stored or renewed, least recently used first. */
class HotIndex {
  private readonly entries = new Map<string, { entry: CachedEntry; renewedAt: number }>();
  private bytes = 0;

  forget(key: string): void {
    const found = this.entries.get(key);
    if (!found) return;
    this.bytes -= found.entry.bytes?.length ?? 0;
    this.entries.delete(key);
  }

  remember(entry: CachedEntry, now: number): void {
    this.forget(entry.key);
    this.entries.set(entry.key, { entry, renewedAt: now });
    this.bytes += entry.bytes?.length ?? 0;
    // Map order is insertion order: the first keys are the least recently used.
    for (const key of this.entries.keys()) {
      if (this.entries.size <= HOT_MAX_ENTRIES && this.bytes <= HOT_MAX_BYTES) break;
      this.forget(key);
    }
  }

  find(key: string, withBytes: boolean, now: number): CachedEntry | undefined {
    const found = this.entries.get(key);
    if (!found) return undefined;
    const age = now - found.renewedAt;
    if (age < 0 || age >= RENEW_INTERVAL_MS || (withBytes && !found.entry.bytes)) return undefined;
    this.entries.delete(key);
    this.entries.set(key, found);
    return found.entry;
  }
}

const SEEN_MAX_KEYS = 20_000;

/**
 * Keys this instance was asked for, with when, oldest first: a cache admission filter. A chart is
 * stored on its second request within the renewal interval, not its first (see `cachedOnRepeat`).
 */
class SeenKeys {
  private readonly seenAt = new Map<string, number>();

  /** Records that `key` was asked for now; true when it was not asked for within the renewal interval before. */
  firstSight(key: string, now: number): boolean {
    const last = this.seenAt.get(key);
    this.seenAt.delete(key);
    this.seenAt.set(key, now);
    if (this.seenAt.size > SEEN_MAX_KEYS) this.seenAt.delete(this.seenAt.keys().next().value!);
    return last === undefined || now - last >= RENEW_INTERVAL_MS || now < last;
  }
}

/** The platform's index: released with the service (a later start may point at another storage account). */
export const HOT_INDEX = member('visual hot cache index', () => new HotIndex());
const hot = () => currentPlatform().get(HOT_INDEX);
const SEEN_KEYS = member('visual seen cache keys', () => new SeenKeys());
/** True the first time this instance is asked for `key` within the renewal interval (and records the request). */
export const firstSight = (key: string) => currentPlatform().get(SEEN_KEYS).firstSight(key, currentTimeMs());
const rememberHot = (entry: CachedEntry) => hot().remember(entry, currentTimeMs());
const fromHot = (key: string, withBytes: boolean) => hot().find(key, withBytes, currentTimeMs());

export const cacheUrl = (key: string) => `${serviceUrl('visual')}/cache/${key}`;

const isMissing = (error: unknown) => (error as { statusCode?: number })?.statusCode === 404;
const isExpired = (metadata: Record<string, string> | undefined) => !metadata?.expiresat || Date.parse(metadata.expiresat) <= currentTimeMs();

async function streamToBuffer(stream: NodeJS.ReadableStream | undefined): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream ?? []) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

/** Reads an entry (its bytes too when asked); undefined when missing or expired. */
export async function readCached(key: string, withBytes: boolean): Promise<CachedEntry | undefined> {
  const blob = (await cacheContainer()).getBlockBlobClient(key);
  try {
    const props = withBytes ? await blob.download() : await blob.getProperties();
    if (isExpired(props.metadata)) {
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
export async function servedCached(key: string, withBytes: boolean): Promise<CachedEntry | undefined> {
  const recent = fromHot(key, withBytes);
  if (recent && Date.parse(recent.expiresAt) > currentTimeMs()) return recent;
  return readCached(key, withBytes);
}

/** A hit in this instance's index alone (no storage call): an entry it stored or renewed within the renewal interval. */
export function recentCached(key: string, withBytes: boolean): CachedEntry | undefined {
  const recent = fromHot(key, withBytes);
  return recent && { ...recent, expiresAt: expiryFromNow() };
}

/** A cache hit: the live entry, its blob renewed to outlive a full lifetime from now (the expiresAt returned). */
export async function hitCached(key: string, withBytes: boolean): Promise<CachedEntry | undefined> {
  const recent = recentCached(key, withBytes);
  if (recent) return recent;
  const entry = await readCached(key, withBytes);
  if (!entry) return undefined;
  const blob = (await cacheContainer()).getBlockBlobClient(key);
  try {
    await blob.setMetadata({ generatedat: entry.generatedAt, expiresat: blobExpiryFromNow() });
  } catch (error) {
    if (isMissing(error)) return undefined; // cleaned between the two calls
    throw error;
  }
  rememberHot(entry);
  return { ...entry, expiresAt: expiryFromNow() };
}

export async function storeCached(key: string, bytes: Uint8Array, contentType: string): Promise<CachedEntry> {
  return (await store(key, bytes, contentType, false))!;
}

/** Stores the entry unless a blob is under its key already (then undefined, and nothing is written). */
export const storeCachedIfAbsent = (key: string, bytes: Uint8Array, contentType: string): Promise<CachedEntry | undefined> =>
  store(key, bytes, contentType, true);

async function store(key: string, bytes: Uint8Array, contentType: string, ifAbsent: boolean): Promise<CachedEntry | undefined> {
  const generatedAt = currentTime().toISOString();
  const blob = (await cacheContainer()).getBlockBlobClient(key);
  try {
    await blob.uploadData(bytes, {
      blobHTTPHeaders: { blobContentType: contentType },
      metadata: { generatedat: generatedAt, expiresat: blobExpiryFromNow() },
      ...(ifAbsent ? { conditions: { ifNoneMatch: '*' } } : {}),
    });
  } catch (error) {
    if (ifAbsent && (error as { statusCode?: number }).statusCode === 409) return undefined;
    throw error;
  }
  const entry = { key, contentType, size: bytes.byteLength, generatedAt, expiresAt: expiryFromNow() };
  rememberHot({ ...entry, bytes: Buffer.from(bytes) });
  return entry;
}

/** Deletes every expired entry; the cleanup timer runs it (in Azure a lifecycle rule also ages blobs out). */
export async function deleteExpired(): Promise<number> {
  const client = await cacheContainer();
  let deleted = 0;
  for await (const item of client.listBlobsFlat({ includeMetadata: true })) {
    if (!isExpired(item.metadata)) continue;
    await client.deleteBlob(item.name, { deleteSnapshots: 'include' }).catch((error) => {
      if (!isMissing(error)) throw error;
    });
    deleted++;
  }
  return deleted;
}
