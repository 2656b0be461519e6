import type { Platform } from './platform';
import { STORAGE_REST, StorageRestError } from './storage-rest';

/**
 * One `Put Blob` as a single HTTP request (storage-rest.ts: Node's http client with kept-alive
 * connections, the Shared Key signature, the connection string's SAS or the managed identity's
 * kept token), for a write on a request's path: the render API stores each uncached image before
 * it answers the image's URL. The Storage SDK's pipeline for one upload (its policies, retries,
 * request and header objects) cost about 0.5 ms of this process's CPU per upload here (warm, 9 KiB,
 * 4 concurrent); this costs about 0.1 ms (undici's `request` measured 0.2 ms in the same run, so
 * Node's own client it is). And the render API's first request after a cold start loads no Storage
 * SDK (about 85 ms here).
 *
 * A put succeeds only on 201 (the blob is written and readable from any instance at once) or, when
 * asked `ifAbsent`, reports a blob already under the name (409); anything else throws (an error
 * answer as StorageRestError with Storage's status and code, no connection as the socket's error,
 * no answer within 30 s as ETIMEDOUT), so a caller never answers a URL to a blob that was not
 * written. A container that does not exist (a new account, or deleted) is made, and the put sent
 * once more. There is no other retry but one, in storage-rest.ts: a request on a kept-alive
 * connection that the server closed under it is sent once more on a new one. The SDK's retries (up
 * to 4, backing off) kept a request waiting while Storage was down; now it fails at once.
 */
export interface BlobPutOptions {
  contentType: string;
  metadata?: Record<string, string>;
  /** Writes only if no blob is under the name (If-None-Match: *). */
  ifAbsent?: boolean;
}
export type BlobPutOutcome = 'created' | 'exists';

export async function putBlob(platform: Platform, container: string, name: string, bytes: Uint8Array, options: BlobPutOptions): Promise<BlobPutOutcome> {
  const rest = platform.get(STORAGE_REST);
  const headers: Record<string, string> = {
    'x-ms-blob-type': 'BlockBlob',
    'x-ms-blob-content-type': options.contentType,
    'content-type': options.contentType,
  };
  if (options.ifAbsent) headers['if-none-match'] = '*';
  for (const key in options.metadata) headers[`x-ms-meta-${key}`] = options.metadata[key];
  const path = `/${container}/${encodeURIComponent(name)}`;
  const put = () => rest.send({ service: 'blob', method: 'PUT', path, headers, body: bytes });
  let answer = await put();
  if (answer.status === 404 && answer.errorCode === 'ContainerNotFound') {
    const made = await rest.send({ service: 'blob', method: 'PUT', path: `/${container}`, query: { restype: 'container' } });
    if (made.status !== 201 && made.status !== 409)
      throw new StorageRestError(made.status, made.errorCode, `Create Container ${container} answered ${made.status}: ${made.text.slice(0, 300)}`);
    answer = await put();
  }
  if (answer.status === 201) return 'created';
  if (options.ifAbsent && (answer.status === 409 || answer.status === 412)) return 'exists';
  throw new StorageRestError(answer.status, answer.errorCode, `Put Blob ${name} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
}
