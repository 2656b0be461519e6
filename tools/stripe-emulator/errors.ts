import { randomBytes } from 'node:crypto';

export type Fields = Record<string, unknown>;

/** An error answered in Stripe's format: `{ error: { type, code, message, param, ... } }` with its HTTP status. */
export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly code?: string,
    readonly param?: string,
    readonly extra: Fields = {},
  ) {
    super(message);
  }
}

/** An id in Stripe's shape: a prefix, an underscore and 24 letters or digits. */
export const newId = (prefix: string) => `${prefix}_${randomBytes(18).toString('base64url').replace(/[-_]/g, '').slice(0, 24)}`;
export const nowSeconds = () => Math.floor(Date.now() / 1000);

export const missing = (kind: string, id: string, param: string) =>
  new StripeApiError(404, 'invalid_request_error', `No such ${kind}: '${id}'`, 'resource_missing', param);
export const invalid = (message: string, param?: string, code = 'parameter_invalid') => new StripeApiError(400, 'invalid_request_error', message, code, param);

/** Stripe refuses parameters an endpoint does not take. */
export function refuseUnknown(params: Fields, allowed: readonly string[]): void {
  const unknown = Object.keys(params).find((key) => !allowed.includes(key));
  if (unknown) throw invalid(`Received unknown parameter: ${unknown}`, unknown, 'parameter_unknown');
}
