import { trimTrailingSlashes } from '../text';

/** Parsers turn a raw setting string into a typed value or throw an Error whose message says what is wrong. */
export type Parser<T> = (raw: string) => T;

export const text: Parser<string> = (raw) => raw;

export function integer(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): Parser<number> {
  return (raw) => {
    if (!/^-?\d+$/.test(raw.trim())) throw new Error(`expected an integer, got "${raw}"`);
    const value = Number(raw);
    if (value < min || value > max) throw new Error(`expected an integer from ${min} to ${max}, got ${value}`);
    return value;
  };
}

export const boolean: Parser<boolean> = (raw) => {
  const value = raw.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  throw new Error(`expected true or false, got "${raw}"`);
};

export const url: Parser<string> = (raw) => {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new Error(`expected an absolute URL, got "${raw}"`);
  }
  if (!['http:', 'https:'].includes(parsed.protocol)) throw new Error(`expected an http(s) URL, got "${raw}"`);
  return trimTrailingSlashes(raw);
};

export function oneOf<const T extends string>(values: readonly T[]): Parser<T> {
  return (raw) => {
    if (!(values as readonly string[]).includes(raw)) throw new Error(`expected one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  };
}

export function listOf<const T extends string>(values: readonly T[]): Parser<T[]> {
  return (raw) => {
    const items = raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = items.filter((item) => !(values as readonly string[]).includes(item));
    if (unknown.length) throw new Error(`unknown value(s) ${unknown.join(', ')}; expected a comma list of ${values.join(', ')}`);
    if (!items.length) throw new Error('expected at least one value');
    return [...new Set(items)] as T[];
  };
}

export const json: Parser<unknown> = (raw) => {
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new Error(`expected JSON: ${(error as Error).message}`);
  }
};

/** A secret must be long enough to resist guessing; dev settings generation makes 32 random bytes. */
export function secret(minLength = 16): Parser<string> {
  return (raw) => {
    if (raw.length < minLength) throw new Error(`expected a secret of at least ${minLength} characters`);
    return raw;
  };
}

/** A comma list of web origins (scheme://host[:port], no path); empty is none. */
export const origins: Parser<string[]> = (raw) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item) => {
      let parsed: URL;
      try {
        parsed = new URL(item);
      } catch {
        throw new Error(`expected origins like https://console.example.com, got "${item}"`);
      }
      if (!['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== item.replace(/\/$/, ''))
        throw new Error(`expected an origin (scheme://host[:port], no path), got "${item}"`);
      return parsed.origin;
    });
