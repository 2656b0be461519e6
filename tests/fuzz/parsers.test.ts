import { appSettings } from '../helpers/context';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import JSON5 from 'json5';
import Stripe from 'stripe';
import { verifyAccessTokenOr401 } from '../../shared/auth/access-token';
import { ServiceTokenError, verifyServiceToken } from '../../shared/auth/service-token';
import { assertJsonValue, parseJsonBody, validateInput } from '../../shared/http/body';
import { HttpError } from '../../shared/http/errors';
import { runInPlatform } from '../../shared/platform';
import { hashKey } from '../../functions/visual/canonical';
import { chartJsConfig } from '../../functions/visual/chart-spec';
import { parseChartsRequest } from '../../functions/visual/charts';
import { forbiddenDotConstruct } from '../../functions/visual/dot-guard';
import { limitsOf } from '../../functions/visual/limits';
import { parseChartConfig, quickChartConfig } from '../../functions/visual/quickchart';
import { THEMES } from '../../functions/visual/themes';
import { EXECUTION_SEARCH_QUERY, EXECUTIONS_QUERY, PROFILES_QUERY } from '../../functions/orchestrator/schemas';
import { AUDIT_QUERY, USERS_QUERY } from '../../functions/identity/schemas';
import { allServices } from '../../functions/registry';

import { bodySpec, type RoutedFunction } from '../../shared/http/route';
import { StripeApiError } from '../../tools/stripe-emulator/errors';
import { parseStripeForm } from '../../tools/stripe-emulator/form';
import { startTestHost, type TestHost } from '../helpers/host';
import { signIn, signInAdmin } from '../helpers/identity';
import { visualToken } from '../visual/helpers';
import { PROJECT_ROOT } from '../../devhost/paths';

/**
 * The fuzzing harness of every parser that sees user input: chart specifications, QuickChart
 * configurations (JSON5 and the code detector), DOT source, the JSON safety walk and cache keys,
 * Stripe form bodies, query strings and JWT headers. Generated inputs mix random values with the
 * parsers' own vocabulary, so they reach past the first check. Each parser must answer a value or a
 * 4xx refusal (an HttpError), never anything else; over HTTP, never a 5xx or a dropped connection.
 * Run time must grow linearly with input size on the parsers' worst known inputs. Every route of
 * every service is also fuzzed from its route table: each path parameter, query parameter and body
 * field gets values shaped by its schema, or the shapes that broke services before (issue 48):
 * control characters and lone surrogates in text, leap seconds and years 0000 and 10000 in dates,
 * numbers that are not finite or are extreme (1e400 as JSON text, Infinity as query text).
 *
 * `npm test` runs a bounded budget (1,000 inputs per parser, 60 per hand-written route, 8 per route
 * of the route tables); `npm run fuzz` runs the long one (20,000, 1,000 and 300) and prints how many
 * inputs each parser took. FUZZ_RUNS, FUZZ_HTTP_RUNS and FUZZ_ROUTE_RUNS override them; the counts
 * are written to test-output/fuzz-report.json.
 */
/** The visual limits of the settings in force (the parsers run in the test host's platform). */
const limits = () => limitsOf(appSettings());
const LONG = process.env.npm_lifecycle_event === 'fuzz';
const RUNS = Number(process.env.FUZZ_RUNS ?? (LONG ? 20_000 : 1000));
const HTTP_RUNS = Number(process.env.FUZZ_HTTP_RUNS ?? (LONG ? 1000 : 60));
const ROUTE_RUNS = Number(process.env.FUZZ_ROUTE_RUNS ?? (LONG ? 300 : 8));
const taken: Record<string, number> = {};

