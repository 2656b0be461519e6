/**
 * Every service's API document says what its validators do. For every route that takes a JSON
 * body or a query, over real HTTP against the test host:
 * 1. every example the document gives is admitted by the document's own schema and answered by
 *    the route without a refusal of its input;
 * 2. a corpus of inputs generated from the document (tests/helpers/schema-values.ts: values from
 *    its schemas, and the same values with one documented constraint broken: a wrong type, a value
 *    outside an enum, a required field left out, a field a closed object does not have) is judged by
 *    the document (an ajv of the test's own) and by the route, and they agree: what the document
 *    admits is never refused as invalid input, what it does not admit is refused with a 400;
 * 3. in an input the document admits, each enum's field set to every value it lists and to those
 *    of the related enums of the documents is judged alike by both (a value a validator admits
 *    without its document listing it is found whatever the seed).
 * A route whose schema says less or more than its validator fails here, naming the input, the
 * seed (OPENAPI_SEED to replay it, OPENAPI_RUNS for a longer run, OPENAPI_REPORT=1 for the counts
 * per route) and what each side said. Rules the document states in words
 * only, because JSON Schema cannot say them, are listed below (CHECKED_IN_CODE), each with the
 * route, the refusal it gives and why: a refusal the list does not name fails the test.
 *
 * Raw bodies (the Stripe webhook, the QuickChart endpoint) are read by their operation, not by a
 * validator: only their examples are checked.
 */
import fc from 'fast-check';
import { allServices } from '../../functions/registry';
import { serviceDocument } from '../../shared/http/contract';
import { isRouted } from '../../shared/http/openapi';
import { bodySpec, type RoutedFunction } from '../../shared/http/route';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin } from '../helpers/identity';
import { admits, enumsOf, mutationsOf, outsideOf, valuesOf, type Schema } from '../helpers/schema-values';
import { visualToken } from '../visual/helpers';

const SEED = Number(process.env.OPENAPI_SEED ?? 4949);
/** Inputs per route: about half generated as the document admits them, half with a constraint broken (about 450 requests in all, with the enums'). */
const RUNS = Number(process.env.OPENAPI_RUNS ?? 8);

/** The codes of a refusal of the input's shape: what a route answers when its validator (or its body reader) refuses what came. */
const INPUT_REFUSALS = new Set([
  'VALIDATION_FAILED',
  'INVALID_JSON',
  'JSON_TOO_DEEP',
  'JSON_KEY_NOT_ALLOWED',
  'INVALID_CHARTS_ARRAY',
  'INVALID_INFOGRAPHICS_ARRAY',
  'INVALID_DIAGRAMS_ARRAY',
]);

/** What a chart is checked for beyond its schema (the chart schema's description says it). */
const CHART_RULES = [
  {
    refusal: /of a (gauge|radialGauge|progressBar) must|data\.datasets\.1\.data must have as many values as data\.datasets\.0\.data/,
    why: "a gauge's value and thresholds, a radialGauge's value, a progressBar's matching lengths: rules on the first datasets",
  },
  { refusal: /is not a scheme of chartjs-plugin-colorschemes/, why: 'colour scheme names (a table of hundreds, loaded when a chart names one)' },
  {
    refusal: /holds more than \d+ keys|numbers in a chart must lie within|must lie within ±\d+ px/,
    why: 'the keys and numbers of free-form options, at any depth',
  },
];
/**
 * Rules checked in code beyond a route's schema (stated in the schema's descriptions, or reported
 * to be), by function name: a refusal of an input the document admits passes only when it is one
 * of these.
 */
const CHECKED_IN_CODE: Record<string, { refusal: RegExp; why: string }[]> = {
  // Stated in the chart schema's description (functions/visual/schemas.ts).
  'visual-charts-render': CHART_RULES,
  'visual-presentations-generate': CHART_RULES,
  // Not stated in their documents yet (reported to the lead, issue 49): rules across fields, or that JSON Schema cannot hold.
  'orchestrator-reports-create': [
    { refusal: /^Invalid body: locale ".*" is not a locale/, why: 'a locale this runtime can format numbers and dates for (Intl), beyond the BCP 47 pattern' },
    {
      refusal: /^Invalid body: [\w.[\]]+ contains a control character/,
      why: 'no control characters in the free text (a pattern could say it, with another message)',
    },
    { refusal: /^Invalid body: profile\.revenue_history has year \d+ more than once/, why: 'each year once (uniqueness by a field)' },
  ],
  'orchestrator-admin-executions-retry-failed': [{ refusal: /^`from` must be before `to`/, why: 'from before to (across fields)' }],
  'identity-admin-audit': [{ refusal: /^Invalid query: since is after until/, why: 'since not after until (across parameters)' }],
};

