import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { HttpRequest } from '@azure/functions';
import { once, onceEach } from '../once';
import { vendored } from '../vendor';
import { badRequest, Code, tooLarge } from './errors';

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
  const make = (coerceTypes: boolean) =>
    addFormats(new AjvClass({ allErrors: true, strict: true, validateSchema: false, coerceTypes, useDefaults: true, removeAdditional: false }));
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
 * Refuses a value nested deeper than `max` levels of objects and arrays (400 JSON_TOO_DEEP) or
 * holding an unsafe key (400 JSON_KEY_NOT_ALLOWED). An explicit stack, not recursion: the check
 * itself never overflows, whatever it is given.
 */
export function assertJsonValue(value: unknown, what = 'Request body', max = MAX_JSON_DEPTH): void {
  const stack: [unknown, number, JsonPath | undefined][] = [[value, 1, undefined]];
  while (stack.length) {
    const [node, depth, path] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) throw badRequest(`${what} is nested more than ${max} levels deep; the limit is ${max}`, Code.JSON_TOO_DEEP, { maxDepth: max });
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        if (child !== null && typeof child === 'object') stack.push([child, depth + 1, { key: String(i), parent: path }]);
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

export function describeErrors(errors: ErrorObject[] | null | undefined): { field: string; message: string }[] {
  return (errors ?? []).map((e) => {
    const base = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '';
    const field =
      e.keyword === 'required'
        ? [base, (e.params as { missingProperty: string }).missingProperty].filter(Boolean).join('.')
        : e.keyword === 'additionalProperties'
          ? [base, (e.params as { additionalProperty: string }).additionalProperty].filter(Boolean).join('.')
          : base || '(body)';
    const message = e.keyword === 'additionalProperties' ? 'is not an allowed field' : e.keyword === 'required' ? 'is required' : (e.message ?? 'is invalid');
    return { field, message };
  });
}

/** Validates path parameters or a query string (text coerced to the schema's types); a failure is a 400 like `validate`'s. */
export function validateInput<T>(schema: object, value: Record<string, unknown>, what: 'path' | 'query'): T {
  const fn = compiledInput(schema);
  if (fn(value)) return value as T;
  const details = describeErrors(fn.errors);
  throw badRequest(`Invalid ${what}: ${details[0].field} ${details[0].message}`, Code.VALIDATION_FAILED, { details });
}

/** Validates a value; a failure is a 400 naming the first bad field and listing all of them in `details`. */
export function validate<T>(schema: object, value: unknown, what = 'body'): T {
  const fn = validator<T>(schema);
  if (fn(value)) return value;
  const details = describeErrors(fn.errors);
  const first = details[0];
  throw badRequest(`Invalid ${what}: ${first.field} ${first.message}`, Code.VALIDATION_FAILED, { details });
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
