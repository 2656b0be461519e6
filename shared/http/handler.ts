import { randomUUID } from 'node:crypto';
import type { HttpHandler, HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { createLogger, type Logger } from '../logging';
import { HttpError, errorResponse } from './errors';

export interface RequestContext {
  requestId: string;
  log: Logger;
  invocation: InvocationContext;
}

export type Handler = (request: HttpRequest, ctx: RequestContext) => Promise<HttpResponseInit>;

/**
 * Wraps a route handler: assigns a request id (from X-Request-Id or the invocation id), turns an
 * HttpError into its JSON body, and turns anything else into a 500 with no internals in the body.
 */
export function http(service: string, handler: Handler): HttpHandler {
  return async (request, invocation) => {
    const requestId = request.headers.get('x-request-id')?.slice(0, 100) || invocation.invocationId || randomUUID();
    const log = createLogger({ service, requestId, function: invocation.functionName });
    let response: HttpResponseInit;
    try {
      response = await handler(request, { requestId, log, invocation });
    } catch (error) {
      if (error instanceof HttpError) {
        response = errorResponse(error);
      } else {
        log.error('unhandled error', { error, stack: (error as Error)?.stack });
        response = { status: 500, jsonBody: { error: 'Internal server error', message: 'An unexpected error occurred', code: 'INTERNAL', timestamp: new Date().toISOString(), requestId } };
      }
    }
    return { ...response, headers: { 'X-Request-Id': requestId, ...(response.headers as Record<string, string> | undefined) } };
  };
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): HttpResponseInit => ({ status, jsonBody: body, headers });
