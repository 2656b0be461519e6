import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { HttpRequest } from '@azure/functions';
import { once, onceEach } from '../once';
import { vendored } from '../vendor';
import { badRequest, Code, tooLarge } from './errors';
import { EARLIEST_INSTANT, LATEST_INSTANT } from './schemas';

const EARLIEST_MS = Date.parse(EARLIEST_INSTANT);
const LATEST_MS = Date.parse(LATEST_INSTANT);
/** RFC 3339 allows a leap second (23:59:60 UTC, or its local time); Date cannot hold one. */
const LEAP_SECOND = /[Tt\s]\d\d:\d\d:60/;

/**
 * A date-time the services can use: what ajv-formats accepts as RFC 3339 text (`syntax`) that is
 * also a real instant from EARLIEST_INSTANT to LATEST_INSTANT once in UTC, and not a leap second.
 * Without this, a leap second passed the schema and then threw RangeError ("Invalid time value")
 * wherever the code made a Date of it (500), and 9999-12-31T23:59:59-23:59, year 10000 in UTC, came
 * out of toISOString as "+010000-...", which sorts as text before every 4-digit year.
 */
export const isInstant = (text: string, syntax: (text: string) => boolean): boolean => {
  if (!syntax(text) || LEAP_SECOND.test(text)) return false;
  const ms = Date.parse(text);
  return ms >= EARLIEST_MS && ms <= LATEST_MS;
};
/** What a date-time that is not one is told, whichever rule it broke. */
export const DATE_TIME_RULE = `must be a date-time (RFC 3339, for example 2026-01-31T09:30:00Z) from the year ${EARLIEST_INSTANT.slice(0, 4)} to ${LATEST_INSTANT.slice(0, 4)} in UTC, and not a leap second`;
export const FINITE_RULE = 'must be a finite number';

/**
 * ajv and its formats load with the first schema compiled (about 10 ms): a route that validates
 * nothing (health) never loads them. Two instances, each created once for the process, so schemas
 * compile once and are cached by identity:
 * - `body` checks JSON values as they are;
 * - `input` checks path and query values, which arrive as text: it turns them into the schema's
 *   types ("20" for an integer) and fills defaults, so one schema both documents and checks them.
 */
const ajv = once((): { body: Ajv; input: Ajv } => {
  const AjvClass = vendored('ajv').default;
  const addFormats = vendored('ajv-formats').default;
  // validateSchema off: checking a schema against the JSON Schema meta-schema compiles the
  // meta-schema first, about 20 ms of a service's first validated request (a cold start). Our
  // schemas are constants, and tests/platform/schemas.test.ts checks every one of them so.
  const make = (coerceTypes: boolean) => {
    const instance = addFormats(
      new AjvClass({ allErrors: true, strict: true, validateSchema: false, coerceTypes, useDefaults: true, removeAdditional: false }),
    );
    // Every `format: 'date-time'` of every schema, request or answer, is held to isInstant.
    const rfc3339 = (instance.formats['date-time'] as { validate: (text: string) => boolean }).validate;
    return instance.addFormat('date-time', { type: 'string', validate: (text: string) => isInstant(text, rfc3339) });
  };
  return { body: make(false), input: make(true) };
});

const compiled = onceEach((schema: object): ValidateFunction => ajv().body.compile(schema));
const compiledInput = onceEach((schema: object): ValidateFunction => ajv().input.compile(schema));

export const validator = <T>(schema: object): ValidateFunction<T> => compiled(schema) as ValidateFunction<T>;

export const DEFAULT_BODY_LIMIT = 64 * 1024;
/** Deepest nesting of objects and arrays any JSON body may have: real requests stay far below it; recursive code after parsing never meets a deeper one. */
export const MAX_JSON_DEPTH = 64;

/**
 * Keys no JSON body may hold, at any depth: a library that merges or copies the value could reach an
 * object's prototype through them, and a key dropped on the way would make two different requests
 * look the same (a cache key, an audit entry). Refused, never dropped.
 */
export const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Where a node sits in the value, built only when a refusal names it. */
type JsonPath = { key: string; parent?: JsonPath };
const pathText = (path: JsonPath | undefined): string => {
  const keys: string[] = [];
  for (let at = path; at; at = at.parent) keys.unshift(at.key);
  return keys.join('.') || '(top level)';
};

/**
 * A number that is not finite: JSON.parse reads 1e400 as Infinity (JSON5 also has Infinity and NaN),
 * and code after validation would do arithmetic on it. 400 VALIDATION_FAILED naming where, worded
 * as `validate` words its refusals ("Invalid body: ...").
 */
function notFinite(what: string, path: JsonPath | undefined) {
  const field = path ? pathText(path) : '(body)';
  const name = what === 'Request body' ? 'body' : what;
  return badRequest(`Invalid ${name}: ${field} ${FINITE_RULE}`, Code.VALIDATION_FAILED, { details: [{ field, message: FINITE_RULE }] });
}

/**
 * Refuses a value nested deeper than `max` levels of objects and arrays (400 JSON_TOO_DEEP),
 * holding an unsafe key (400 JSON_KEY_NOT_ALLOWED) or a number that is not finite (400
 * VALIDATION_FAILED). An explicit stack, not recursion: the check itself never overflows, whatever
 * it is given.
 */
