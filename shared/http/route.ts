import type { HttpMethod, HttpRequest, HttpResponseInit } from '@azure/functions';
import type { ErrorObject } from 'ajv';
import { config, type Config, type ServiceName } from '../config';
import type { HttpFunction } from '../functions';
import { baseContext, type ContextFactory, type ServiceContext } from '../context';
import { currentPlatform } from '../platform';
import { DEFAULT_BODY_LIMIT, parseJsonBody, readBody, validate, validateInput, validator } from './body';
import { ERROR_CODES, type ErrorCode } from './error-codes';
import type { Infer } from './schemas';
import { methodNotAllowed } from './errors';
import { http, type RequestContext } from './handler';
import { requestMeta, type RequestMeta } from './client';

export type JsonSchema = Record<string, unknown>;

/** An OpenAPI security scheme (components.securitySchemes entry). */
export type SecurityScheme = Record<string, unknown>;

/**
 * Who may call a route. `check` answers the caller (the principal) or throws the refusal (401,
 * 403, 503); `describe` is the one line a reader sees in the route table and the API reference.
 */
export interface Guard<P = unknown, C extends ServiceContext = ServiceContext> {
  describe: string;
  /** The OpenAPI security scheme this guard checks, with its name; none for public routes. */
  scheme?: { name: string; definition: SecurityScheme };
  /** Statuses the guard itself can answer. */
  refusals: number[];
  check(input: GuardInput<C>): Promise<P>;
}

export interface GuardInput<C extends ServiceContext = ServiceContext> {
  request: HttpRequest;
  /** The service's context for this request, as its handler gets it. */
  ctx: C & RequestContext;
  meta: RequestMeta;
  /** The route's path parameters as they came (the guard runs before they are validated). */
  params: Record<string, string>;
  /** The raw request body when the route reads one (a signature guard checks these bytes). */
  rawBody?: Buffer;
}

/** Anyone. */
export const PUBLIC: Guard<undefined> = { describe: 'public', refusals: [], check: async () => undefined };

export interface BodySpec {
  /** What the body is: the route validates it with this schema and documents it (under the default settings, when `schemaFor` is given). */
  schema: JsonSchema;
  /**
   * The schema under the settings in force, when settings set some of its limits (the visual API's
   * VISUAL_MAX_*): built by the declaration that built `schema`, which is what it gives under the
   * default settings. The route validates with it.
   */
  // Method syntax: a service declares it with its own settings' type (the route hands it its context's config).
  schemaFor?(config: Config): JsonSchema;
  /** Normalises the parsed body in place before the schema sees it (the visual API drops the characters XML cannot hold from a chart's texts). */
  normalize?: (value: unknown) => void;
  /**
   * The answer to a body the schema refuses, when the service words its refusals itself (the visual
   * API's published errors, in the order its clients see them): given the body, the schema's errors
   * and the settings in force, it returns the error to throw. The schema decides what is refused.
   */
  refuse?(value: unknown, errors: readonly ErrorObject[], config: Config): Error;
  /** Largest body in bytes (413 above), or the setting that holds it; default 64 KiB. */
  limit?: number | { setting: ByteSetting };
  /** An empty body reads as `{}`. */
  optional?: boolean;
  /** The bytes are handed over unparsed (`rawBody`); `schema` documents them. */
  raw?: boolean;
  contentType?: string;
}

export interface ResponseSpec {
  description?: string;
  /** JSON body schema (or the schema of the content type's body). */
  schema?: JsonSchema;
  /** Other content types this status may carry (images, text); JSON when absent. */
  content?: Record<string, JsonSchema>;
  headers?: Record<string, { description: string; schema?: JsonSchema }>;
}

/**
 * An error status a route answers beyond the refusals of its guard and its input (those come with
 * them): the shared envelope, described by when it happens and the codes it may carry (their
 * meanings from the one list of codes).
 */
export function refusal(codes: ErrorCode[], extra: { when?: string; headers?: ResponseSpec['headers'] } = {}): ResponseSpec {
  const meanings = codes.map((code) => `${code}: ${ERROR_CODES[code].meaning}`);
  return { description: [extra.when, ...meanings].filter(Boolean).join(' '), ...(extra.headers ? { headers: extra.headers } : {}) };
}

/** The Retry-After header of a refusal that says when to come back. */
export const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } } };

