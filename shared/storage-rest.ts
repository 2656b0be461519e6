import { createHmac } from 'node:crypto';
import type { Agent } from 'node:http';
import { CREDENTIAL } from './azure-credential';
import { nodeClient } from './http/node-client';
import { storageAccount, type StorageAccount, type StorageService } from './storage-account';
import { member, SYSTEM_CLOCK, type Platform } from './platform';

/**
 * Single requests to the storage account's REST API without the Storage SDKs, for the calls on a
 * hot or cold path: the render API's cache write (blob-put.ts) and the health probes. The SDKs
 * (about 85 ms to load the Blob SDK on a cold start here, 17 ms the Table SDK, then a pipeline of
 * policies and an XML parser per call) still do every other call.
 *
 * The account is the platform's data account (storage-account.ts), read as the SDKs read it: a
 * connection string with an account key (Azurite's, or a storage account's: every request signed
 * with Shared Key, one HMAC-SHA256 with the key decoded once), a connection string with a SAS
 * (appended to every request), `UseDevelopmentStorage=true`; or, without one, an account name and
 * the managed identity (its bearer token for Storage, kept until 5 minutes before it expires).
 * The request's date and the token's validity are Storage's business, on Storage's clock: they are
 * read from the system clock (SYSTEM_CLOCK), never the platform's, which a test may have moved.
 */

/** The REST versions sent: ones Azure and Azurite 3.x both accept. */
export const BLOB_VERSION = '2025-01-05';
export const TABLE_VERSION = '2019-02-02';

/**
 * The Blob (and Queue) service's Shared Key string to sign: the standard headers the request may
 * carry, then the x-ms-* headers sorted, then /account/path and the query's parameters sorted.
 * https://learn.microsoft.com/rest/api/storageservices/authorize-with-shared-key
 */
export function sharedKeyStringToSign(
  method: string,
  account: string,
  path: string,
  headers: Record<string, string>,
  query: Record<string, string> = {},
): string {
  const h = (name: string) => headers[name] ?? '';
  const msHeaders = Object.keys(headers)
    .filter((name) => name.startsWith('x-ms-'))
    .sort()
    .map((name) => `${name}:${headers[name].trim()}\n`)
    .join('');
  const params = Object.keys(query)
    .map((name) => [name.toLowerCase(), query[name]] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `\n${name}:${value}`)
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
    `${msHeaders}/${account}${path}${params}`,
  ].join('\n');
}

/** The Table service's Shared Key string to sign: the verb, Content-MD5, Content-Type, the date (x-ms-date's), /account/path (and ?comp=). */
export function tableStringToSign(method: string, account: string, path: string, headers: Record<string, string>, query: Record<string, string> = {}): string {
  return [
    method,
    headers['content-md5'] ?? '',
    headers['content-type'] ?? '',
    headers['x-ms-date'] ?? '',
    `/${account}${path}${query.comp ? `?comp=${query.comp}` : ''}`,
  ].join('\n');
}

export interface StorageAnswer {
  status: number;
  /** Storage's error code (x-ms-error-code), when it sent one. */
  errorCode?: string;
  /** The body of an answer other than 2xx (for the error's message); '' otherwise. */
  text: string;
}

export interface StorageRequest {
  service: StorageService;
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE';
  /** Below the service's endpoint, starting with '/' ('' for the endpoint itself), already encoded. */
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: Uint8Array;
}

/** A storage answer other than the one asked for: its status and Storage's error code, as the SDK's RestError carries them. */
export class StorageRestError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'StorageRestError';
  }
}

/** How long a request may take before it fails (connection, upload and answer). */
const TIMEOUT_MS = 30_000;
const TOKEN_RENEW_BEFORE_MS = 5 * 60_000;
const STORAGE_SCOPE = 'https://storage.azure.com/.default';

export interface StorageRest {
  readonly account: StorageAccount;
  send(request: StorageRequest): Promise<StorageAnswer>;
  close(): void;
}

/** The platform's REST client of its storage account (kept-alive connections, the token kept). */
export const STORAGE_REST = member(
  'storage REST client',
  (platform): StorageRest => storageRest(platform),
  (rest) => rest.close(),
);

