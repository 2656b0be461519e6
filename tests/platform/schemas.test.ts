/**
 * Every JSON Schema the services check input with is valid against the JSON Schema meta-schema and
 * compiles in strict mode. At run time the validators skip the meta-schema check (it would compile
 * the meta-schema with a service's first validated request, about 20 ms of a cold start:
 * shared/http/body.ts), so this is where a malformed schema is caught.
 */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { EXECUTION_MESSAGE, REPORT_REQUEST } from '../../functions/orchestrator/schemas';
import { allServices, functionsOf } from '../../functions/registry';
import type { Limits } from '../../functions/visual/limits';
import { chartConfigSchema, chartSpec, chartsBody, DIAGRAM, INFOGRAPHIC, presentationBody } from '../../functions/visual/schemas';
import { isRouted } from '../../shared/http/openapi';
import { bodySpec, responsesOf } from '../../shared/http/route';
import { PLAN_TABLE_SCHEMA } from '../../shared/plans';

const LIMITS: Limits = { maxItems: 10, maxDimension: 4_000, maxDatasets: 20, maxPoints: 10_000, maxBodyBytes: 1_000_000 };

/** Each route's path, query and body schemas (what the route helper validates), and its answers' schemas (what the contract tests check). */
const ROUTE_SCHEMAS: [string, object][] = functionsOf(allServices())
  .filter(isRouted)
  .flatMap(({ name, doc: { io } }) => {
    const body = bodySpec(io.body)?.schema;
    return [
      ...(io.params ? [[`${name} path`, io.params]] : []),
      ...(io.query ? [[`${name} query`, io.query]] : []),
      ...(body ? [[`${name} body`, body]] : []),
      ...responsesOf(io).flatMap(([status, spec]) => (spec.schema ? [[`${name} ${status}`, spec.schema]] : [])),
    ] as [string, object][];
  });

const OTHER_SCHEMAS: [string, object][] = [
  ['orchestrator queue message', EXECUTION_MESSAGE],
  ['orchestrator stored submission', REPORT_REQUEST],
  ['plan table', PLAN_TABLE_SCHEMA],
  // The visual bodies under other limits than the defaults the route table documents.
  ['visual chart', chartSpec(LIMITS)],
  ['visual charts body', chartsBody(LIMITS)],
  ['visual diagram', DIAGRAM],
  ['visual infographic', INFOGRAPHIC],
  ['visual presentation', presentationBody(LIMITS)],
  ['QuickChart chart config', chartConfigSchema(LIMITS)],
];

const schemas = [...ROUTE_SCHEMAS, ...OTHER_SCHEMAS];

test('the list covers the routes', () => {
  expect(ROUTE_SCHEMAS.filter(([name]) => name.endsWith(' body')).length).toBeGreaterThan(15);
  expect(ROUTE_SCHEMAS.filter(([name]) => name.endsWith(' query')).length).toBeGreaterThan(5);
});

test.each(schemas)('%s: valid against the meta-schema, and compiles in strict mode', (_name, schema) => {
  const ajv = addFormats(new Ajv({ strict: true, allErrors: true, validateSchema: true }));
  expect(ajv.validateSchema(schema) ? [] : ajv.errors).toEqual([]);
  expect(() => ajv.compile(schema)).not.toThrow();
});

test('a malformed schema is caught here', () => {
  const ajv = addFormats(new Ajv({ strict: true, allErrors: true }));
  expect(ajv.validateSchema({ type: 'object', properties: { n: { type: 'integer', minimum: '5' } } })).toBe(false);
});