interface Route {
  fn: RoutedFunction;
  method: string;
  body?: Schema;
  query: { name: string; required: boolean; schema: Schema }[];
  path: { name: string; schema: Schema }[];
  examples: unknown[];
}

/** Each route of each service with its operation in the service's API document (built in process, as npm run client:generate builds it). */
const ROUTES: Route[] = allServices().flatMap((service) => {
  const document = serviceDocument(service, `http://localhost/${service.name}`) as { paths: Record<string, Record<string, any>> };
  return service.functions.filter(isRouted).flatMap((fn) => {
    const method = fn.doc.methods.includes('POST') ? 'POST' : fn.doc.methods[0];
    const operation = document.paths[`/${fn.doc.path.replace(/\{\*/g, '{')}`]?.[method.toLowerCase()];
    const parameters = (operation?.parameters ?? []) as { name: string; in: string; required: boolean; schema: Schema }[];
    const media = operation?.requestBody?.content?.['application/json'];
    const body = media?.schema as Schema | undefined;
    const examples = [...(body?.examples ?? []), ...(media?.example !== undefined ? [media.example] : [])];
    if (!body && !parameters.some((p) => p.in === 'query')) return [];
    return [{ fn, method, body, query: parameters.filter((p) => p.in === 'query'), path: parameters.filter((p) => p.in === 'path'), examples }];
  });
});

/** Every enum of the documents: a value outside one enum is taken from the others (see enumsOf). */
const ENUMS = enumsOf(ROUTES.flatMap((route) => [route.body, ...route.query.map((p) => p.schema)]));

let host: TestHost;
let adminToken: string;
let userToken: string;
let signedIn = 0;
beforeAll(async () => {
  // Reports are accepted and queued, never run; logins are not limited per address for the tries below.
  host = await startTestHost({ env: { 'AzureWebJobs.orchestrator-run-execution.Disabled': 'true', LOGIN_MAX_PER_IP: '100000' } });
  adminToken = (await signInAdmin(host)).accessToken;
  userToken = (await signIn(host, 'openapi-user@example.com')).accessToken;
});
afterAll(() => host?.stop());

/** Who calls: each guard's caller. Sign-out ends the caller's session, so each is a user signed in for it. */
async function authFor(fn: RoutedFunction): Promise<Record<string, string>> {
  const guard = fn.doc.guard.describe;
  if (/VISUAL_API_TOKEN/.test(guard)) return bearer(visualToken(host));
  if (fn.doc.path === 'identity/auth/logout') return bearer((await signIn(host, `openapi-logout-${++signedIn}@example.com`)).accessToken);
  if (/^a signed-in user/.test(guard)) return bearer(userToken);
  return bearer(adminToken);
}

/** Path parameters the document admits (the route checks them before the body), but for "." and "..", which no client can send as a segment (RFC 3986 removes them). */
const pathValues = (route: Route) =>
  fc.record(
    Object.fromEntries(
      route.path.map((p) => [
        p.name,
        valuesOf(p.schema)
          .map(String)
          .filter((value) => value !== '.' && value !== '..'),
      ]),
    ),
  );

interface Answer {
  status: number;
  code?: string;
  message?: string;
}

