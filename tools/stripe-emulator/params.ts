import type Stripe from 'stripe';
import { invalid, missing, type Fields } from './errors';

/**
 * Reading Stripe's form parameters as Stripe does: every value arrives as a string (the client
 * encodes numbers and booleans as text), nested objects and arrays as qs decodes them
 * (form.ts). A value of the wrong kind is Stripe's 400 naming the parameter.
 */

export function text(params: Fields, name: string): string | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw invalid(`Invalid string: ${name} must be a string.`, name);
  return value;
}

export function required(params: Fields, name: string): string {
  const value = text(params, name);
  if (value === undefined || value === '') throw invalid(`Missing required param: ${name}.`, name, 'parameter_missing');
  return value;
}

export function integer(params: Fields, name: string): number | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  const number = typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number)) throw invalid(`Invalid integer: ${String(value)}`, name, 'parameter_invalid_integer');
  return number;
}

export function boolean(params: Fields, name: string): boolean | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw invalid(`Invalid boolean: ${String(value)}`, name);
  return value === 'true';
}

export function object(params: Fields, name: string): Fields | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid(`Invalid object: ${name} must be an object.`, name);
  return value as Fields;
}

/** An array parameter (`items[0][price]=...`); qs decodes indexed brackets into an array. */
export function array(params: Fields, name: string): unknown[] | undefined {
  const value = params[name];
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw invalid(`Invalid array: ${name} must be an array.`, name);
  return value;
}

export function oneOf<T extends string>(params: Fields, name: string, allowed: readonly T[]): T | undefined {
  const value = text(params, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw invalid(`Invalid ${name}: must be one of ${allowed.join(', ')}`, name);
  return value as T;
}

/** Stripe's metadata: at most 50 string keys (40 characters) with string values (500 characters). */
export function metadata(params: Fields): Record<string, string> | undefined {
  const value = params.metadata;
  if (value === undefined) return undefined;
  // The client sends `metadata=` to clear all metadata.
  if (value === '') return {};
  const entries = Object.entries(object(params, 'metadata') ?? {});
  if (entries.length > 50) throw invalid('Metadata can have at most 50 keys.', 'metadata');
  for (const [key, v] of entries) {
    if (typeof v !== 'string') throw invalid(`Invalid metadata value for ${key}: must be a string.`, `metadata[${key}]`);
    if (key.length > 40 || v.length > 500) throw invalid(`Metadata key ${key} or its value is too long.`, `metadata[${key}]`);
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

/** Stripe merges metadata on update; an empty value removes a key. */
export function mergeMetadata(current: Record<string, string>, update: Record<string, string> | undefined): Record<string, string> {
  if (update === undefined) return current;
  if (!Object.keys(update).length) return {};
  const merged = { ...current, ...update };
  return Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== ''));
}

/** The `expand[]` paths of a request. */
export function expansions(params: Fields): string[] {
  const value = params.expand;
  if (value === undefined) return [];
  const paths = Array.isArray(value) ? value : [value];
  for (const path of paths) if (typeof path !== 'string' || !path) throw invalid('Invalid expand: must be an array of strings.', 'expand');
  return paths as string[];
}

const PAGING = ['limit', 'starting_after', 'ending_before', 'expand'];
/** The parameters every list endpoint takes besides its own filters. */
export const listParams = (...filters: string[]) => [...PAGING, ...filters];

function limitOf(params: Fields): number {
  const limit = integer(params, 'limit') ?? 10;
  if (limit < 1 || limit > 100) throw invalid('Invalid limit: must be between 1 and 100', 'limit');
  return limit;
}

/**
 * One page of a Stripe list: `items` in creation order are listed newest first, `limit` (1 to
 * 100, 10 by default) at a time, after `starting_after` or before `ending_before` (an id of the
 * list, else 404), as the client's auto-pagination walks them.
 */
export function listOf<T extends { id: string }>(items: T[], params: Fields, url: string, kind: string): Stripe.ApiList<T> {
  const limit = limitOf(params);
  let all = [...items].reverse();
  const after = text(params, 'starting_after');
  const before = text(params, 'ending_before');
  if (after !== undefined) {
    const at = all.findIndex((e) => e.id === after);
    if (at < 0) throw missing(kind, after, 'starting_after');
    all = all.slice(at + 1);
  } else if (before !== undefined) {
    const at = all.findIndex((e) => e.id === before);
    if (at < 0) throw missing(kind, before, 'ending_before');
    all = all.slice(Math.max(0, at - limit), at);
  }
  return { object: 'list', data: all.slice(0, limit), has_more: all.length > limit, url };
}
