/**
 * Small builders for the JSON Schemas the route tables declare: one schema both validates a
 * request (ajv) and documents it (OpenAPI 3.1, whose schemas are JSON Schema 2020-12).
 */
import { ERROR_CODES } from './error-codes';

export type Schema = Record<string, unknown>;

/**
 * The value a JSON Schema describes, read from the schema's own type: the builders below keep their
 * schemas' shapes in their types, and schemas written out `as const` have them already. So a route's
 * handler gets its body, query and path parameters typed by the schema that validates and documents
 * them (`shared/http/route.ts`), and a handler that expects something else does not compile. A
 * property is present when the schema requires it or gives it a default (ajv fills defaults in).
 */
export type Infer<S> = S extends { readonly enum: readonly (infer V)[] }
  ? V
  : S extends { readonly const: infer V }
    ? V
    : S extends { readonly then: infer T; readonly else: infer E }
      ? (Infer<T> | Infer<E>) & InferShape<S>
      : InferShape<S>;
/** A value by its schema's type or alternatives (Infer, after `enum`, `const` and if/then/else). */
type InferShape<S> = S extends { readonly anyOf: readonly (infer A)[] }
  ? Infer<A>
  : S extends { readonly type: 'string' }
    ? string
    : S extends { readonly type: 'integer' | 'number' }
      ? number
      : S extends { readonly type: 'boolean' }
        ? boolean
        : S extends { readonly type: 'null' }
          ? null
          : S extends { readonly type: 'array'; readonly items: infer I }
            ? Infer<I>[]
            : S extends { readonly type: 'object'; readonly properties: infer P }
              ? ObjectOf<P, S extends { readonly required: readonly (infer R)[] } ? R : never> & OpenTo<S>
              : S extends { readonly type: 'object'; readonly additionalProperties: infer A extends object }
                ? Record<string, Infer<A>>
                : S extends { readonly type: 'object' }
                  ? Record<string, unknown>
                  : unknown;

/** Any other key, when the schema says so with `additionalProperties: true` (a literal: `obj` types it a boolean). */
type OpenTo<S> = S extends { readonly additionalProperties: true } ? { [key: string]: unknown } : unknown;
type Present<P, R> = { [K in keyof P]: K extends R ? K : P[K] extends { readonly default: unknown } ? K : never }[keyof P];
type Simplify<T> = { [K in keyof T]: T[K] };
/** No extra keywords. */
type None = Record<never, never>;
type ObjectOf<P, R> = Simplify<{ [K in Present<P, R>]: Infer<P[K]> } & { [K in Exclude<keyof P, Present<P, R>>]?: Infer<P[K]> }>;

export const str = <E extends Schema = None>(extra?: E) => ({ type: 'string', ...extra }) as { type: 'string' } & E;
export const int = <E extends Schema = None>(extra?: E) => ({ type: 'integer', ...extra }) as { type: 'integer' } & E;
export const num = <E extends Schema = None>(extra?: E) => ({ type: 'number', ...extra }) as { type: 'number' } & E;
export const bool = <E extends Schema = None>(extra?: E) => ({ type: 'boolean', ...extra }) as { type: 'boolean' } & E;
/**
 * The first and last instants a date-time may name (UTC): every `format: 'date-time'` is held to
 * them, and refused as a leap second, by the validator (shared/http/body.ts, isInstant). Four-digit
 * years in UTC, so ISO text sorts as time does and every database the services use holds them.
 */
export const EARLIEST_INSTANT = '0001-01-01T00:00:00.000Z';
export const LATEST_INSTANT = '9999-12-31T23:59:59.999Z';
/** LATEST_INSTANT in whole seconds since 1970 (Unix time, as Stripe gives event times). */
export const LATEST_UNIX_SECONDS = Math.floor(Date.parse(LATEST_INSTANT) / 1000);
export const dateTime = <E extends Schema = None>(extra?: E) =>
  ({ type: 'string', format: 'date-time', ...extra }) as { type: 'string'; format: 'date-time' } & E;
export const oneOfValues = <const V extends readonly (string | number)[], E extends Schema = None>(values: V, extra?: E) =>
  ({ enum: [...values], ...extra }) as { enum: V } & E;
