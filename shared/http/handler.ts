import { randomUUID } from 'node:crypto';
import type { HttpHandler, HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { config } from '../config';
import { createLogger, type Logger } from '../logging';
import { Code, errorResponse, HttpError, httpError } from './errors';

export interface RequestContext {
  requestId: string;
  log: Logger;
  invocation: InvocationContext;
}

export type Handler = (request: HttpRequest, ctx: RequestContext) => Promise<HttpResponseInit>;

/**
 * Headers every answer carries unless its handler says otherwise: nothing is cached by browsers or
 * proxies (answers carry tokens, secrets and personal data; the few public ones set their own
 * Cache-Control), nothing is content-sniffed, and no answer renders inside a frame or runs script.
 */
const SAFE_DEFAULTS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
};

/** Headers a browser may read on a cross-origin answer, and send on a cross-origin request. */
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, Location, Content-Disposition';
const ALLOWED_REQUEST_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** CORS headers for a request from an allowed origin (CORS_ALLOWED_ORIGINS); none for any other. */
function corsHeaders(request: HttpRequest): Record<string, string> {
  const origin = request.headers.get('origin');
  if (!origin || !config().CORS_ALLOWED_ORIGINS.includes(origin)) return {};
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS, Vary: 'Origin' };
}

/** A CORS preflight (OPTIONS with Access-Control-Request-Method), answered before any handler runs. */
function preflight(request: HttpRequest): HttpResponseInit | undefined {
  const method = request.headers.get('access-control-request-method');
  if (request.method !== 'OPTIONS' || !method) return undefined;
  const cors = corsHeaders(request);
  if (!cors['Access-Control-Allow-Origin']) return { status: 204, headers: { Vary: 'Origin' } };
  return {
    status: 204,
    headers: {
      ...cors,
      'Access-Control-Allow-Methods': method.toUpperCase(),
      'Access-Control-Allow-Headers': ALLOWED_REQUEST_HEADERS,
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
    },
  };
}

/**
 * A request id is kept only as 1 to 64 of these characters: it is written to the answer's header,
 * every log line and the audit trails, so a caller's own may not carry markup, separators, control
 * characters or bulk there.
 */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The caller's X-Request-Id when it fits REQUEST_ID; otherwise the invocation's id (a GUID). A
 * request id only traces, so one that does not fit is replaced, never refused: the answer's
 * X-Request-Id says which id the logs and the audit trail hold.
 */
function requestIdOf(request: HttpRequest, invocation: InvocationContext): string {
  return [request.headers.get('x-request-id'), invocation.invocationId].find((id) => id && REQUEST_ID.test(id)) ?? randomUUID();
}

/**
 * Wraps a route handler: assigns a request id (requestIdOf), answers CORS
 * preflights, turns an HttpError into its JSON body and anything else into a 500 with no internals
 * in the body, and adds the safe default headers and the CORS headers to every answer.
 */
export function http(service: string, handler: Handler): HttpHandler {
  return async (request, invocation) => {
    const requestId = requestIdOf(request, invocation);
    const log = createLogger({ service, requestId, function: invocation.functionName });
    let response: HttpResponseInit;
    try {
      response = preflight(request) ?? (await handler(request, { requestId, log, invocation }));
    } catch (error) {
      if (error instanceof HttpError) {
        response = errorResponse(error);
      } else {
        log.error('unhandled error', { error, stack: (error as Error)?.stack });
        response = errorResponse(httpError(Code.INTERNAL, 'An unexpected error occurred', { extra: { requestId } }));
      }
    }
    return {
      ...response,
      headers: withDefaults(response.headers as Record<string, string> | undefined, { 'X-Request-Id': requestId, ...corsHeaders(request) }),
    };
  };
}

/** An error answered outside any handler (the host refusing a request it cannot route): the envelope with the safe default headers. */
export function refusal(error: HttpError): HttpResponseInit {
  const response = errorResponse(error);
  return { ...response, headers: withDefaults(response.headers as Record<string, string> | undefined, {}) };
}

/** The handler's headers win over the defaults, matched case-insensitively. */
function withDefaults(own: Record<string, string> = {}, always: Record<string, string>): Record<string, string> {
  const set = new Set(Object.keys(own).map((k) => k.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...SAFE_DEFAULTS, ...always })) if (!set.has(key.toLowerCase())) out[key] = value;
  return { ...out, ...own };
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): HttpResponseInit => ({ status, jsonBody: body, headers });
