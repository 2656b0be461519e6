import { badRequest } from '../../../shared/http/errors';

/** A query-string schema: only the named parameters, each a string; unknown parameters are a 400 naming them. */
export function querySchema(properties: Record<string, object>) {
  return { type: 'object', properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, { type: 'string', ...v }])), additionalProperties: false };
}

/** A whole number in [min, max] from the query string, or the default when absent; anything else is a 400 saying what is allowed. */
export function integerParam(value: string | undefined, name: string, { min, max, fallback }: { min: number; max: number; fallback: number }): number {
  if (value === undefined) return fallback;
  const n = /^\d{1,9}$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw badRequest(`${name} must be an integer from ${min} to ${max}; got "${value.slice(0, 40)}"`, 'INVALID_QUERY', { field: name });
  return n;
}
