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
export function newId(prefix: string): string {
  let letters = '';
  // 24 random bytes give 32 characters, of which `-` and `_` are dropped: almost always enough at once.
  while (letters.length < 24) letters += randomBytes(24).toString('base64url').replace(/[-_]/g, '');
  return `${prefix}_${letters.slice(0, 24)}`;
}
export const nowSeconds = () => Math.floor(Date.now() / 1000);

export const missing = (kind: string, id: string, param: string) =>
  new StripeApiError(404, 'invalid_request_error', `No such ${kind}: '${id}'`, 'resource_missing', param);
export const invalid = (message: string, param?: string, code = 'parameter_invalid') => new StripeApiError(400, 'invalid_request_error', message, code, param);

/** Stripe refuses parameters an endpoint does not take. */
export function refuseUnknown(params: Fields, allowed: readonly string[]): void {
  const unknown = Object.keys(params).find((key) => !allowed.includes(key));
  if (unknown) throw invalid(`Received unknown parameter: ${unknown}`, unknown, 'parameter_unknown');
}

/**
 * A parameter Stripe takes but the local server does not implement: refused out loud (400) rather
 * than ignored, so nobody relies on behaviour the emulator only pretends to have.
 */
export const unsupported = (param: string, what = param) =>
  invalid(`The local Stripe server does not implement ${what}: leave ${param} out, or use Stripe itself.`, param, 'parameter_unknown');