/**
 * What a route takes and answers: path parameters, query and body schemas, and a response per
 * status (a schema, or a ResponseSpec). The refusals of the guard (401, 403, 503 as it says) and
 * of the input (400, 413) come with them; any other status the route answers is listed, an error
 * one with `refusal`: the tests fail on an answer whose status its route does not list.
 */
export interface Io {
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema | BodySpec;
  /** Other methods on this path are answered 405 by the route itself (rather than 404 by the host). */
  otherMethods?: 405;
  [status: number]: JsonSchema | ResponseSpec;
}

export interface RouteInput<P = unknown, B = unknown, Q = unknown, Params = Record<string, string>, C extends ServiceContext = ServiceContext> {
  request: HttpRequest;
  /** The service's context for this request (its settings, clock, logger and dependencies), with the request's id. */
  ctx: C & RequestContext;
  meta: RequestMeta;
  params: Params;
  query: Q;
  body: B;
  rawBody: Buffer;
  principal: P;
}

/**
 * A route's handler with its one-line summary for the API reference. `run` is a function property,
 * not a method, so TypeScript checks its input strictly against what the route hands it.
 */
export interface Operation<P = unknown, B = unknown, Q = unknown, Params = unknown, C extends ServiceContext = ServiceContext> {
  summary: string;
  run: (input: RouteInput<P, B, Q, Params, C>) => Promise<HttpResponseInit>;
}

type SchemaOf<B> = B extends { schema: infer S } ? S : B;
/** The body a route's handler gets: the value its schema describes (nothing for raw bytes). */
export type BodyOf<I extends Io> = undefined extends I['body'] ? undefined : I['body'] extends { raw: true } ? undefined : Infer<SchemaOf<I['body']>>;
/** The query a route's handler gets (validated, text coerced to the schema's types, defaults filled in). */
export type QueryOf<I extends Io> = undefined extends I['query'] ? Record<string, never> : Infer<I['query']>;
/** The path parameters a route's handler gets. */
export type ParamsOf<I extends Io> = undefined extends I['params'] ? Record<string, string> : Infer<I['params']>;

export const op = <P = unknown, B = unknown, Q = unknown, Params = unknown>(
  summary: string,
  run: Operation<P, B, Q, Params>['run'],
): Operation<P, B, Q, Params> => ({ summary, run });

/**
 * The `op` of a service whose handlers take its own context `C` (`export const op = opsFor<PaymentContext>()`
 * in the service's operations): the same helper, with the context typed.
 */
export const opsFor =
  <C extends ServiceContext>() =>
  <P = unknown, B = unknown, Q = unknown, Params = unknown>(summary: string, run: Operation<P, B, Q, Params, C>['run']): Operation<P, B, Q, Params, C> => ({
    summary,
    run,
  });

/** What the API document and the route table know of a route, kept on its function. */
export interface RouteDoc {
  id: string;
  service: ServiceName;
  methods: HttpMethod[];
  /** Path under the host, `{name}` for parameters (`identity/admin/users/{id}`). */
  path: string;
  guard: Guard;
  io: Io;
  summary: string;
}

export type RoutedFunction = HttpFunction & { doc: RouteDoc };

const ALL_METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];
/** A service's setting that holds a body limit in bytes (VISUAL_MAX_BODY_BYTES). */
export type ByteSetting = string;

/** The largest body a route reads, in bytes, under the settings in force. */
export function bodyLimit(body: BodySpec | undefined): number {
  const limit = body?.limit ?? DEFAULT_BODY_LIMIT;
  if (typeof limit === 'number') return limit;
  // A service's own setting: the platform parsed it from the app's list (functions/settings.ts).
  const value = (config() as Readonly<Record<string, unknown>>)[limit.setting];
  if (typeof value !== 'number') throw new Error(`${limit.setting} is not a number setting this platform parsed`);
  return value;
}

/** A route's body spec, from either form `io.body` may take (a bare schema or a spec). */
export const bodySpec = (body: Io['body']): BodySpec | undefined =>
  body === undefined ? undefined : 'schema' in body && typeof body.schema === 'object' ? (body as BodySpec) : { schema: body as JsonSchema };

/** The statuses a route documents, with their specs. */
export function responsesOf(io: Io): [number, ResponseSpec][] {
  return Object.entries(io)
    .filter(([key]) => /^\d{3}$/.test(key))
    .map(([key, spec]) => [
      Number(key),
      'schema' in (spec as object) || 'content' in (spec as object) || 'description' in (spec as object)
        ? (spec as ResponseSpec)
        : { schema: spec as JsonSchema },
    ]);
}

