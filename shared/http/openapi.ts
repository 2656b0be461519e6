import type { ServiceName } from '../config';
import type { FunctionDefinition } from '../functions';
import { bodySpec as bodySpecOf, responsesOf, type BodySpec, type JsonSchema, type ResponseSpec, type RouteDoc, type RoutedFunction } from './route';
import { ERROR_ENVELOPE } from './schemas';

export const OPENAPI_VERSION = '3.1.0';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  304: 'Not modified',
  308: 'Permanent redirect',
  400: 'The request is malformed: the body, a path parameter or the query (the message names the field)',
  401: 'No valid credentials',
  403: 'The caller may not do this',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict with the current state',
  413: 'The body is larger than this route accepts',
  429: 'Too many requests (Retry-After says when to come back)',
  502: 'A dependency answered in a way this route cannot use',
  503: 'A dependency this route needs is unavailable (Retry-After when known)',
};

export const isRouted = (fn: FunctionDefinition): fn is RoutedFunction => fn.kind === 'http' && 'doc' in fn;

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/**
 * Every status a route may answer, with its spec: those its io lists, and the refusals that come
 * with its guard and its input (400 for parameters, a query or a body; 413 for a body; 405 when it
 * answers other methods). An error status without a schema is the shared error envelope. The API
 * document and the tests' contract check both read this, so an answer with any other status is a
 * route that says less than it does.
 */
export function documentedStatuses(doc: RouteDoc): Map<number, ResponseSpec> {
  const statuses = new Map(responsesOf(doc.io));
  const refusals = new Set<number>(doc.guard.refusals);
  if (doc.io.params || doc.io.query || doc.io.body) refusals.add(400);
  if (bodySpecOf(doc.io.body)) refusals.add(413);
  if (doc.io.otherMethods === 405) refusals.add(405);
  for (const status of refusals) if (!statuses.has(status)) statuses.set(status, { description: STATUS_TEXT[status] ?? 'Error' });
  return statuses;
}

function parameters(schema: JsonSchema | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    ...(property.description ? { description: property.description } : {}),
    schema: property,
  }));
}

/** The operations of one service, from its route table. */
function paths(functions: RoutedFunction[]) {
  const out: Record<string, Record<string, unknown>> = {};
  for (const fn of functions) {
    const { doc } = fn;
    const path = `/${doc.path.replace(/\{\*/g, '{')}`;
    const body = doc.io.body as BodySpec | JsonSchema | undefined;
    const bodySpec = body && 'schema' in body && typeof body.schema === 'object' ? (body as BodySpec) : body ? { schema: body as JsonSchema } : undefined;
    const responses: Record<string, unknown> = {};
    for (const [status, spec] of documentedStatuses(doc)) {
      const content = spec.content ?? (spec.schema ? { 'application/json': spec.schema } : status >= 400 ? { 'application/json': ERROR_REF } : undefined);
      responses[String(status)] = {
        description: spec.description ?? STATUS_TEXT[status] ?? 'Answer',
        ...(spec.headers ? { headers: spec.headers } : {}),
        ...(content ? { content: Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema }])) } : {}),
      };
    }
    responses.default = { description: 'Any other error, in the same envelope', content: { 'application/json': { schema: ERROR_REF } } };
    const operation = {
      operationId: doc.id,
      summary: doc.summary,
      description: `Who may call: ${doc.guard.describe}.`,
      tags: [doc.service],
      ...(doc.guard.scheme ? { security: [{ [doc.guard.scheme.name]: [] }] } : { security: [] }),
      parameters: [...parameters(doc.io.params, 'path'), ...parameters(doc.io.query, 'query')],
      ...(bodySpec
        ? { requestBody: { required: !bodySpec.optional, content: { [bodySpec.contentType ?? 'application/json']: { schema: bodySpec.schema } } } }
        : {}),
      responses,
    };
    out[path] ??= {};
    for (const method of doc.methods)
      out[path][method.toLowerCase()] = method === doc.methods[0] ? operation : { ...operation, operationId: `${doc.id}-${method.toLowerCase()}` };
  }
  return out;
}

/**
 * The OpenAPI 3.1 document of one service, generated from its route table: paths, methods,
 * parameters, request bodies, responses per status (with the shared error envelope), and a
 * security scheme for each kind of guard. `server` is the service's base URL.
 */
export function openApiDocument(service: ServiceName, functions: readonly FunctionDefinition[], server: string, description: string) {
  const routed = functions.filter(isRouted);
  const schemes = Object.fromEntries(routed.filter((fn) => fn.doc.guard.scheme).map((fn) => [fn.doc.guard.scheme!.name, fn.doc.guard.scheme!.definition]));
  return {
    openapi: OPENAPI_VERSION,
    info: { title: `${service} service`, version: '1.0.0', description, license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } },
    servers: [{ url: server.replace(new RegExp(`/${service}$`), ''), description: 'This host' }],
    tags: [{ name: service, description }],
    paths: paths(routed),
    components: { schemas: { Error: ERROR_ENVELOPE }, securitySchemes: schemes },
  };
}
