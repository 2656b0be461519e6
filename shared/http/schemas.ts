/**
 * Small builders for the JSON Schemas the route tables declare: one schema both validates a
 * request (ajv) and documents it (OpenAPI 3.1, whose schemas are JSON Schema 2020-12).
 */
import { ERROR_CODES } from './error-codes';

export type Schema = Record<string, unknown>;

export const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
export const num = (extra: Schema = {}): Schema => ({ type: 'number', ...extra });
export const bool = (extra: Schema = {}): Schema => ({ type: 'boolean', ...extra });
export const dateTime = (extra: Schema = {}): Schema => ({ type: 'string', format: 'date-time', ...extra });
export const oneOfValues = (values: readonly (string | number)[], extra: Schema = {}): Schema => ({ enum: [...values], ...extra });
/** The schema, or null. */
export const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
export const arr = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });

/**
 * An object with these properties, all required unless named in `optional`. Answers allow more
 * properties by default (a client must tolerate additions); request bodies pass `closed: true`.
 */
export function obj(properties: Record<string, Schema>, options: { optional?: string[]; closed?: boolean; extra?: Schema } = {}): Schema {
  const required = Object.keys(properties).filter((k) => !(options.optional ?? []).includes(k));
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: !options.closed, ...options.extra };
}

/** Any JSON object (a free-form map). */
export const anyObject = (extra: Schema = {}): Schema => ({ type: 'object', ...extra });

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
export const idParam = (name: string, extra: Schema = {}) => obj({ [name]: str({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._:@-]+$', ...extra }) });

/**
 * Paging, the same rule on every service: `limit` is a whole number from 1 to 100, and a list is
 * walked by `offset` (from 0) or by `page` (from 1). Anything else is the same 400 VALIDATION_FAILED
 * naming the parameter, whichever service is asked. Only the default page size may differ by route.
 */
export const pageLimit = (defaultLimit = 50): Schema => int({ minimum: 1, maximum: 100, default: defaultLimit });
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
export const query = (properties: Record<string, Schema>): Schema => ({ type: 'object', properties, additionalProperties: false });

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
