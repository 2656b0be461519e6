import { createHash } from 'node:crypto';

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * A JSON value rebuilt with sorted keys, without keys that could reach an object's prototype when
 * a library merges it. Used both to hash a specification and to hand it to the renderer.
 */
export function canonical<T>(value: T): T {
  if (Array.isArray(value)) return value.map(canonical) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (!UNSAFE_KEYS.has(key)) out[key] = canonical((value as Record<string, unknown>)[key]);
    }
    return out as T;
  }
  return value;
}

/** sha256 hex of the canonical JSON of `parts`: equal specifications give equal keys whatever their key order. */
export function hashKey(...parts: unknown[]): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(parts)))
    .digest('hex');
}

type Json = Record<string, unknown>;
const isPlainObject = (v: unknown): v is Json => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** Deep merge of JSON objects; `over` wins, arrays and scalars are replaced, unsafe keys are skipped. */
export function mergeJson(base: Json, over: Json | undefined): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(over ?? {})) {
    if (UNSAFE_KEYS.has(key)) continue;
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? mergeJson(out[key] as Json, value) : value;
  }
  return out;
}
