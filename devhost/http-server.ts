import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { HttpRequest, HttpResponse, InvocationContext, type HttpRequestInit, type HttpResponseInit } from '@azure/functions';
import { httpRegistration, type HttpFunction } from '../shared/functions';
import { Code, httpError, type HttpError } from '../shared/http/errors';
import { refusal } from '../shared/http/handler';
import { BufferedRequest } from './buffered-request';
import type { Logger } from '../shared/logging';
import { assertRouteAllowed, compileRoute, routePrecedence, type CompiledRoute } from './routes';

/** Azure Functions' own request size limit (maxRequestBodySize: 100 MB). Services set tighter limits per route. */
const MAX_REQUEST_BYTES = 100 * 1024 * 1024;
/** How long the rest of a refused body is drained after the 413 before the connection is closed. */
const LINGER_MS = 2000;

export interface RouteEntry {
  fn: HttpFunction;
  route: CompiledRoute;
  precedence: number[];
}

function comparePrecedence(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? -1) - (b[i] ?? -1);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** Compiles and orders the HTTP functions as the entry point registers them, refusing reserved `admin` routes the way Azure does. */
export function buildRouteTable(functions: HttpFunction[]): RouteEntry[] {
  return functions
    .map((fn) => {
      assertRouteAllowed(fn.route);
      return { fn: { ...fn, ...httpRegistration(fn) }, route: compileRoute(fn.route), precedence: routePrecedence(fn.route) };
    })
    .sort((a, b) => comparePrecedence(a.precedence, b.precedence));
}

/**
 * Finds the function for a request. As on Azure, a path whose route exists but does not accept
 * the method is a 404 (the host's routing answers before any function runs), not a 405.
 */
export function resolve(table: RouteEntry[], method: string, path: string): { fn: HttpFunction; params: Record<string, string> } | undefined {
  for (const entry of table) {
    if (!entry.fn.methods.includes(method as never)) continue;
    const params = entry.route.match(path);
    if (params) return { fn: entry.fn, params };
  }
  return undefined;
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  // As Azure's App Service front end does: `client-ip` is the peer it saw (any value the caller sent
  // is overwritten) and the peer is appended to X-Forwarded-For, whose earlier hops the caller wrote.
  const peer = formatPeer(req.socket.remoteAddress, req.socket.remotePort);
  out['client-ip'] = peer;
  out['x-forwarded-for'] = out['x-forwarded-for'] ? `${out['x-forwarded-for']}, ${peer}` : peer;
  return out;
}

function formatPeer(address = '', port?: number): string {
  const host = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (port === undefined) return host;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The request body, read with 'data' and 'end' events (the async iterator costs a promise and a
 * stream wrapper per chunk: measurably slower on small bodies), never more than `limit` bytes of
 * it: past the limit the rest is discarded as it arrives, so a body of any size (chunked, or
 * lying about its length) costs the host at most `limit` bytes. 'aborted' when the client goes
 * away before the last byte: no function runs for it.
 */
function readRequestBody(req: IncomingMessage, limit: number): Promise<Buffer | { tooLarge: number } | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Buffer | { tooLarge: number } | 'aborted') => {
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onClose);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      chunks.length = 0;
      finish({ tooLarge: size });
      // Keep the connection readable until the answer is written: the bytes still coming are dropped.
      req.resume();
    };
    const onEnd = () => finish(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    const onAbort = () => finish('aborted');
    // 'close' before 'end' means the body never completed.
    const onClose = () => finish(req.complete ? Buffer.concat(chunks, size) : 'aborted');
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onClose);
  });
}

interface Encoded {
  status: number;
  headers: Record<string, string>;
  /** Text stays a string: Node then sends it in the same write as the headers. */
  body: Buffer | string;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * What the library's HttpResponse makes of a returned init, done directly for JSON, text and byte
 * bodies: building an undici Response and reading it back costs about 130 µs a request, most of a
 * small route's time. Anything else (streams, cookies, HttpResponse objects) goes through the
 * library; a test compares both paths.
 */
export function encodeResponseInit(init: HttpResponseInit): Encoded | undefined {
  if (init.cookies?.length || (init.headers && !isPlainHeaders(init.headers))) return undefined;
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries((init.headers ?? {}) as Record<string, string>)) headers[key.toLowerCase()] = String(value);
  const status = init.status ?? 200;
  let body: Buffer | string;
  if (NULL_BODY_STATUSES.has(status)) body = '';
  else if (init.jsonBody !== undefined) {
    body = JSON.stringify(init.jsonBody);
    headers['content-type'] ??= 'application/json';
  } else if (init.body === undefined || init.body === null) body = '';
  else if (typeof init.body === 'string') {
    body = init.body;
    headers['content-type'] ??= 'text/plain;charset=UTF-8';
  } else if (init.body instanceof Uint8Array) body = Buffer.from(init.body.buffer, init.body.byteOffset, init.body.byteLength);
  else return undefined;
  return { status, headers, body };
}