function storageRest(platform: Platform): StorageRest {
  const account = storageAccount(platform.config);
  const agents = new Map<string, Agent>();
  const agentFor = (protocol: string) => {
    let agent = agents.get(protocol);
    if (!agent) {
      const options = { keepAlive: true, keepAliveMsecs: 1_000, maxSockets: 64, timeout: TIMEOUT_MS };
      agent = new (nodeClient(protocol).Agent)(options);
      agents.set(protocol, agent);
    }
    return agent;
  };
  let token: { pending: Promise<string>; renewAt: number } | undefined;
  const bearer = (): Promise<string> => {
    if (token && SYSTEM_CLOCK.now().getTime() < token.renewAt) return token.pending;
    const entry = { pending: Promise.resolve(''), renewAt: Infinity };
    entry.pending = platform
      .get(CREDENTIAL)
      .getToken(STORAGE_SCOPE)
      .then((got) => {
        if (!got) throw new StorageRestError(401, 'NoToken', 'the managed identity gave no token for Storage');
        entry.renewAt = got.expiresOnTimestamp - TOKEN_RENEW_BEFORE_MS;
        return `Bearer ${got.token}`;
      });
    entry.pending.catch(() => (token = undefined));
    token = entry;
    return entry.pending;
  };

  const exchange = (url: URL, method: string, headers: Record<string, string>, body: Uint8Array | undefined, retried = false): Promise<StorageAnswer> =>
    new Promise<StorageAnswer>((resolve, reject) => {
      const req = nodeClient(url.protocol).request(url, { method, headers, agent: agentFor(url.protocol), timeout: TIMEOUT_MS }, (res) => {
        const errorCode = res.headers['x-ms-error-code'];
        const ok = (res.statusCode ?? 0) < 300;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => ok || chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            errorCode: typeof errorCode === 'string' ? errorCode : undefined,
            text: ok ? '' : Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error(`Storage: no answer within ${TIMEOUT_MS} ms`), { code: 'ETIMEDOUT' })));
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the server closed under the request: once more, on a new one.
        if (!retried && req.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) resolve(exchange(url, method, headers, body, true));
        else reject(error);
      });
      req.end(body);
    });

  return {
    account,
    async send({ service, method, path, query = {}, headers: given = {}, body }) {
      const endpoint = account.endpoints[service];
      const fullPath = `${endpoint.pathname.replace(/\/$/, '')}${path || '/'}`;
      const headers: Record<string, string> = {
        'x-ms-version': service === 'table' ? TABLE_VERSION : BLOB_VERSION,
        'x-ms-date': SYSTEM_CLOCK.now().toUTCString(),
        ...given,
      };
      if (body) headers['content-length'] = String(body.byteLength);
      let search = Object.entries(query)
        .map(([name, value]) => `${name.replace(/[^\w$]/g, encodeURIComponent)}=${encodeURIComponent(value)}`)
        .join('&');
      if (account.key) {
        const toSign =
          service === 'table'
            ? tableStringToSign(method, account.name, fullPath, headers, query)
            : sharedKeyStringToSign(method, account.name, fullPath, headers, query);
        headers.authorization = `SharedKey ${account.name}:${createHmac('sha256', account.key).update(toSign, 'utf8').digest('base64')}`;
      } else if (account.sas) {
        search = search ? `${search}&${account.sas}` : account.sas;
      } else {
        headers.authorization = await bearer();
      }
      const url = new URL(`${endpoint.origin}${fullPath}${search ? `?${search}` : ''}`);
      return exchange(url, method, headers, body);
    },
    close() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}

/**
 * A container answers (a health probe): its properties, read with one request and the app's own
 * rights (an app's identity has data roles on its own containers only, so the account's service
 * properties are not something it may read); a container not made yet is made, as the first
 * write would, then asked again.
 */
export async function probeContainer(platform: Platform, container: string): Promise<string> {
  const rest = platform.get(STORAGE_REST);
  const path = `/${encodeURIComponent(container)}`;
  const properties = () => rest.send({ service: 'blob', method: 'GET', path, query: { restype: 'container' } });
  let answer = await properties();
  if (answer.status === 404) {
    const made = await rest.send({ service: 'blob', method: 'PUT', path, query: { restype: 'container' } });
    if (made.status !== 201 && made.status !== 409)
      throw new StorageRestError(made.status, made.errorCode, `Blob Storage answered ${made.status} ${made.errorCode ?? ''} making ${container}`.trim());
    answer = await properties();
  }
  if (answer.status !== 200)
    throw new StorageRestError(answer.status, answer.errorCode, `Blob Storage answered ${answer.status} ${answer.errorCode ?? ''}`.trim());
  return `${rest.account.name}/${container}`;
}

/**
 * A table answers a query (a health probe): one entity at most of the partition 'health' is asked
 * for; a table not made yet is made (as the Table SDK's createTable did), then asked again.
 */
export async function probeTable(platform: Platform, table: string): Promise<string> {
  const rest = platform.get(STORAGE_REST);
  const query = () =>
    rest.send({
      service: 'table',
      method: 'GET',
      path: `/${encodeURIComponent(table)}()`,
      query: { $filter: "PartitionKey eq 'health'", $top: '1' },
      headers: { accept: 'application/json;odata=nometadata' },
    });
  let answer = await query();
  if (answer.status === 404) {
    const body = Buffer.from(JSON.stringify({ TableName: table }));
    const made = await rest.send({
      service: 'table',
      method: 'POST',
      path: '/Tables',
      headers: { accept: 'application/json;odata=nometadata', 'content-type': 'application/json', prefer: 'return-no-content' },
      body,
    });
    if (made.status !== 204 && made.status !== 201 && made.status !== 409)
      throw new StorageRestError(made.status, made.errorCode, `Table Storage answered ${made.status} ${made.errorCode ?? ''} making ${table}`.trim());
    answer = await query();
  }
  if (answer.status !== 200)
    throw new StorageRestError(answer.status, answer.errorCode, `Table Storage answered ${answer.status} ${answer.errorCode ?? ''}`.trim());
  return table;
}