export function assertJsonValue(value: unknown, what = 'Request body', max = MAX_JSON_DEPTH): void {
  const stack: [unknown, number, JsonPath | undefined][] = [[value, 1, undefined]];
  while (stack.length) {
    const [node, depth, path] = stack.pop()!;
    if (typeof node === 'number' && !Number.isFinite(node)) throw notFinite(what, path);
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) throw badRequest(`${what} is nested more than ${max} levels deep; the limit is ${max}`, Code.JSON_TOO_DEEP, { maxDepth: max });
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        if (child !== null && typeof child === 'object') stack.push([child, depth + 1, { key: String(i), parent: path }]);
        else if (typeof child === 'number' && !Number.isFinite(child)) throw notFinite(what, { key: String(i), parent: path });
      });
      continue;
    }
    for (const key of Object.keys(node as object)) {
      if (UNSAFE_KEYS.has(key)) {
        const at = pathText(path);
        throw badRequest(
          `${what}: the key "${key}" (in ${at}) is not allowed; __proto__, constructor and prototype are refused as keys`,
          Code.JSON_KEY_NOT_ALLOWED,
          { field: at === '(top level)' ? key : `${at}.${key}` },
        );
      }
      const child = (node as Record<string, unknown>)[key];
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1, { key, parent: path }]);
      else if (typeof child === 'number' && !Number.isFinite(child)) throw notFinite(what, { key, parent: path });
    }
  }
}

/** Reads the raw body once, refusing more than `limit` bytes (413), whatever Content-Length claims. */
export async function readBody(request: HttpRequest, limit = DEFAULT_BODY_LIMIT): Promise<Buffer> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > limit) throw tooLarge(`Request body is ${declared} bytes; the limit is ${limit} bytes`);
  const bytes = Buffer.from(await request.arrayBuffer());
  if (bytes.length > limit) throw tooLarge(`Request body is ${bytes.length} bytes; the limit is ${limit} bytes`);
  return bytes;
}

export function describeErrors(errors: readonly ErrorObject[] | null | undefined): { field: string; message: string }[] {
  return (errors ?? []).map((e) => {
    const base = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
    const field =
      e.keyword === 'required'
        ? [base, (e.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.')
        : e.keyword === 'additionalProperties'
          ? [base, (e.params as { additionalProperty: string }).additionalProperty].filter(Boolean).join('.')
          : base || '(body)';
    const message =
      e.keyword === 'additionalProperties'
        ? 'is not an allowed field'
        : e.keyword === 'required'
          ? 'is required'
          : e.keyword === 'format' && (e.params as { format: string }).format === 'date-time'
            ? DATE_TIME_RULE
            : (e.message ?? 'is invalid');
    return { field, message };
  });
}

/**
 * Validates path parameters or a query string (text coerced to the schema's types); a failure is a
 * 400 like `validate`'s. ajv coerces "Infinity", "-Infinity" and "1e400" to numbers and then skips
 * minimum and maximum for them (it checks those on finite numbers only), so a number that is not
 * finite is refused here, after coercion, whatever the schema says.
 */
export function validateInput<T>(schema: object, value: Record<string, unknown>, what: 'path' | 'query'): T {
  const fn = compiledInput(schema);
  const details = fn(value) ? finiteRefusals(value) : describeErrors(fn.errors);
  if (!details.length) return value as T;
  throw badRequest(`Invalid ${what}: ${details[0].field} ${details[0].message}`, Code.VALIDATION_FAILED, { details });
}

const finiteRefusals = (values: Record<string, unknown>) =>
  Object.entries(values)
    .filter(([, v]) => typeof v === 'number' && !Number.isFinite(v))
    .map(([field]) => ({ field, message: FINITE_RULE }));

/** Validates a value; a failure is a 400 naming the first bad field and listing all of them in `details`. */
export function validate<T>(schema: object, value: unknown, what = 'body'): T {
  const fn = validator<T>(schema);
  if (fn(value)) return value;
  throw invalid(what, fn.errors);
}

/** The refusal of a value these schema errors describe: 400 VALIDATION_FAILED "Invalid <what>: <first field> <its message>", every error in `details`. */
export function invalid(what: string, errors: readonly ErrorObject[] | null | undefined) {
  const details = describeErrors(errors);
  const first = details[0] ?? { field: '(body)', message: 'is invalid' };
  return badRequest(`Invalid ${what}: ${first.field} ${first.message}`, Code.VALIDATION_FAILED, { details });
}

/**
 * The JSON value of a body: an empty body or malformed JSON is a 400 INVALID_JSON, nesting beyond
 * MAX_JSON_DEPTH a 400 JSON_TOO_DEEP, an unsafe key a 400 JSON_KEY_NOT_ALLOWED.
 */
export function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) throw badRequest('Request body is empty; a JSON object is expected', Code.INVALID_JSON);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw badRequest(`Request body is not valid JSON: ${(error as Error).message}`, Code.INVALID_JSON);
  }
  assertJsonValue(value);
  return value;
}

/** Reads and parses a JSON body (parseJsonBody) and validates it against `schema`. With `optional`, an empty body reads as `{}`. */
export async function readJson<T>(request: HttpRequest, schema: object, limit = DEFAULT_BODY_LIMIT, options: { optional?: boolean } = {}): Promise<T> {
  const bytes = await readBody(request, limit);
  if (bytes.length === 0 && options.optional) return validate<T>(schema, {});
  return validate<T>(schema, parseJsonBody(bytes));
}
