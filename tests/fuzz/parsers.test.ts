import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import JSON5 from 'json5';
import { verifyAccessTokenOr401 } from '../../shared/auth/access-token';
import { ServiceTokenError, verifyServiceToken } from '../../shared/auth/service-token';
import { assertJsonValue, parseJsonBody, validateInput } from '../../shared/http/body';
import { HttpError } from '../../shared/http/errors';
import { runInPlatform } from '../../shared/platform';
import { hashKey } from '../../functions/visual/canonical';
import { chartJsConfig } from '../../functions/visual/chart-spec';
import { parseChartsRequest } from '../../functions/visual/charts';
import { forbiddenDotConstruct } from '../../functions/visual/dot-guard';
import { limits } from '../../functions/visual/limits';
import { parseChartConfig, quickChartConfig } from '../../functions/visual/quickchart';
import { THEMES } from '../../functions/visual/themes';
import { EXECUTIONS_QUERY } from '../../functions/orchestrator/schemas';
import { USERS_QUERY } from '../../functions/identity/schemas';
import { StripeApiError } from '../../tools/stripe-emulator/errors';
import { parseStripeForm } from '../../tools/stripe-emulator/form';
import { startTestHost, type TestHost } from '../helpers/host';
import { signInAdmin } from '../helpers/identity';
import { visualToken } from '../visual/helpers';
import { PROJECT_ROOT } from '../../devhost/paths';

/**
 * The fuzzing harness of every parser that sees user input: chart specifications, QuickChart
 * configurations (JSON5 and the code detector), DOT source, the JSON safety walk and cache keys,
 * Stripe form bodies, query strings and JWT headers. Generated inputs mix random values with the
 * parsers' own vocabulary, so they reach past the first check. Each parser must answer a value or a
 * 4xx refusal (an HttpError), never anything else; over HTTP, never a 5xx or a dropped connection.
 * Run time must grow linearly with input size on the parsers' worst known inputs.
 *
 * `npm test` runs a bounded budget (1,000 inputs per parser, 60 per route); `npm run fuzz` runs the
 * long one (20,000 and 1,000) and prints how many inputs each parser took. FUZZ_RUNS and
 * FUZZ_HTTP_RUNS override either; the counts are written to test-output/fuzz-report.json.
 */
const LONG = process.env.npm_lifecycle_event === 'fuzz';
const RUNS = Number(process.env.FUZZ_RUNS ?? (LONG ? 20_000 : 1000));
const HTTP_RUNS = Number(process.env.FUZZ_HTTP_RUNS ?? (LONG ? 1000 : 60));
const taken: Record<string, number> = {};

let host: TestHost;
let token: string;
let adminToken: string;
beforeAll(async () => {
  host = await startTestHost();
  token = visualToken(host);
  adminToken = (await signInAdmin(host)).accessToken;
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

const weirdKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', '', ' ', 'type', 'data', 'options');
const jsonish = fc.jsonValue({ maxDepth: 4 });
const objectish = fc.oneof(jsonish, fc.dictionary(fc.oneof(weirdKey, fc.string({ maxLength: 8 })), jsonish, { maxKeys: 6 }));

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
        labels: fc.oneof(fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer())), objectish),
        datasets: fc.oneof(
          objectish,
          fc.array(
            fc.dictionary(
              fc.oneof(fc.constantFrom('label', 'data', 'backgroundColor', 'borderWidth', 'type', 'fill', 'stack'), weirdKey),
              fc.oneof(fc.array(fc.oneof(fc.double(), fc.constant(null), fc.record({ x: fc.oneof(fc.double(), fc.string()), y: fc.double() }))), jsonish),
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
  fuzz('charts/render body', fc.record({ charts: fc.oneof(fc.array(chartish, { maxLength: 3 }), objectish), format: fc.string({ maxLength: 6 }) }), (body) => {
    const request = parseChartsRequest(body, limits());
    for (const spec of request.charts) chartJsConfig(spec, THEMES.professional);
  });

  fuzz(
    'QuickChart chart text (JSON5, code detector, Chart.js 2 translation)',
    fc.tuple(wordsOf(JS_WORDS), fc.constantFrom(2, 3, 4) as fc.Arbitrary<2 | 3 | 4>),
    ([text, version]) => quickChartConfig(parseChartConfig(text, limits()), version),
  );
  fuzz('QuickChart chart object', fc.tuple(chartish, fc.constantFrom(2, 3, 4) as fc.Arbitrary<2 | 3 | 4>), ([chart, version]) =>
    quickChartConfig(parseChartConfig(chart, limits()), version),
  );

  fuzz('DOT source (link and file guard)', wordsOf(DOT_WORDS, 80), (source) => forbiddenDotConstruct(source));

  fuzz(
    'JSON body (parse, depth and unsafe keys)',
    fc.oneof(
      fc.string(),
      fc.json(),
      objectish.map((v) => JSON.stringify(v)),
    ),
    (text) => parseJsonBody(Buffer.from(text, 'utf8')),
  );

  test('cache keys: the same JSON gives the same key, whatever it went through', () => {
    fc.assert(
      fc.property(objectish, (value) => {
        taken['cache keys'] = (taken['cache keys'] ?? 0) + 1;
        try {
          assertJsonValue(value, 'value');
        } catch (error) {
          // An unsafe key is refused before any key is made.
          expect((error as HttpError).code).toBe('JSON_KEY_NOT_ALLOWED');
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
    fc.oneof(fc.constantFrom('limit', 'offset', 'status', 'search', 'email', 'role', 'plan'), weirdKey, fc.string()),
    fc.string({ maxLength: 20 }),
  );
  fuzz('query strings (orchestrator executions)', queryish, (query) => validateInput(EXECUTIONS_QUERY, { ...query }, 'query'));
  fuzz('query strings (identity users)', queryish, (query) => validateInput(USERS_QUERY, { ...query }, 'query'));

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

  const expectClientAnswer = async (res: Response) => {
    expect(res.status).toBeLessThan(500);
    if (res.status >= 400 && res.headers.get('content-type')?.includes('json')) expect(((await res.json()) as any).code).toEqual(expect.any(String));
    else await res.arrayBuffer();
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
          const text = JSON.stringify(value).replace('"KEY"', JSON.stringify(token));
          await expectClientAnswer(await post(route, text, auth()));
          taken[`HTTP ${name}`] = (taken[`HTTP ${name}`] ?? 0) + 1;
        }),
        { numRuns: HTTP_RUNS },
      );
    });
  }

  test('query strings on the admin lists are answered below 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.oneof(fc.constantFrom('limit', 'offset', 'status', 'search', 'email', 'timeframe'), fc.string()), fc.string()),
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
