import type { HttpResponseInit } from '@azure/functions';

/** An error that maps to one JSON response: `{ error, message, code, timestamp, ...extra }`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly code: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export function errorResponse(err: HttpError): HttpResponseInit {
  return {
    status: err.status,
    headers: err.headers,
    jsonBody: { error: err.error, message: err.message, code: err.code, timestamp: new Date().toISOString(), ...err.extra },
  };
}

export const badRequest = (message: string, code = 'VALIDATION_FAILED', extra?: Record<string, unknown>) =>
  new HttpError(400, 'Bad request', message, code, extra);
export const unauthorized = (message: string, code = 'AUTH_REQUIRED') => new HttpError(401, 'Unauthorized', message, code);
export const forbidden = (message: string, code = 'FORBIDDEN') => new HttpError(403, 'Forbidden', message, code);
export const notFound = (message: string, code = 'NOT_FOUND') => new HttpError(404, 'Not found', message, code);
export const conflict = (message: string, code = 'CONFLICT', extra?: Record<string, unknown>) => new HttpError(409, 'Conflict', message, code, extra);
export const tooLarge = (message: string) => new HttpError(413, 'Payload too large', message, 'PAYLOAD_TOO_LARGE');
export const tooManyRequests = (message: string, retryAfterSeconds: number, code = 'RATE_LIMITED') =>
  new HttpError(429, 'Too many requests', message, code, { retryAfter: retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) });
/** 503: a dependency this route cannot work without (Stripe, identity, the queue) is missing or down. */
export const serviceUnavailable = (message: string, code: string, retryAfterSeconds?: number) =>
  new HttpError(503, 'Service unavailable', message, code, {}, retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : {});
/** 502: a dependency answered, but not in a way this route can use. */
export const badGateway = (message: string, code: string) => new HttpError(502, 'Bad gateway', message, code);