async function send(route: Route, input: { body?: unknown; query?: Record<string, unknown>; params?: Record<string, string> }): Promise<Answer> {
  const path = route.fn.doc.path.replace(/\{\*?(\w+)\}/g, (_m, name: string) => encodeURIComponent(input.params?.[name] ?? 'x'));
  const query = new URLSearchParams(Object.entries(input.query ?? {}).map(([key, value]): [string, string] => [key, String(value)])).toString();
  const res = await host.fetch(`/${path}${query ? `?${query}` : ''}`, {
    method: route.method,
    headers: { ...(await authFor(route.fn)), ...(input.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: input.body === undefined ? undefined : JSON.stringify(input.body),
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.includes('json') && text ? (JSON.parse(text) as { code?: string; message?: string }) : {};
  return { status: res.status, code: json.code, message: json.message };
}

/** A refusal of the input as invalid: a 400 with an input code (for a query, the route's "Invalid query"). */
const refusedInput = (answer: Answer, where: 'body' | 'query') =>
  answer.status === 400 && INPUT_REFUSALS.has(answer.code ?? '') && (where === 'body' || /^Invalid query/.test(answer.message ?? ''));
const checkedInCode = (route: Route, answer: Answer) => (CHECKED_IN_CODE[route.fn.name] ?? []).some((rule) => rule.refusal.test(answer.message ?? ''));

/** How many inputs each route was sent, by the document's verdict: printed with OPENAPI_REPORT=1. */
const sent: Record<string, { admitted: number; refused: number; codeOnly: number }> = {};
function count(route: Route, where: 'body' | 'query', admitted: boolean, answer: Answer) {
  const entry = (sent[`${route.method} /${route.fn.doc.path} ${where}`] ??= { admitted: 0, refused: 0, codeOnly: 0 });
  if (!admitted) entry.refused++;
  else if (refusedInput(answer, where)) entry.codeOnly++;
  else entry.admitted++;
}
afterAll(() => {
  if (process.env.OPENAPI_REPORT)
    console.log(
      Object.entries(sent)
        .map(([name, n]) => `${name}: ${n.admitted} admitted, ${n.refused} not, ${n.codeOnly} refused by a rule checked in code`)
        .join('\n'),
    );
});

const show = (value: unknown) => JSON.stringify(value)?.slice(0, 600);

/** The verdict of the document and of the route on one input, as a failure's message, or undefined when they agree. */
function disagreement(route: Route, where: 'body' | 'query', admitted: boolean, answer: Answer, broken?: string): string | undefined {
  const refused = refusedInput(answer, where);
  if (admitted && refused && !checkedInCode(route, answer))
    return `the document admits this ${where}, the route refused it as invalid (${answer.status} ${answer.code}: ${answer.message})`;
  // Refused, whichever code says why: an input the document does not admit may break another rule first (an earlier item's).
  if (!admitted && answer.status !== 400)
    return `the document does not admit this ${where}${broken ? ` (${broken})` : ''}, the route answered ${answer.status} ${answer.code ?? ''} ${answer.message ?? ''}`;
  return undefined;
}

const bodyRoutes = ROUTES.filter((route) => route.body && !bodySpec(route.fn.doc.io.body)?.raw);
const queryRoutes = ROUTES.filter((route) => route.query.length);
const exampleRoutes = ROUTES.filter((route) => route.examples.length);

test('the routes above are every route with a JSON body or a query, and the documents give examples', () => {
  expect(bodyRoutes.length).toBeGreaterThan(20);
  expect(queryRoutes.length).toBeGreaterThan(10);
  expect(exampleRoutes.map((route) => route.fn.doc.id)).toEqual(
    expect.arrayContaining(['charts-render', 'infographics-generate', 'presentations-generate', 'diagrams-render', 'quickchart-chart']),
  );
});

describe('every example of the documents is admitted by its schema and answered by its route', () => {
  test.each(exampleRoutes.map((route) => [`${route.method} /${route.fn.doc.path}`, route] as const))('%s', async (_name, route) => {
    for (const example of route.examples) {
      expect({ example, admitted: admits(route.body!, example) }).toEqual({ example, admitted: true });
      const answer = await send(route, { body: example });
      expect({ example, answer, refused: refusedInput(answer, 'body') || answer.status >= 500 }).toEqual({ example, answer, refused: false });
    }
  });
});

describe(`bodies: the document and the validator agree (seed ${SEED}; OPENAPI_SEED replays)`, () => {
  test.each(bodyRoutes.map((route, i) => [`${route.method} /${route.fn.doc.path}`, route, i] as const))('%s', async (_name, route, i) => {
    const input = fc.record({ body: valuesOf(route.body!), params: pathValues(route), broken: fc.boolean(), pick: fc.nat(), choice: fc.nat() });
    await fc.assert(
      fc.asyncProperty(input, async ({ body: made, params, broken, pick, choice }) => {
        const mutations = broken ? mutationsOf(route.body!, made, ENUMS) : [];
        const mutation = mutations.length ? mutations[pick % mutations.length] : undefined;
        const body = mutation ? mutation.apply(made, choice) : made;
        const admitted = admits(route.body!, body);
        const answer = await send(route, { body, params });
        count(route, 'body', admitted, answer);
        const problem = disagreement(route, 'body', admitted, answer, mutation?.what);
        if (problem) throw new Error(`${route.method} /${route.fn.doc.path}: ${problem}\nbody: ${show(body)}`);
      }),
      { seed: SEED + i, numRuns: RUNS },
    );
  });
});

/** A route's query as one object schema: its parameters as the document lists them (the document says nothing of others). */
const querySchema = (route: Route): Schema => ({
  type: 'object',
  properties: Object.fromEntries(route.query.map((p) => [p.name, p.schema])),
  required: route.query.filter((p) => p.required).map((p) => p.name),
});

/** The ways to break one documented constraint of a query: a parameter's type or enum, or a required one left out. */
function queryMutations(route: Route, query: Record<string, unknown>, choice: number): { what: string; query: Record<string, unknown> }[] {
  const outside = (values: unknown[]) => {
    const others = outsideOf(values, ENUMS).outside.filter((value) => typeof value === 'string');
    return others[choice % others.length];
  };
  return route.query.flatMap(({ name, required, schema }) => [
    ...(['integer', 'number', 'boolean'].includes(schema.type) ? [{ what: `${name}: not a ${schema.type}`, query: { ...query, [name]: 'not-a-number' } }] : []),
    ...(schema.enum ? [{ what: `${name}: outside the enum`, query: { ...query, [name]: outside(schema.enum) } }] : []),
    ...(required ? [{ what: `${name}: left out`, query: Object.fromEntries(Object.entries(query).filter(([key]) => key !== name)) }] : []),
  ]);
}

describe(`queries: the document and the validator agree (seed ${SEED}; OPENAPI_SEED replays)`, () => {
  test.each(queryRoutes.map((route, i) => [`${route.method} /${route.fn.doc.path}`, route, i] as const))('%s', async (_name, route, i) => {
    const schema = querySchema(route);
    const input = fc.record({
      query: valuesOf(schema) as fc.Arbitrary<Record<string, unknown>>,
      params: pathValues(route),
      broken: fc.boolean(),
      pick: fc.nat(),
      choice: fc.nat(),
    });
    await fc.assert(
      fc.asyncProperty(input, async ({ query: made, params, broken, pick, choice }) => {
        const mutations = broken ? queryMutations(route, made, choice) : [];
        const mutation = mutations.length ? mutations[pick % mutations.length] : undefined;
        const query = mutation ? mutation.query : made;
        const admitted = admits(schema, query);
        const answer = await send(route, { query, params });
        count(route, 'query', admitted, answer);
        const problem = disagreement(route, 'query', admitted, answer, mutation?.what);
        if (problem) throw new Error(`${route.method} /${route.fn.doc.path}: ${problem}\nquery: ${show(query)}`);
      }),
      { seed: SEED + 1000 + i, numRuns: RUNS },
    );
  });
});

/** A value of the schema the document admits: its first example, else the first of a few generated (undefined when none is). */
function admittedValue(schema: Schema, examples: unknown[] = []): unknown {
  return [...examples, ...fc.sample(valuesOf(schema), { seed: SEED, numRuns: 50 })].find((value) => admits(schema, value));
}

/**
 * Enums, value by value: in an input the document admits, each enum's field is set to every value
 * the enum lists and to those of the document's enums that share values with it (the chart types of
 * the charts body and of the QuickChart chart, the plans of every service), and the document and
 * the route judge each. A validator that refuses a listed value, or admits one the document leaves
 * out, fails here whatever the seed; the corpus above finds them only by chance.
 */
describe('every value of every enum, and of the enums related to it, is judged alike', () => {
  test.each(bodyRoutes.map((route) => [`${route.method} /${route.fn.doc.path}`, route] as const))('%s', async (_name, route) => {
    const body = admittedValue(route.body!, route.examples);
    if (body === undefined) return;
    const [params] = fc.sample(pathValues(route), { seed: SEED, numRuns: 1 });
    for (const site of mutationsOf(route.body!, body, ENUMS).filter((m) => m.near))
      for (const value of site.near!) {
        const probe = site.replace!(body, value);
        const answer = await send(route, { body: probe, params });
        const problem = disagreement(
          route,
          'body',
          admits(route.body!, probe),
          answer,
          site.what.replace('outside the enum', `set to ${JSON.stringify(value)}`),
        );
        if (problem) throw new Error(`${route.method} /${route.fn.doc.path}: ${problem}\nbody: ${show(probe)}`);
      }
  });

  test.each(queryRoutes.map((route) => [`${route.method} /${route.fn.doc.path}`, route] as const))('%s', async (_name, route) => {
    const schema = querySchema(route);
    const query = admittedValue(schema) as Record<string, unknown> | undefined;
    if (query === undefined) return;
    const [params] = fc.sample(pathValues(route), { seed: SEED, numRuns: 1 });
    for (const { name, schema: parameter } of route.query.filter((p) => p.schema.enum))
      for (const value of [...parameter.enum, ...outsideOf(parameter.enum, ENUMS).siblings]) {
        const probe = { ...query, [name]: value };
        const answer = await send(route, { query: probe, params });
        const problem = disagreement(route, 'query', admits(schema, probe), answer, `${name} set to ${JSON.stringify(value)}`);
        if (problem) throw new Error(`${route.method} /${route.fn.doc.path}: ${problem}\nquery: ${show(probe)}`);
      }
  });
});