let host: TestHost;
let token: string;
let adminToken: string;
/** A plain user, for the routes whose effect would end the admin's session (sign-out) or spend its quota. */
let user: { accessToken: string; refreshToken: string; id: string };
beforeAll(async () => {
  // Reports are accepted and queued, never run: the fuzz is of the input, and a run costs seconds.
  host = await startTestHost({ env: { 'AzureWebJobs.orchestrator-run-execution.Disabled': 'true' } });
  token = visualToken(host);
  adminToken = (await signInAdmin(host)).accessToken;
  const signed = await signIn(host, 'fuzz-user@example.com');
  user = { accessToken: signed.accessToken, refreshToken: signed.refreshToken, id: signed.user.id };
});
afterAll(async () => {
  await host?.stop();
  const report = Object.entries(taken).map(([parser, inputs]) => ({ parser, inputs }));
  fs.mkdirSync(path.join(PROJECT_ROOT, 'test-output'), { recursive: true });
  fs.writeFileSync(path.join(PROJECT_ROOT, 'test-output', 'fuzz-report.json'), JSON.stringify(report, null, 2));
  if (LONG) console.log(report.map((r) => `${r.parser.padEnd(40)} ${r.inputs}`).join('\n'));
});

/** A 4xx refusal: the services' HttpError, or the local Stripe server's own error for its form bodies. */
const isRefusal = (error: unknown) => (error instanceof HttpError || error instanceof StripeApiError) && error.status >= 400 && error.status < 500;

/** Runs `parse`; it may answer or refuse with a 4xx, and nothing else. */
async function valueOrRefusal(parse: () => unknown): Promise<void> {
  try {
    await runInPlatform(host.platform, parse);
  } catch (error) {
    if (!isRefusal(error)) throw error;
  }
}

function fuzz<T>(parser: string, input: fc.Arbitrary<T>, parse: (value: T) => unknown, runs = RUNS): void {
  test(`${parser}: answers or refuses with a 4xx, for any input`, async () => {
    await fc.assert(
      fc.asyncProperty(input, async (value) => {
        await valueOrRefusal(() => parse(value));
        taken[parser] = (taken[parser] ?? 0) + 1;
      }),
      { numRuns: runs },
    );
  });
}

/** Text built from a parser's own words, so generated inputs get past its first checks. */
const wordsOf = (vocabulary: string[], maxLength = 60) =>
  fc.array(fc.oneof(fc.constantFrom(...vocabulary), fc.string({ maxLength: 6 })), { maxLength }).map((words) => words.join(' '));

/**
 * Text that broke services before: control characters (C0, DEL), lone surrogates, leap seconds and
 * years outside 0001-9999, the words JavaScript reads as numbers that are not finite.
 */
