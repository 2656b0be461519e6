import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { HttpRequest, HttpResponse, InvocationContext, type HttpRequestInit, type HttpResponseInit } from '@azure/functions';
import { httpRegistration, type HttpFunction } from '../shared/functions';
import { BufferedRequest } from './buffered-request';
import type { Logger } from '../shared/logging';
import { runInPlatform, type Platform } from '../shared/platform';
import { assertRouteAllowed, compileRoute, routePrecedence, type CompiledRoute } from './routes';

/** Azure Functions' own request size limit (maxRequestBodySize: 100 MB). Services set tighter limits per route. */
const MAX_REQUEST_BYTES = 100 * 1024 * 1024;

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

/** The body's bytes; 'aborted' when the client went away before sending all of it (nothing to answer). */
async function readRequestBody(req: IncomingMessage): Promise<Buffer | 'too-large' | 'aborted'> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_REQUEST_BYTES) return 'too-large';
      chunks.push(chunk as Buffer);
    }
  } catch {
    return 'aborted';
  }
  return Buffer.concat(chunks);
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

export function createHttpServer(table: RouteEntry[], log: Logger, platform: Platform): http.Server {
  const server = http.createServer(async (req, res) => {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    const match = resolve(table, method, url.pathname);
    if (!match) {
      req.resume();
      res.writeHead(404, { 'content-length': '0' }).end();
      return;
    }
    const body = await readRequestBody(req);
    // A client that closed its connection mid-body (a load generator stopping) must not stop the host.
    if (body === 'aborted') return;
    if (body === 'too-large') {
      res.writeHead(413, { 'content-length': '0', connection: 'close' }).end();
      req.destroy();
      return;
    }
    const query: Record<string, string> = {};
    url.searchParams.forEach((value, key) => {
      query[key] = value;
    });
    // nativeRequest is how the library's own streaming mode (createStreamRequest) hands HttpRequest a
    // ready fetch Request; not in the public init type.
    const request = new HttpRequest({
      nativeRequest: new BufferedRequest(url.toString(), method, headersOf(req), body.length ? body : undefined),
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
    try {
      let encoded: Encoded;
      try {
        const result = (await runInPlatform(platform, () => match.fn.handler(request, context))) ?? {};
        encoded =
          result instanceof HttpResponse
            ? await encodeHttpResponse(result)
            : (encodeResponseInit(result) ?? (await encodeHttpResponse(new HttpResponse(result))));
      } catch (error) {
        // The Functions host answers a throwing function with an empty 500.
        log.error('function threw', { function: match.fn.name, invocationId, error });
        encoded = { status: 500, headers: {}, body: '' };
      }
      send(res, encoded, method);
    } catch (error) {
      log.error('failed to write response', { function: match.fn.name, error });
      res.destroy();
    }
  });
  // Keep idle connections longer than clients do (Node's fetch keeps them 4 s), so a reused socket is
  // never closed under a request in flight: the server closing first shows up as ECONNRESET.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}
