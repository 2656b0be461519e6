import type { ContainerClient } from '@azure/storage-blob';
import http from 'node:http';
import https from 'node:https';
import { CREDENTIAL } from './azure-credential';
import { member, SYSTEM_CLOCK, type Platform } from './platform';
import { vendored } from './vendor';

/**
 * One `Put Blob` as a single HTTP request through Node's http client with kept-alive connections, for a write on a request's path (the
 * render API stores each uncached image before it answers the image's URL). The Storage SDK's
 * pipeline for one upload (its policies, retries, request and header objects, the shared-key
 * signature of every request) cost about 0.5 ms of this process's CPU per upload here (warm, 9 KiB,
 * 4 concurrent); this costs about 0.12 ms. undici's `request` measured 0.2 ms in the same run, so
 * Node's own client it is (bench/visual: the `store` step). The SDK still makes the container
 * (once) and does every other call.
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
 * asked `ifAbsent`, reports a blob already under the name (409); anything else throws (an error
 * answer as BlobPutError with Storage's status and code, no connection as the socket's error, no
 * answer within 30 s as ETIMEDOUT), so a caller never answers a URL to a blob that was not written.
 * There is no retry but one: a request on a kept-alive connection that the server closed under it
 * is sent once more on a new one (a put of the same bytes is idempotent). The SDK's retries (up to
 * 4, backing off) kept a request waiting while Storage was down; now it fails at once.
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

/** A request's outcome: the status, Storage's error code, and the body of an error answer. */
interface Answer {
  status: number;
  errorCode?: string;
  text: string;
}

/** How long a put may take before it fails (connection, upload and answer). */
const PUT_TIMEOUT_MS = 30_000;

export const BLOB_PUT = member(
  'blob put',
  (platform): BlobPut & { close: () => Promise<void> } => {
    // Kept-alive connections of this platform's puts, one agent per protocol.
    const agents = new Map<string, http.Agent>();
    const agentFor = (protocol: string) => {
      let agent = agents.get(protocol);
      if (!agent) {
        const options = { keepAlive: true, keepAliveMsecs: 1_000, maxSockets: 64, timeout: PUT_TIMEOUT_MS };
        agent = protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
        agents.set(protocol, agent);
      }
      return agent;
    };
    // One authorisation per container URL, shared by concurrent puts while it is being made.
    const auth = new Map<string, { pending: Promise<Authorisation>; renewAt: number; base: URL }>();
    const authorisation = (client: ContainerClient) => {
      const now = SYSTEM_CLOCK.now().getTime();
      const known = auth.get(client.url);
      if (known && now < known.renewAt) return known;
      const entry = { pending: authorise(platform, client), renewAt: Infinity, base: new URL(client.url) };
      auth.set(client.url, entry);
      entry.pending.then(
        (made) => (entry.renewAt = made.renewAt),
        () => auth.delete(client.url),
      );
      return entry;
    };

    /** One PUT; a kept-alive connection the server closed under it (ECONNRESET on a reused socket) is tried once more on a new one. */
    const request = (base: URL, path: string, headers: Record<string, string>, bytes: Uint8Array, retried = false): Promise<Answer> =>
      new Promise<Answer>((resolve, reject) => {
        const req = (base.protocol === 'https:' ? https : http).request(
          { host: base.hostname, port: base.port, path, method: 'PUT', headers, agent: agentFor(base.protocol), timeout: PUT_TIMEOUT_MS },
          (res) => {
            const errorCode = res.headers['x-ms-error-code'];
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('error', reject);
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                errorCode: typeof errorCode === 'string' ? errorCode : undefined,
                text: res.statusCode === 201 ? '' : Buffer.concat(chunks).toString('utf8'),
              }),
            );
          },
        );
        req.on('timeout', () => req.destroy(Object.assign(new Error(`Put Blob: no answer within ${PUT_TIMEOUT_MS} ms`), { code: 'ETIMEDOUT' })));
        req.on('error', (error: NodeJS.ErrnoException) => {
          if (!retried && req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) resolve(request(base, path, headers, bytes, true));
          else reject(error);
        });
        req.end(bytes);
      });

    async function send(client: ContainerClient, name: string, bytes: Uint8Array, options: BlobPutOptions): Promise<BlobPutOutcome> {
      const entry = authorisation(client);
      const { query, header } = await entry.pending;
      const blobPath = `${entry.base.pathname}/${encodeURIComponent(name)}`;
      const headers: Record<string, string> = {
        'x-ms-version': BLOB_PUT_VERSION,
        'x-ms-date': SYSTEM_CLOCK.now().toUTCString(),
        'x-ms-blob-type': 'BlockBlob',
        'x-ms-blob-content-type': options.contentType,
        'content-type': options.contentType,
        'content-length': String(bytes.byteLength),
      };
      if (options.ifAbsent) headers['if-none-match'] = '*';
      for (const key in options.metadata) headers[`x-ms-meta-${key}`] = options.metadata[key];
      if (header) headers.authorization = header('PUT', blobPath, headers);
      const answer = await request(entry.base, query ? `${blobPath}?${query}` : blobPath, headers, bytes);
      if (answer.status === 201) return 'created';
      if (options.ifAbsent && (answer.status === 409 || answer.status === 412)) return 'exists';
      throw new BlobPutError(answer.status, answer.errorCode, `Put Blob ${name} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
    }

    return {
      put: send,
      close: async () => {
        for (const agent of agents.values()) agent.destroy();
        agents.clear();
      },
    };
  },
  (made) => made.close(),
);
