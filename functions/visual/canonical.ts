import { createHash } from 'node:crypto';
import { UNSAFE_KEYS } from '../../shared/http/body';

/**
 * sha256 hex of the JSON of `parts`, keys in the order they hold. A cache key must be a hash of
 * exactly what is drawn, and renderers draw objects in their key order (an infographic's metrics,
 * a chart's datasets): two specifications that differ only in key order can draw different images,
 * so they get different keys. Nothing is dropped: the body reader refuses the keys that could
 * reach a prototype (UNSAFE_KEYS) instead.
 */
export function hashKey(...parts: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

type Json = Record<string, unknown>;
const isPlainObject = (v: unknown): v is Json => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** Deep merge of JSON objects; `over` wins, arrays and scalars are replaced. Unsafe keys never arrive (the body reader refuses them); skipping them keeps a merge from reaching a prototype whatever it is given. */
export function mergeJson(base: Json, over: Json | undefined): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(over ?? {})) {
    if (UNSAFE_KEYS.has(key)) continue;
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? mergeJson(out[key] as Json, value) : value;
  }
  return out;
}
