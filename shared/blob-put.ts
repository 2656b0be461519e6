import type { ContainerClient } from '@azure/storage-blob';
import type { Dispatcher } from 'undici';
import { CREDENTIAL } from './azure-credential';
import { member, SYSTEM_CLOCK, type Platform } from './platform';
import { undici } from './http/undici';
import { vendored } from './vendor';

/**
 * One `Put Blob` as a single HTTP request through undici, for a write on a request's path (the
 * render API stores each uncached image before it answers the image's URL). The Storage SDK's
 * pipeline for one upload (its policies, retries, request and header objects, the shared-key
 * signature of every request) cost about 1.2 ms of this process's CPU per upload here; this costs
 * a few tenths of that (bench/visual: the `store` step). The SDK still makes the container (once)
 * and does every other call.
 *
 * The authorisation is made once per container and reused:
 * - an account key (a connection string: Azurite's, or a storage account's): the Shared Key
 *   signature, one HMAC-SHA256 per request with the key decoded once. A SAS signed once and reused
 *   would save that HMAC (a few microseconds) but carries a validity window, which Azurite checks
 *   against its own clock: tests that move the process's clock would see their writes refused;
 * - a connection string with a SAS: the SAS it carries;
 * - the managed identity (Azure without a connection string): its bearer token for Storage, kept
 *   until 5 minutes before it expires.
 * The request's date and the token's validity are Storage's business, on Storage's clock: they are
 * read from the system clock (SYSTEM_CLOCK), never the platform's, which a test may have moved.
 *
 * A put succeeds only on 201 (the blob is written and readable from any instance at once) or, when
 * asked `ifAbsent`, reports a blob already under the name (409); anything else throws, so a caller
 * never answers a URL to a blob that was not written. A request on a kept-alive connection that the
 * server has just closed is sent once more (a put of the same bytes is idempotent).
 */
export interface BlobPutOptions {
  contentType: string;
  metadata?: Record<string, string>;
  /** Writes only if no blob is under the name (If-None-Match: *). */
  ifAbsent?: boolean;
}
export type BlobPutOutcome = 'created' | 'exists';

export interface BlobPut {
  put(container: ContainerClient, name: string, bytes: Uint8Array, options: BlobPutOptions): Promise<BlobPutOutcome>;
}

/** The REST version sent: one Azure and Azurite 3.x both accept. */
export const BLOB_PUT_VERSION = '2025-01-05';
const TOKEN_RENEW_BEFORE_MS = 5 * 60_000;
const STORAGE_SCOPE = 'https://storage.azure.com/.default';

/** A storage answer other than the one asked for: its status and Storage's error code, as the SDK's RestError carries them. */
export class BlobPutError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'BlobPutError';
  }
}

interface Authorisation {
  /** The query to append (a connection string's SAS, without its '?'), or '' */
  query: string;
  /** The Authorization header of a request: a Shared Key signature of its headers, or the cached bearer token. */
  header?: (method: string, path: string, headers: Record<string, string>) => string;
  /** Renew after this time (system clock, ms); Infinity: never. */
  renewAt: number;
}

type ClientCredential = ContainerClient['credential'];

/**
 * The Shared Key string to sign of a request with no query (Put Blob), as Storage and Azurite compute
 * it: the standard headers this request may carry, then the x-ms-* headers sorted, then the account
 * and the path.
 * https://learn.microsoft.com/rest/api/storageservices/authorize-with-shared-key
 */
export function sharedKeyStringToSign(method: string, account: string, path: string, headers: Record<string, string>): string {
  const h = (name: string) => headers[name] ?? '';
  const msHeaders = Object.keys(headers)
    .filter((name) => name.startsWith('x-ms-'))
    .sort()
    .map((name) => `${name}:${headers[name].trim()}\n`)
    .join('');
  const length = h('content-length') === '0' ? '' : h('content-length');
  return [
    method,
    h('content-encoding'),
    h('content-language'),
    length,
    h('content-md5'),
    h('content-type'),
    '', // Date: x-ms-date is sent instead
    h('if-modified-since'),
    h('if-match'),
    h('if-none-match'),
    h('if-unmodified-since'),
    h('range'),
    `${msHeaders}/${account}${path}`,
  ].join('\n');
}