const isPlainHeaders = (headers: unknown) =>
  typeof headers === 'object' && headers !== null && !Array.isArray(headers) && Object.getPrototypeOf(headers) === Object.prototype;

export async function encodeHttpResponse(response: HttpResponse): Promise<Encoded> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  return { status: response.status ?? 200, headers, body: Buffer.from(await response.arrayBuffer()) };
}

function send(res: ServerResponse, { status, headers, body }: Encoded, method: string): void {
  res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
  res.end(method === 'HEAD' ? undefined : body);
}

/**
 * Node closes a connection whose request body was not read once the answer is written, and a
 * socket closed with unread bytes is reset: the client, still sending, loses the answer with the
 * connection. As web servers do (a lingering close), the answer is followed by a half-close, and
 * what still arrives is read and dropped for a moment before the socket goes.
 */
function lingeringClose(socket: Socket): void {
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

/** A refusal the host answers itself, before any function runs: the JSON envelope with the safe headers. */
function refuse(res: ServerResponse, error: HttpError): void {
  const encoded = encodeResponseInit(refusal(error))!;
  send(res, { ...encoded, headers: { ...encoded.headers, connection: 'close' } }, 'GET');
}

/**
 * The request's URL. Its host comes from the Host header, which the caller writes: one that is no
 * host at all (`[`, `bad host:99999`) is refused, as Azure's front end refuses it. The path is
 * joined as text, never resolved against the host: `//orchestrator/console` is a path, not a
 * reference to the host `orchestrator`.
 */
function requestUrl(req: IncomingMessage): URL | undefined {
  const target = req.url ?? '/';
  try {
    return new URL(target.startsWith('/') ? `http://${req.headers.host ?? 'localhost'}${target}` : target);
  } catch {
    return undefined;
  }
}

async function serveRequest(table: RouteEntry[], log: Logger, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const url = requestUrl(req);
  if (!url) {
    req.resume();
    return refuse(res, httpError(Code.HOST_INVALID, `The Host header "${String(req.headers.host).slice(0, 100)}" is not a valid host`));
  }
  const match = resolve(table, method, url.pathname);
  if (!match) {
    req.resume();
    res.writeHead(404, { 'content-length': '0' }).end();
    return;
  }
  // The route's own limit, known before a byte is read: a declared length above it is not read at
  // all, a chunked body is read up to it. Either way the function sees the length and answers its 413.
  const limit = Math.min(MAX_REQUEST_BYTES, match.fn.maxBodyBytes ? match.fn.maxBodyBytes() : MAX_REQUEST_BYTES);
  const declared = Number(req.headers['content-length'] ?? 0);
  const body = declared > limit ? { tooLarge: declared } : await readRequestBody(req, limit);
  if (body === 'aborted') {
    req.destroy();
    return;
  }
  const headers = headersOf(req);
  const truncated = !Buffer.isBuffer(body);
  if (truncated) {
    req.resume();
    headers['content-length'] = String(body.tooLarge);
    delete headers['transfer-encoding'];
  }
  const query: Record<string, string> = {};
  url.searchParams.forEach((value, key) => {
    query[key] = value;
  });
  // nativeRequest is how the library's own streaming mode (createStreamRequest) hands HttpRequest a
  // ready fetch Request; not in the public init type.
  const request = new HttpRequest({
    nativeRequest: new BufferedRequest(url.toString(), method, headers, !truncated && body.length ? body : undefined),
    query,
    params: match.params,
  } as HttpRequestInit);
  const invocationId = randomUUID();
  const context = new InvocationContext({
    invocationId,
    functionName: match.fn.name,
    logHandler: (level, ...args) =>
      log[level === 'error' || level === 'warning' ? (level === 'error' ? 'error' : 'warn') : 'debug'](String(args[0]), {
        function: match.fn.name,
        invocationId,
      }),
  });
  let encoded: Encoded;
  try {
    const result = (await match.fn.handler(request, context)) ?? {};
    encoded =
      result instanceof HttpResponse ? await encodeHttpResponse(result) : (encodeResponseInit(result) ?? (await encodeHttpResponse(new HttpResponse(result))));
  } catch (error) {
    // The Functions host answers a throwing function with an empty 500.
    log.error('function threw', { function: match.fn.name, invocationId, error });
    encoded = { status: 500, headers: {}, body: '' };
  }
  if (truncated) lingeringClose(req.socket);
  send(res, encoded, method);
}

export function createHttpServer(table: RouteEntry[], log: Logger): http.Server {
  // No request, header or body may end the process: whatever escapes is logged and the connection dropped.
  const server = http.createServer((req, res) => {
    serveRequest(table, log, req, res).catch((error) => {
      log.error('failed to serve a request', { error });
      res.destroy();
    });
  });
  // Keep idle connections longer than clients do (Node's fetch keeps them 4 s), so a reused socket is
  // never closed under a request in flight: the server closing first shows up as ECONNRESET.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}