/** The schema, or null. */
export const nullable = <S extends Schema>(schema: S) => ({ anyOf: [schema, { type: 'null' }] }) as { anyOf: readonly [S, { type: 'null' }] };
export const arr = <S extends Schema, E extends Schema = None>(items: S, extra?: E) => ({ type: 'array', items, ...extra }) as { type: 'array'; items: S } & E;

/**
 * An object with these properties, all required unless named in `optional`. Answers allow more
 * properties by default (a client must tolerate additions); request bodies pass `closed: true`.
 */
export function obj<P extends Record<string, Schema>, O extends keyof P & string = never>(
  properties: P,
  options: { optional?: readonly O[]; closed?: boolean; extra?: Schema } = {},
): { type: 'object'; properties: P; required: readonly Exclude<keyof P, O>[]; additionalProperties: boolean } {
  const required = Object.keys(properties).filter((k) => !(options.optional ?? []).includes(k as O));
  return {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: !options.closed,
    ...options.extra,
  } as unknown as ReturnType<typeof obj<P, O>>;
}

/** Any JSON object (a free-form map). */
export const anyObject = <E extends Schema = None>(extra?: E) => ({ type: 'object', ...extra }) as { type: 'object' } & E;

/** The error envelope every service answers with (`{ error, message, code, timestamp }` plus details of some errors). */
export const ERROR_ENVELOPE = obj(
  {
    error: str({
      description:
        'Short name of the status (for example "Bad request"), or the error\'s own name where clients know it by one (for example "Invalid charts array").',
    }),
    message: str({ description: 'What went wrong, for a person.' }),
    code: str({
      enum: Object.keys(ERROR_CODES),
      description:
        "Stable machine-readable code, one of the platform's error list (shared/http/error-codes.ts; the table in docs/architecture.md gives each code's status and meaning).",
    }),
    timestamp: dateTime(),
    details: {},
    requestId: str(),
  },
  { optional: ['details', 'requestId'] },
);

/** Path parameter: an id of letters, digits, '.', '_', ':', '@' or '-'. */
export const idParam = <N extends string>(name: N, extra: Schema = {}) =>
  obj({ [name]: str({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._:@-]+$', ...extra }) } as unknown as Record<N, { type: 'string' }>);

/**
 * Paging, the same rule on every service: `limit` is a whole number from 1 to 100, and a list is
 * walked by `offset` (from 0) or by `page` (from 1). Anything else is the same 400 VALIDATION_FAILED
 * naming the parameter, whichever service is asked. Only the default page size may differ by route.
 */
export const pageLimit = (defaultLimit = 50) => int({ minimum: 1, maximum: 100, default: defaultLimit });
/** limit/offset paging (limit default 50). */
export const PAGING = {
  limit: pageLimit(),
  offset: int({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
};
/** page/limit paging for lists shown a page at a time. */
export const pagePaging = (defaultLimit: number) => ({
  page: int({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: pageLimit(defaultLimit),
});

/** A query of these parameters and no others (an unknown one is a 400 naming it). */
export const query = <P extends Record<string, Schema>>(properties: P) =>
  ({ type: 'object', properties, additionalProperties: false }) as { type: 'object'; properties: P };

/** The health answer of every service. */
export const HEALTH = obj(
  {
    service: str(),
    status: oneOfValues(['healthy', 'degraded', 'unhealthy', 'stopped'], {
      description: 'degraded: an optional dependency (another service, an external API, a missing optional secret) is failing; the service still serves (200)',
    }),
    timestamp: dateTime(),
    /** What is wrong, one line each: the failed dependencies (degraded, unhealthy) or the settings to fix (stopped). */
    problems: arr(str()),
    dependencies: anyObject(),
  },
  { optional: ['dependencies', 'problems'] },
);
/** `skip=sql`: health without the SQL check (what the availability tests ask, so a serverless database can pause). */
export const HEALTH_QUERY = query({
  skip: oneOfValues(['sql'], { description: 'sql: leave out the SQL check, so the probe does not wake a paused serverless database' }),
});