/**
 * The route helper of every service: one call, one line, says the whole route (its id, method,
 * path, who may call it, what it takes and answers, and its handler). It reads and checks the
 * input in a fixed order (the body's size, the guard, the path, the query, the JSON body) and
 * hands the handler typed, validated values.
 */
export function routes<C extends ServiceContext = ServiceContext>(
  service: ServiceName,
  context: ContextFactory<C> = baseContext(service) as ContextFactory<C>,
) {
  /** `path` is under the service's base segment, or from the host's root when it starts with `/`. */
  return function route<P, I extends Io>(
    id: string,
    method: HttpMethod | HttpMethod[],
    path: string,
    guard: Guard<P, C>,
    io: I,
    operation: Operation<P, BodyOf<I>, QueryOf<I>, ParamsOf<I>, C>,
  ): RoutedFunction {
    const methods = Array.isArray(method) ? method : [method];
    const fullPath = path.startsWith('/') ? path.slice(1) : path ? `${service}/${path}` : service;
    const body = bodySpec(io.body);
    // A route without a body still gets the default limit: it reads nothing, so it buffers nothing more.
    const maxBodyBytes = () => bodyLimit(body);
    const registered = io.otherMethods === 405 ? [...new Set([...methods, ...ALL_METHODS])] : methods;
    const handler = http(service, async (request, requestContext) => {
      const ctx = Object.assign(context(currentPlatform(), requestContext.log), requestContext);
      if (!methods.includes(request.method as HttpMethod)) {
        throw methodNotAllowed(request.method, methods);
      }
      const meta = requestMeta(request, ctx.requestId);
      const rawBody = body ? await readBody(request, maxBodyBytes()) : Buffer.alloc(0);
      const principal = await guard.check({ request, ctx, meta, params: { ...request.params }, rawBody: body ? rawBody : undefined });
      const params = io.params ? validateInput<Record<string, unknown>>(io.params, { ...request.params }, 'path') : { ...request.params };
      const query = io.query ? queryInput(io.query, queryObject(request)) : {};
      const parsed = body && !body.raw ? parseJson(rawBody, body, ctx.config) : undefined;
      return operation.run({
        request,
        ctx,
        meta,
        params: params as ParamsOf<I>,
        query: query as QueryOf<I>,
        body: parsed as BodyOf<I>,
        rawBody,
        principal,
      });
    });
    return {
      kind: 'http',
      name: `${service}-${id}`,
      route: fullPath.replace(/\{(\*?)([A-Za-z]+)\}/g, (_m, star, name) => `{${star}${name}}`),
      methods: registered,
      handler,
      maxBodyBytes,
      doc: { id, service, methods, path: fullPath, guard: guard as unknown as Guard, io, summary: operation.summary },
    };
  };
}

/**
 * The validated query. An empty query against a schema with no default and nothing required is
 * valid as it is: answered without compiling the schema, so a plain `GET <service>/health` does not
 * load the validator on a cold start.
 */
function queryInput(schema: JsonSchema, query: Record<string, string>): Record<string, unknown> {
  const properties = Object.values((schema as { properties?: Record<string, { default?: unknown }> }).properties ?? {});
  const trivial = !Object.keys(query).length && !(schema as { required?: unknown[] }).required?.length && properties.every((p) => p.default === undefined);
  return trivial ? {} : validateInput(schema, query, 'query');
}

function queryObject(request: HttpRequest): Record<string, string> {
  const query: Record<string, string> = {};
  request.query.forEach((value, key) => {
    query[key] = value;
  });
  return query;
}

/** The body, parsed and validated by the route's schema (under the settings in force); a refusal worded by the route's `refuse` when it has one. */
function parseJson(bytes: Buffer, spec: BodySpec, settings: Config): unknown {
  const schema = spec.schemaFor?.(settings) ?? spec.schema;
  if (bytes.length === 0 && spec.optional) return validate(schema, {});
  const value = parseJsonBody(bytes);
  spec.normalize?.(value);
  if (!spec.refuse) return validate(schema, value);
  const check = validator(schema);
  if (check(value)) return value;
  throw spec.refuse(value, check.errors ?? [], settings);
}