const HOSTILE_TEXT = [
  '\u0000',
  'a\u0000b',
  'Deck\u0001',
  '\u001f',
  '\u007f',
  '\t\r\n\u000b\u000c',
  '\ud800',
  'x\udfff',
  '\udc00\ud800',
  '2016-12-31T23:59:60Z',
  '2016-12-31T18:59:60-05:00',
  '9999-12-31T23:59:59-23:59',
  '0000-01-01T00:00:00Z',
  '+010000-01-01T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  '1e308',
  '-1e308',
];
const controlOrSurrogate = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\u007f', '\ud800', '\udbff', '\udc00', '\udfff'),
);
const hostileText = fc.oneof(
  fc.constantFrom(...HOSTILE_TEXT),
  fc.array(fc.oneof(controlOrSurrogate, fc.constantFrom('a', ' ', '-')), { minLength: 1, maxLength: 8 }).map((chars) => chars.join('')),
);
/** A number written into JSON text as it is: 1e400 and 1E+999 read as Infinity, the others are extreme but finite. */
class RawNumber {
  constructor(readonly text: string) {}
  toJSON() {
    return `@@raw:${this.text}@@`;
  }
}
const RAW_NUMBERS = ['1e308', '-1e308', '1.7976931348623157e308', '1e400', '-1e400', '1E+999', '4.9e-324', '1e-400', '-0', '9007199254740993'];
const rawNumber = fc.constantFrom(...RAW_NUMBERS).map((text) => new RawNumber(text));
/** JSON text of a value, its RawNumbers written as the number text they hold. */
const jsonText = (value: unknown) => JSON.stringify(value).replace(/"@@raw:([-+.0-9Ee]+)@@"/g, '$1');
/** The value as a parser gets it after JSON.parse (1e400 is Infinity by then). */
const asParsed = (value: unknown): any => JSON.parse(jsonText(value) ?? 'null');
/** Fails the property (not a refusal) when a value that was accepted holds a number that is not finite. */
function expectFiniteNumbers(value: unknown): void {
  const stack = [value];
  while (stack.length) {
    const node = stack.pop();
    if (typeof node === 'number' && !Number.isFinite(node)) throw new Error(`accepted a number that is not finite: ${node}`);
    if (node && typeof node === 'object') stack.push(...Object.values(node));
  }
}
/** Numbers as query text: what ajv's coercion turns into numbers it does not range-check, and near misses. */
const NUMBER_WORDS = ['NaN', 'Infinity', '-Infinity', '1e400', '-1e400', '1e308', '-1e308', '0x10', ' 5', '5 ', '1e-400', '-0', '9007199254740993'];
/** Date-times at and beyond the edges: leap seconds, years 0000, 9999 with negative offsets, +010000, and any instant Date holds. */
const dateText = fc.oneof(
  fc.constantFrom(
    '2016-12-31T23:59:60Z',
    '2016-12-31T18:59:60-05:00',
    '9999-12-31T23:59:59-23:59',
    '9999-12-31T23:59:59.999Z',
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:00:00+01:00',
    '0001-01-01T00:00:00Z',
    '+010000-01-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-01-31 09:30:00z',
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
);

const weirdKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', '', ' ', 'type', 'data', 'options');
const jsonish = fc.jsonValue({ maxDepth: 4 });
/** Any JSON leaf, hostile ones included. */
const hostileLeaf = fc.oneof(hostileText, rawNumber, fc.double(), fc.constant(null));
const objectish = fc.oneof(
  jsonish,
  fc.dictionary(fc.oneof(weirdKey, fc.string({ maxLength: 8 }), hostileText), fc.oneof(jsonish, hostileLeaf), { maxKeys: 6 }),
);

const JS_WORDS = [
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  ':',
  ',',
  "'",
  '"',
  '`',
  'type',
  "'bar'",
  'data',
  'labels',
  'datasets',
  'function',
  '=>',
  'new',
  '.',
  '?.',
  'Chart',
  'this',
  '//',
  '/*',
  '*/',
  '\\',
  '\n',
  'a'.repeat(50),
];
const DOT_WORDS = [
  'digraph',
  'graph',
  '{',
  '}',
  '[',
  ']',
  '=',
  ';',
  '->',
  '--',
  '"',
  '<',
  '>',
  'URL',
  'href',
  'labelURL',
  'image',
  'label',
  'a',
  'b',
  '/*',
  '*/',
  '//',
  '#',
  '\\',
  '\\\n',
  '\n',
  '+',
  '<TABLE HREF="x">',
  '<IMG SRC="f"/>',
];
const CHART_TYPES = ['bar', 'line', 'pie', 'doughnut', 'radar', 'scatter', 'bubble', 'polarArea', 'boxplot', 'violin', 'gauge', 'sparkline', 'progressBar'];
const chartish = fc.record(
  {
    id: fc.oneof(fc.string({ maxLength: 10 }), fc.integer()),
    type: fc.oneof(fc.constantFrom(...CHART_TYPES), fc.string({ maxLength: 10 })),
    data: fc.oneof(
      objectish,
      fc.record({
        labels: fc.oneof(fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), hostileText, rawNumber)), objectish),
        datasets: fc.oneof(
          objectish,
          fc.array(
            fc.dictionary(
              fc.oneof(fc.constantFrom('label', 'data', 'backgroundColor', 'borderWidth', 'type', 'fill', 'stack'), weirdKey),
              fc.oneof(
                fc.array(
                  fc.oneof(
                    fc.double(),
                    rawNumber,
                    fc.constant(null),
                    fc.record({ x: fc.oneof(fc.double(), fc.string(), dateText, rawNumber), y: fc.oneof(fc.double(), rawNumber) }),
                  ),
                ),
                jsonish,
                hostileText,
              ),
            ),
            { maxLength: 4 },
          ),
        ),
      }),
    ),
    options: objectish,
  },
  { requiredKeys: [] },
);