async function authorise(platform: Platform, client: ContainerClient): Promise<Authorisation> {
  const sdk = vendored('@azure/storage-blob');
  const credential: ClientCredential = client.credential;
  if (credential instanceof sdk.StorageSharedKeyCredential) {
    // The key is decoded once (the credential keeps it); each request costs one HMAC of its string to sign.
    return {
      query: '',
      header: (method, path, headers) =>
        `SharedKey ${credential.accountName}:${credential.computeHMACSHA256(sharedKeyStringToSign(method, credential.accountName, path, headers))}`,
      renewAt: Infinity,
    };
  }
  if (credential instanceof sdk.AnonymousCredential) {
    // A connection string's SAS is in the client's URL; it lasts as long as the setting does.
    return { query: new URL(client.url).search.slice(1), renewAt: Infinity };
  }
  const token = await platform.get(CREDENTIAL).getToken(STORAGE_SCOPE);
  if (!token) throw new BlobPutError(401, 'NoToken', 'the managed identity gave no token for Storage');
  const bearer = `Bearer ${token.token}`;
  return { query: '', header: () => bearer, renewAt: token.expiresOnTimestamp - TOKEN_RENEW_BEFORE_MS };
}

/** The errors undici raises when a kept-alive connection was closed under the request: worth one more try. */
const CLOSED_UNDER_US = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

export const BLOB_PUT = member(
  'blob put',
  (platform): BlobPut & { close: () => Promise<void> } => {
    let agent: Dispatcher | undefined;
    const dispatcher = () => (agent ??= new (undici().Agent)({ keepAliveTimeout: 4_000, connect: { timeout: 5_000 }, headersTimeout: 30_000, bodyTimeout: 30_000 }));
    // One authorisation per container URL, shared by concurrent puts while it is being made.
    const auth = new Map<string, { pending: Promise<Authorisation>; renewAt: number }>();
    const authorisation = (client: ContainerClient): Promise<Authorisation> => {
      const now = SYSTEM_CLOCK.now().getTime();
      const known = auth.get(client.url);
      if (known && now < known.renewAt) return known.pending;
      const entry = { pending: authorise(platform, client), renewAt: Infinity };
      auth.set(client.url, entry);
      entry.pending.then(
        (made) => (entry.renewAt = made.renewAt),
        () => auth.delete(client.url),
      );
      return entry.pending;
    };

    async function send(client: ContainerClient, name: string, bytes: Uint8Array, options: BlobPutOptions, retried: boolean): Promise<BlobPutOutcome> {
      const { query, header } = await authorisation(client);
      const base = new URL(client.url);
      const path = `${base.pathname}/${encodeURIComponent(name)}`;
      const headers: Record<string, string> = {
        'x-ms-version': BLOB_PUT_VERSION,
        'x-ms-date': SYSTEM_CLOCK.now().toUTCString(),
        'x-ms-blob-type': 'BlockBlob',
        'x-ms-blob-content-type': options.contentType,
        'content-type': options.contentType,
        'content-length': String(bytes.byteLength),
      };
      if (options.ifAbsent) headers['if-none-match'] = '*';
      for (const [key, value] of Object.entries(options.metadata ?? {})) headers[`x-ms-meta-${key}`] = value;
      if (header) headers.authorization = header('PUT', path, headers);
      let response: Dispatcher.ResponseData;
      try {
        response = await undici().request(`${base.origin}${path}${query ? `?${query}` : ''}`, {
          method: 'PUT',
          headers,
          body: bytes,
          dispatcher: dispatcher(),
        });
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (!retried && code && CLOSED_UNDER_US.has(code)) return send(client, name, bytes, options, true);
        throw error;
      }
      const status = response.statusCode;
      const errorCode = response.headers['x-ms-error-code'];
      const text = status === 201 ? '' : await response.body.text();
      if (status === 201) {
        await response.body.dump();
        return 'created';
      }
      if (options.ifAbsent && (status === 409 || status === 412)) return 'exists';
      throw new BlobPutError(status, typeof errorCode === 'string' ? errorCode : undefined, `Put Blob ${name} answered ${status}: ${text.slice(0, 300)}`);
    }

    return {
      put: (client, name, bytes, options) => send(client, name, bytes, options, false),
      close: async () => {
        await agent?.close();
        agent = undefined;
      },
    };
  },
  (made) => made.close(),
);
