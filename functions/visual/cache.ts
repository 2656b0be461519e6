import type { ContainerClient } from '@azure/storage-blob';
import { config, serviceUrl } from '../../shared/config';
import { container } from '../../shared/storage';

/**
 * Rendered results in Blob Storage, one blob per key, with their expiry in the blob's metadata.
 * The key is a hash of everything that determines the bytes, so a blob never changes while it
 * lives; a hit pushes its expiry to a full lifetime from now (the expiresAt the caller is told).
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
export const expiryFromNow = () => new Date(Date.now() + ttlMs()).toISOString();

export const cacheUrl = (key: string) => `${serviceUrl('visual')}/cache/${key}`;

const isMissing = (error: unknown) => (error as { statusCode?: number })?.statusCode === 404;
const isExpired = (metadata: Record<string, string> | undefined) => !metadata?.expiresat || Date.parse(metadata.expiresat) <= Date.now();

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

/** A cache hit: the live entry with its expiry renewed to a full lifetime from now. */
export async function hitCached(key: string, withBytes: boolean): Promise<CachedEntry | undefined> {
  const entry = await readCached(key, withBytes);
  if (!entry) return undefined;
  const expiresAt = expiryFromNow();
  const blob = (await cacheContainer()).getBlockBlobClient(key);
  try {
    await blob.setMetadata({ generatedat: entry.generatedAt, expiresat: expiresAt });
  } catch (error) {
    if (isMissing(error)) return undefined; // cleaned between the two calls
    throw error;
  }
  return { ...entry, expiresAt };
}

export async function storeCached(key: string, bytes: Uint8Array, contentType: string): Promise<CachedEntry> {
  const generatedAt = new Date().toISOString();
  const expiresAt = expiryFromNow();
  const blob = (await cacheContainer()).getBlockBlobClient(key);
  await blob.uploadData(bytes, { blobHTTPHeaders: { blobContentType: contentType }, metadata: { generatedat: generatedAt, expiresat: expiresAt } });
  return { key, contentType, size: bytes.byteLength, generatedAt, expiresAt };
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