describe('in process: each parser on many inputs', () => {
  const chartsBody = fc.record({ charts: fc.oneof(fc.array(chartish, { maxLength: 3 }), objectish), format: fc.string({ maxLength: 6 }) });
  // As the route gets it: parsed from JSON text, through the JSON walk every body goes through.
  fuzz('charts/render body', chartsBody.map(jsonText), (text) => {
    const request = parseChartsRequest(parseJsonBody(Buffer.from(text)), limits());
    for (const spec of request.charts) chartJsConfig(spec, THEMES.professional);
  });

  fuzz(
    'QuickChart chart text (JSON5, code detector, Chart.js 2 translation)',
    fc.tuple(wordsOf(JS_WORDS), fc.constantFrom(2, 3, 4) as fc.Arbitrary<2 | 3 | 4>),
    ([text, version]) => quickChartConfig(parseChartConfig(text, limits()), version),
  );
  fuzz('QuickChart chart object', fc.tuple(chartish.map(asParsed), fc.constantFrom(2, 3, 4) as fc.Arbitrary<2 | 3 | 4>), ([chart, version]) =>
    quickChartConfig(parseChartConfig(chart, limits()), version),
  );

  fuzz('DOT source (link and file guard)', wordsOf(DOT_WORDS, 80), (source) => forbiddenDotConstruct(source));

  fuzz(
    'JSON body (parse, depth, unsafe keys, numbers that are not finite)',
    fc.oneof(fc.string(), fc.json(), objectish.map(jsonText), hostileLeaf.map(jsonText)),
    (text) => expectFiniteNumbers(parseJsonBody(Buffer.from(text, 'utf8'))),
  );

  test('cache keys: the same JSON gives the same key, whatever it went through', () => {
    fc.assert(
      fc.property(objectish.map(asParsed), (value) => {
        taken['cache keys'] = (taken['cache keys'] ?? 0) + 1;
        try {
          assertJsonValue(value, 'value');
        } catch (error) {
          // An unsafe key, or a number that is not finite, is refused before any key is made.
          expect(['JSON_KEY_NOT_ALLOWED', 'VALIDATION_FAILED']).toContain((error as HttpError).code);
          return;
        }
        expect(hashKey('k', JSON.parse(JSON.stringify(value)))).toBe(hashKey('k', value));
      }),
      { numRuns: RUNS },
    );
  });

  const FORM_WORDS = ['amount', '=', '&', '[', ']', 'metadata', '__proto__', 'constructor', '%5B', '%5D', '%00', '0', '100', '[]'];
  fuzz(
    'Stripe form body',
    fc.oneof(
      fc.string(),
      wordsOf(FORM_WORDS).map((s) => s.replace(/ /g, '')),
    ),
    (body) => parseStripeForm(body),
  );

  const queryish = fc.dictionary(
    fc.oneof(fc.constantFrom('limit', 'offset', 'page', 'status', 'search', 'email', 'role', 'plan', 'since', 'until', 'from', 'to'), weirdKey, fc.string()),
    fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom(...NUMBER_WORDS), fc.integer().map(String), hostileText, dateText),
  );
  /** An accepted query holds only finite numbers, and date-times that make 4-digit-year ISO text (so they sort as they should). */
  const checkedQuery = (schema: { properties: object }) => (query: Record<string, string>) => {
    const accepted = validateInput<Record<string, unknown>>(schema, { ...query }, 'query');
    expectFiniteNumbers(accepted);
    for (const [name, value] of Object.entries(accepted))
      if ((schema.properties as Record<string, { format?: string }>)[name]?.format === 'date-time')
        expect(new Date(value as string).toISOString()).toMatch(/^\d{4}-/);
  };
  fuzz('query strings (orchestrator executions)', queryish, checkedQuery(EXECUTIONS_QUERY));
  fuzz('query strings (orchestrator execution search)', queryish, checkedQuery(EXECUTION_SEARCH_QUERY));
  fuzz('query strings (orchestrator profiles)', queryish, checkedQuery(PROFILES_QUERY));
  fuzz('query strings (identity users)', queryish, checkedQuery(USERS_QUERY));
  fuzz('query strings (identity audit)', queryish, checkedQuery(AUDIT_QUERY));

  const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
  const jwtHeader = fc.record(
    {
      alg: fc.oneof(fc.constantFrom('none', 'HS256', 'ES256', 'RS256', 'ES512', 'EdDSA'), fc.string()),
      kid: fc.oneof(fc.string(), fc.integer()),
      typ: fc.string(),
      crit: jsonish,
      jku: fc.webUrl(),
    },
    { requiredKeys: [] },
  );
  const jwtish = fc.oneof(
    fc.string(),
    fc.tuple(fc.oneof(jwtHeader, objectish, fc.string()), objectish, fc.string()).map(([h, p, s]) => `${b64(h)}.${b64(p)}.${b64(s)}`),
  );
  fuzz('JWT access tokens (headers, claims, signature)', jwtish, (jwt) => verifyAccessTokenOr401(jwt));
  test('service tokens: any token is verified or refused with the service-token error', async () => {
    await fc.assert(
      fc.asyncProperty(jwtish, async (jwt) => {
        await verifyServiceToken(jwt, {
          secrets: ['s'.repeat(32)],
          issuer: 'payment-service',
          audience: 'identity-service',
          requiredPermission: 'admin:users:update',
        }).catch((error: Error) => expect(error).toBeInstanceOf(ServiceTokenError));
        taken['service tokens'] = (taken['service tokens'] ?? 0) + 1;
      }),
      { numRuns: RUNS },
    );
  });
});

