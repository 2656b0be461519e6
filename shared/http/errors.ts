import { currentTime } from '../platform';
import type { HttpResponseInit } from '@azure/functions';
import { Code, ERROR_CODES, statusesOf, type CodeFor, type ErrorCode, type ErrorCodeEntry, type StatusOf } from './error-codes';

export { Code, isErrorCode, type CodeFor, type ErrorCode } from './error-codes';

/** An error that maps to one JSON response: `{ error, message, code, timestamp, ...extra }`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly code: ErrorCode,
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
    jsonBody: { error: err.error, message: err.message, code: err.code, timestamp: currentTime().toISOString(), ...err.extra },
  };
}

/** The `error` field of each status, unless the code gives its own. */
export const STATUS_NAMES: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  422: 'Unprocessable entity',
  429: 'Too many requests',
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
};

export interface ErrorOptions<C extends ErrorCode> {
  /** For a code listed with several statuses; its first one otherwise. */
  status?: StatusOf<C>;
  /** The `error` field, when this answer names the error otherwise than the code does. */
  error?: string;
  /** Fields added to the body. */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** The error answer with a listed code: its status and `error` name come from the list unless given. */
export function httpError<C extends ErrorCode>(code: C, message: string, options: ErrorOptions<C> = {}): HttpError {
  const status = options.status ?? statusesOf(code)[0];
  const error = options.error ?? (ERROR_CODES[code] as ErrorCodeEntry).error ?? STATUS_NAMES[status] ?? 'Error';
  return new HttpError(status, error, message, code, options.extra, options.headers);
}

// One factory per status: a throw site shows its status, and its code must be one listed with it.
export const badRequest = (message: string, code: CodeFor<400> = Code.VALIDATION_FAILED, extra?: Record<string, unknown>) =>
  httpError(code, message, { status: 400, extra });
export const unauthorized = (message: string, code: CodeFor<401>) => httpError(code, message, { status: 401 });
export const forbidden = (message: string, code: CodeFor<403>) => httpError(code, message, { status: 403 });
export const notFound = (message: string, code: CodeFor<404>) => httpError(code, message, { status: 404 });
export const methodNotAllowed = (method: string, allowed: readonly string[]) =>
  httpError(Code.METHOD_NOT_ALLOWED, `${method} is not allowed here; use ${allowed.join(', ')}`, { headers: { Allow: allowed.join(', ') } });
export const conflict = (message: string, code: CodeFor<409>, extra?: Record<string, unknown>) => httpError(code, message, { status: 409, extra });
export const tooLarge = (message: string, code: CodeFor<413> = Code.PAYLOAD_TOO_LARGE) => httpError(code, message, { status: 413 });
/** 429 with Retry-After, in the header and as `retryAfter` in the body. */
export const tooManyRequests = (message: string, retryAfterSeconds: number, code: CodeFor<429>) =>
  httpError(code, message, { status: 429, extra: { retryAfter: retryAfterSeconds }, headers: { 'Retry-After': String(retryAfterSeconds) } });
/** 502: a dependency answered, but not in a way this route can use. */
export const badGateway = (message: string, code: CodeFor<502>) => httpError(code, message, { status: 502 });
/** 503: a dependency this route cannot work without (Stripe, identity, the queue) is missing or down. */
export const serviceUnavailable = (message: string, code: CodeFor<503>, retryAfterSeconds?: number) =>
  httpError(code, message, { status: 503, headers: retryAfterSeconds ? { 'Retry-After': String(retryAfterSeconds) } : {} });