describe('over HTTP: no 5xx and no dropped connection for any body, query or token', () => {
  // The host runs in this process: its memory is this process's, measured around the whole batch.
  let rssBefore = 0;
  beforeAll(() => (rssBefore = process.memoryUsage().rss));
  afterAll(() => expect(process.memoryUsage().rss - rssBefore).toBeLessThan(300 * 1024 * 1024));

  /**
   * Messages of the libraries behind the services (the canvas, Date, SQLite, paging, XML) that
   * reached clients before: a refusal says what is wrong in the request's terms, never in theirs.
   */
  const LIBRARY_MESSAGES = ['Convert String to CString', 'Invalid time value', 'datatype mismatch', 'is not a row count', 'PCDATA invalid Char'];
  const expectClientAnswer = async (res: Response, method = 'GET') => {
    const type = res.headers.get('content-type') ?? '';
    // The answer in the failure, so a counterexample says what the route said (fast-check adds the input).
    if (res.status >= 500) throw new Error(`answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    if (res.status >= 400 && type.includes('json') && method !== 'HEAD') {
      const body = (await res.json()) as { code?: unknown; message?: string };
      expect(body.code).toEqual(expect.any(String));
      const leaked = LIBRARY_MESSAGES.find((m) => JSON.stringify(body).includes(m));
      if (leaked) throw new Error(`answered ${res.status} with a library's message: ${JSON.stringify(body).slice(0, 300)}`);
    } else if (res.status < 300 && type.startsWith('image/svg')) {
      // A vector drawn from numbers that were not finite (or overflowed on the way) has NaN or Infinity in its coordinates.
      const svg = await res.text();
      const bad = /NaN|Infinity/.exec(svg);
      if (bad) throw new Error(`answered ${res.status} with an SVG holding ${bad[0]}: ...${svg.slice(Math.max(0, bad.index - 80), bad.index + 40)}...`);
    } else await res.arrayBuffer();
  };
  /** Inputs each hand-written route always gets first: the shapes that failed in issue 48. */
  const nulLabels = { type: 'bar', data: { labels: ['a\u0000b'], datasets: [{ label: 'x\u0000', data: [1] }] } };
  const overflowing = { type: 'line', data: { labels: ['a', 'b'], datasets: [{ data: [1e308, -1e308], pointRadius: 1e308 }] } };
  const EXAMPLES: Record<string, unknown[]> = {
    'visual charts/render': [
      { charts: [nulLabels], format: 'png' },
      { charts: [overflowing], format: 'svg' },
    ],
    'QuickChart /chart': [
      { chart: nulLabels, key: 'KEY', format: 'png' },
      { chart: overflowing, key: 'KEY', format: 'svg' },
    ],
  };
  const post = (route: string, body: string, auth?: string) =>
    host.fetch(route, { method: 'POST', headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) }, body });

  const routes: [string, string, () => string | undefined, fc.Arbitrary<unknown>][] = [
    [
      'visual charts/render',
      '/visual/api/v1/charts/render',
      () => token,
      fc.record({ charts: fc.array(chartish, { maxLength: 2 }), format: fc.constantFrom('png', 'svg', 'base64', 'x') }),
    ],
    [
      'visual infographics/generate',
      '/visual/api/v1/infographics/generate',
      () => token,
      fc.record({ infographics: fc.array(fc.record({ type: fc.constant('dashboard'), data: objectish }), { maxLength: 2 }) }),
    ],
    [
      'visual diagrams/render',
      '/visual/api/v1/diagrams/render',
      () => token,
      fc.record({
        diagrams: fc.array(fc.record({ type: fc.constant('dot'), source: wordsOf(DOT_WORDS, 30) }), { maxLength: 2 }),
        format: fc.constantFrom('svg', 'png'),
      }),
    ],
    [
      'QuickChart /chart',
      '/quickchart/chart',
      () => undefined,
      fc.record({ chart: fc.oneof(chartish, wordsOf(JS_WORDS)), key: fc.constant('KEY'), format: fc.constantFrom('png', 'svg', 'pdf', 'webp') }),
    ],
    ['identity auth/login', '/identity/auth/login', () => undefined, objectish],
    ['identity admin/users', '/identity/admin/users', () => adminToken, objectish],
    [
      'orchestrator api/reports',
      '/orchestrator/api/reports',
      () => adminToken,
      fc.record({ company_name: fc.string(), industry_id: fc.string(), profile: objectish }, { requiredKeys: [] }),
    ],
  ];
  for (const [name, route, auth, body] of routes) {
    test(`POST ${name}: any body is answered below 500`, async () => {
      await fc.assert(
        fc.asyncProperty(body, async (value) => {
          const text = jsonText(value).replace('"KEY"', JSON.stringify(token));
          await expectClientAnswer(await post(route, text, auth()));
          taken[`HTTP ${name}`] = (taken[`HTTP ${name}`] ?? 0) + 1;
        }),
        { numRuns: HTTP_RUNS, examples: (EXAMPLES[name] ?? []).map((example) => [example]) },
      );
    });
  }

  test('query strings on the admin lists are answered below 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.oneof(fc.constantFrom('limit', 'offset', 'status', 'search', 'email', 'timeframe'), fc.string()),
          fc.oneof(fc.string(), fc.constantFrom(...NUMBER_WORDS), hostileText),
        ),
        async (query) => {
          const qs = new URLSearchParams(query).toString();
          for (const route of ['/orchestrator/api/admin/dashboard/executions', '/identity/admin/users', '/orchestrator/api/admin/dashboard/failures'])
            await expectClientAnswer(await host.fetch(`${route}?${qs}`, { headers: { authorization: `Bearer ${adminToken}` } }));
          taken['HTTP admin query strings'] = (taken['HTTP admin query strings'] ?? 0) + 1;
        },
      ),
      { numRuns: HTTP_RUNS },
    );
  });

  describe('every route of every service, from its route table', () => {
    const routed = allServices()
      .flatMap((service) => service.functions)
      .filter((fn): fn is RoutedFunction => fn.kind === 'http' && 'doc' in fn);

    /** Values for a schema: shaped by it most of the time (so checks past the first are reached), hostile otherwise. */
    function valueOf(schema: any, depth = 0): fc.Arbitrary<unknown> {
      const hostile = fc.oneof(hostileText, rawNumber, fc.constant(null));
      if (!schema || typeof schema !== 'object' || depth > 5) return fc.oneof(hostile, jsonish);
      const shaped: fc.Arbitrary<unknown>[] = [];
      if (schema.enum) shaped.push(fc.constantFrom(...schema.enum));
      for (const option of schema.anyOf ?? []) shaped.push(valueOf(option, depth + 1));
      if (schema.format === 'date-time') shaped.push(dateText);
      else if (schema.type === 'string') shaped.push(fc.string({ maxLength: 12 }), hostileText, hostileText, fc.constant(user.id));
      if (schema.type === 'integer' || schema.type === 'number')
        // Whole numbers within the bounds (a number's may be fractions: devicePixelRatio from 0.1).
        shaped.push(fc.integer({ min: Math.ceil(Math.max(schema.minimum ?? -1000, -1e9)), max: Math.floor(Math.min(schema.maximum ?? 1000, 1e9)) }), rawNumber);
      if (schema.type === 'boolean') shaped.push(fc.boolean());
      if (schema.type === 'array') shaped.push(fc.array(valueOf(schema.items, depth + 1), { maxLength: 3 }));
      if (schema.type === 'object' && schema.properties) {
        const properties = Object.fromEntries(Object.entries(schema.properties).map(([key, property]) => [key, valueOf(property, depth + 1)]));
        shaped.push(fc.record(properties, { requiredKeys: (schema.required ?? []).filter((key: string) => key in properties) }));
      } else if (schema.type === 'object') shaped.push(objectish);
      if (!shaped.length) shaped.push(objectish);
      return fc.oneof({ arbitrary: fc.oneof(...shaped), weight: 4 }, { arbitrary: hostile, weight: 1 });
    }
    /** The text of a query or path value. */
    const textOf = (schema: any) =>
      fc.oneof(
        valueOf(schema).map((v) => (v instanceof RawNumber ? v.text : typeof v === 'string' ? v : JSON.stringify(v))),
        fc.constantFrom(...NUMBER_WORDS),
        hostileText,
      );
    const paramsOf = (schema: any): fc.Arbitrary<Record<string, string>> =>
      schema?.properties
        ? fc.record(Object.fromEntries(Object.keys(schema.properties).map((key) => [key, textOf(schema.properties[key])])), {
            requiredKeys: schema.required ?? [],
          })
        : fc.constant({});

    /**
     * A path segment of any text. A lone surrogate cannot be sent as UTF-8, so it goes as the bytes
     * WTF-8 gives it (%ED%A0%80 for \ud800), which are not UTF-8: what a client can send that is nearest.
     */
    const segment = (text: string) =>
      [...text]
        .map((c) => {
          const code = c.charCodeAt(0);
          if (c.length > 1 || code < 0xd800 || code > 0xdfff) return encodeURIComponent(c);
          return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
        })
        .join('') || 'x';

    /** Who calls: each guard's caller (a plain user for sign-out, so the admin's session lives on). */
    const authOf = (fn: RoutedFunction): Record<string, string> => {
      const guard = fn.doc.guard.describe;
      if (/VISUAL_API_TOKEN/.test(guard)) return { authorization: `Bearer ${token}` };
      if (fn.doc.path === 'identity/auth/logout' || fn.doc.path.startsWith('orchestrator/api/reports')) return { authorization: `Bearer ${user.accessToken}` };
      return guard === 'public' ? {} : { authorization: `Bearer ${adminToken}` };
    };
    /** A Stripe webhook is signed as Stripe signs it, so the parsing after the signature is fuzzed too. */
    const stripeSigner = new Stripe('sk_test_signer_for_fuzz');
    const signed = (fn: RoutedFunction, text: string): Record<string, string> =>
      fn.doc.path === 'payment/webhook'
        ? {
            'stripe-signature': stripeSigner.webhooks.generateTestHeaderString({
              payload: text,
              secret: runInPlatform(host.platform, () => appSettings().STRIPE_WEBHOOK_SECRET),
            }),
          }
        : {};

    test.each(routed.map((fn) => [`${fn.doc.methods.join(',')} /${fn.doc.path}`, fn] as const))(
      '%s: any path, query and body is answered below 500',
      async (name, fn) => {
        const body = bodySpec(fn.doc.io.body);
        const request = fc.record({
          method: fc.constantFrom(...fn.doc.methods),
          params: paramsOf(fn.doc.io.params),
          query: paramsOf(fn.doc.io.query),
          body: body ? valueOf(body.schema) : fc.constant(undefined),
          requestId: fc.oneof(
            fc.constant(undefined),
            fc.string({ maxLength: 80 }).filter((id) => /^[\x20-\x7e]*$/.test(id)),
          ),
        });
        await fc.assert(
          fc.asyncProperty(request, async ({ method, params, query, body: value, requestId }) => {
            const path = fn.doc.path.replace(/\{\*?(\w+)\}/g, (_m, key: string) => segment(params[key] ?? 'x'));
            const qs = new URLSearchParams(query).toString();
            const text = value === undefined || method === 'GET' || method === 'HEAD' ? undefined : jsonText(value);
            const res = await host.fetch(`/${path}${qs ? `?${qs}` : ''}`, {
              method,
              headers: {
                ...authOf(fn),
                ...(text === undefined ? {} : { 'content-type': 'application/json', ...signed(fn, text) }),
                ...(requestId === undefined ? {} : { 'x-request-id': requestId }),
              },
              body: text,
            });
            await expectClientAnswer(res, method);
            taken[`HTTP route ${name}`] = (taken[`HTTP route ${name}`] ?? 0) + 1;
          }),
          { numRuns: ROUTE_RUNS },
        );
      },
    );
  });

  test('any bearer token is answered 401, by every service that reads one', async () => {
    const tokens = fc.oneof(
      fc.string({ minLength: 1 }).filter((t) => /^[\x21-\x7e]+$/.test(t)),
      fc
        .tuple(objectish, objectish)
        .map(([h, p]) => `${Buffer.from(JSON.stringify(h)).toString('base64url')}.${Buffer.from(JSON.stringify(p)).toString('base64url')}.x`),
    );
    await fc.assert(
      fc.asyncProperty(tokens, async (jwt) => {
        for (const route of ['/identity/auth/validate', '/payment/user-status', '/orchestrator/api/admin/dashboard/overview']) {
          const res = await host.fetch(route, { headers: { authorization: `Bearer ${jwt}` } });
          expect(res.status).toBe(401);
          await res.arrayBuffer();
        }
        taken['HTTP bearer tokens'] = (taken['HTTP bearer tokens'] ?? 0) + 1;
      }),
      { numRuns: HTTP_RUNS },
    );
  });
});

describe('run time grows linearly with input size on the worst known inputs', () => {
  /** CPU time of the fastest of three runs. */
  const cpuMs = (run: () => unknown) => {
    let best = Infinity;
    for (let i = 0; i < 3; i++) {
      const start = process.cpuUsage();
      run();
      const used = process.cpuUsage(start);
      best = Math.min(best, (used.user + used.system) / 1000);
    }
    return best;
  };
  const quietly = (parse: () => unknown) => () => {
    try {
      runInPlatform(host.platform, parse);
    } catch (error) {
      if (!isRefusal(error)) throw error;
    }
  };
  // An 8 times larger input may cost about 8 times as much; a quadratic parser costs 64 times.
  const cases: [string, (n: number) => () => unknown][] = [
    ['QuickChart identifier run', (n) => quietly(() => parseChartConfig('a'.repeat(n), limits()))],
    ['QuickChart quotes and escapes', (n) => quietly(() => parseChartConfig(`{a:"${'\\"'.repeat(n / 2)}`, limits()))],
    ['QuickChart call after a long name', (n) => quietly(() => parseChartConfig(`${'x'.repeat(n)}(`, limits()))],
    ['DOT quoted strings and comments', (n) => quietly(() => forbiddenDotConstruct(`digraph { a [label="${'\\"/*'.repeat(n / 4)}"] }`))],
    ['DOT HTML strings', (n) => quietly(() => forbiddenDotConstruct(`digraph { a [label=<${'<b>'.repeat(n / 3)}>] }`))],
    [
      'JSON nesting and keys',
      (n) => quietly(() => parseJsonBody(Buffer.from(JSON.stringify(Object.fromEntries(Array.from({ length: n / 10 }, (_, i) => [`k${i}`, [[{ a: i }]]])))))),
    ],
    ['JSON numbers (each checked finite)', (n) => quietly(() => parseJsonBody(Buffer.from(`[${'1.5e300,'.repeat(n / 8)}1e400]`)))],
    ['Stripe form brackets', (n) => quietly(() => parseStripeForm('a'.repeat(n) + '[b]=1&' + '[]'.repeat(50)))],
    ['JSON5 via QuickChart', (n) => quietly(() => parseChartConfig(`{type:'bar',data:{labels:[${"'x',".repeat(n / 4)}],datasets:[{data:[1]}]}}`, limits()))],
  ];
  test.each(cases)('%s', (name, make) => {
    const small = cpuMs(make(20_000));
    const large = cpuMs(make(160_000));
    taken[`linear: ${name}`] = 2;
    // Below a millisecond, timer resolution decides the ratio: compare against a floor.
    expect(large / Math.max(small, 1)).toBeLessThan(24);
  });
});

test('JSON5 keeps __proto__ as an own key, so the safety walk sees it', () => {
  const parsed = JSON5.parse('{ "__proto__": { "polluted": 1 } }');
  expect(Object.keys(parsed)).toEqual(['__proto__']);
  expect(() => assertJsonValue(parsed, 'chart')).toThrow(/__proto__/);
});
