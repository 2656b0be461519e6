import type { Kysely } from 'kysely';
import type { OrchestratorTables } from '../../functions/orchestrator/db/tables';
import { allServices } from '../../functions/registry';
import { db as sqlDb } from '../../shared/sql/db';
import { bodySpec, type RoutedFunction } from '../../shared/http/route';
import { startTestHost, type TestHost } from '../helpers/host';
import { expectErrorAnswer } from '../helpers/errors';
import { bearer, signIn, signInAdmin } from '../helpers/identity';
import { deliver, paymentIntentObject, stripeEvent } from '../payment/helpers';
import { visualToken } from '../visual/helpers';

/**
 * Dates and numbers in requests, one rule on every service (docs/limits.md, "Dates and numbers"):
 * a date-time is a real instant in the years 0001 to 9999 (UTC) and never a leap second; a number
 * is finite, whether it came as query text ("Infinity", "1e400") or as JSON (1e400 reads as
 * Infinity). Each bad value is a 400 VALIDATION_FAILED naming the parameter, on every route that
 * takes one: the tables below are checked against the route tables, so a new date or number
 * parameter cannot be left out.
 */
let host: TestHost;
let adminToken: string;
let userId: string;
beforeAll(async () => {
  host = await startTestHost();
  const admin = await signInAdmin(host);
  adminToken = admin.accessToken;
  userId = (await signIn(host, 'dates@example.com')).user.id;
  // The admin's webhook endpoint `we_0`, whose deliveries list takes a limit and an offset.
  const now = new Date().toISOString();
  await (sqlDb() as Kysely<OrchestratorTables>)
    .insertInto('orchestrator_webhook_endpoints')
    .values({ id: 'we_0', user_id: admin.user.id, url: 'https://example.com/hook', description: null, secret: 'whsec_0', created_at: now, updated_at: now })
    .execute();
});
afterAll(() => host.stop());

const BAD_QUERY_NUMBERS = ['Infinity', '-Infinity', '1e400', '-1e400'];
/** A leap second; year 10000 once in UTC (it normalises to +010000-01-01T23:58:59Z); year 0. */
const BAD_DATES = ['2016-12-31T23:59:60Z', '2016-12-31T18:59:60-05:00', '9999-12-31T23:59:59-23:59', '0000-12-31T23:59:59Z', '0001-01-01T00:30:00+01:00'];
const DATE_MESSAGE = 'must be a date-time (RFC 3339, for example 2026-01-31T09:30:00Z) from the year 0001 to 9999 in UTC, and not a leap second';
const NUMBER_MESSAGE = 'must be a finite number';

/** Every query parameter that is a number, with a value it accepts. */
const QUERY_NUMBERS: [path: string, param: string, good: string][] = [
  ['/identity/admin/users', 'limit', '10'],
  ['/identity/admin/users', 'offset', '5'],
  ['/identity/admin/audit', 'limit', '10'],
  ['/identity/admin/audit', 'offset', '5'],
  ['/identity/admin/sessions', 'limit', '10'],
  ['/identity/admin/sessions', 'offset', '5'],
  ['/payment/admin/unsynced', 'limit', '10'],
  ['/payment/admin/review-decisions', 'limit', '10'],
  ['/payment/admin/accounts', 'limit', '10'],
  ['/payment/admin/accounts', 'offset', '5'],
  ['/orchestrator/api/admin/dashboard/executions', 'limit', '10'],
  ['/orchestrator/api/admin/profiles', 'page', '2'],
  ['/orchestrator/api/admin/profiles', 'limit', '10'],
  ['/orchestrator/api/admin/executions', 'limit', '10'],
  ['/orchestrator/api/reports', 'limit', '10'],
  ['/orchestrator/api/admin/webhooks/deliveries', 'limit', '10'],
  ['/orchestrator/api/admin/webhooks/deliveries', 'offset', '5'],
  ['/orchestrator/api/webhooks/endpoints/{id}/deliveries', 'limit', '10'],
  ['/orchestrator/api/webhooks/endpoints/{id}/deliveries', 'offset', '5'],
];
/** Every query parameter that is a date-time. */
const QUERY_DATES: [path: string, param: string][] = [
  ['/identity/admin/audit', 'since'],
  ['/identity/admin/audit', 'until'],
  ['/orchestrator/api/admin/executions', 'from'],
  ['/orchestrator/api/admin/executions', 'to'],
];

interface BodyCase {
  method: string;
  /** The route's path as its table writes it. */
  path: string;
  /** A valid body, and the field (dotted, array items by index) the bad value replaces. */
  body: () => Record<string, unknown>;
  field: string;
}
const reportBody = () => ({
  company_name: 'Dates Inc',
  industry_id: '31-33',
  profile: { employees: 10, founded_year: 2000, revenue_history: [{ year: 2024, revenue: 1, net_income: 1 }], key_metrics: { k: 1 } },
});
const retryBody = () => ({ from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z', limit: 10, dryRun: true });
const planBody = () => ({ plan: 'free', timestamp: '2020-01-01T00:00:00Z' });
const PLAN = '/identity/admin/users/{userId}/plan';
const RETRY = '/orchestrator/api/admin/executions/retry-failed';
/** Path parameters get well-formed values: the body is checked before the handler looks anything up. */
const url = (path: string) => path.replace('{userId}', userId).replace('{trackingId}', 'rpt-00000000-0000-4000-8000-000000000000');
/** A chart whose first data item has the shape `field` reaches into: samples, a point, statistics, or a number. */
const chartFor = (field: string) => {
  const item = /data\.0\.0$/.test(field)
    ? [1, 2]
    : /data\.0\.[xyr]$/.test(field)
      ? { x: 1, y: 2, r: 3 }
      : /data\.0\.(min|q1|median|q3|max|mean|outliers)/.test(field)
        ? { min: 1, q1: 2, median: 3, q3: 4, max: 5, mean: 3, outliers: [9] }
        : 1;
  return { type: 'bar', data: { labels: [1], datasets: [{ data: [item], borderWidth: 1 }] }, options: { width: 100, height: 100 } };
};
const CHART_NUMBERS = [
  'data.labels.0',
  'data.datasets.0.borderWidth',
  'options.width',
  'options.height',
  ...['', '.0', '.x', '.y', '.r', '.min', '.q1', '.median', '.q3', '.max', '.mean', '.outliers.0'].map((end) => `data.datasets.0.data.0${end}`),
];
const infographic = (data: object) => ({ infographics: [{ type: 'dashboard', width: 800, data }] });
const metric = { label: 'Revenue', value: 1, change: 1, sparkline: [1, 2] };
const VISUAL_NUMBERS: BodyCase[] = [
  ...CHART_NUMBERS.map((field) => ({
    method: 'POST',
    path: '/visual/api/v1/charts/render',
    body: () => ({ charts: [chartFor(field)] }),
    field: `charts.0.${field}`,
  })),
  ...CHART_NUMBERS.map((field) => ({
    method: 'POST',
    path: '/visual/api/v1/presentations/generate',
    body: () => ({ title: 'Deck', slides: [{ title: 'Slide', chart: chartFor(field) }] }),
    field: `slides.0.chart.${field}`,
  })),
  { method: 'POST', path: '/visual/api/v1/infographics/generate', body: () => infographic({ k: 1 }), field: 'infographics.0.data.k' },
  { method: 'POST', path: '/visual/api/v1/infographics/generate', body: () => infographic({ k: 1 }), field: 'infographics.0.width' },
  ...['value', 'change', 'sparkline.0'].map((field) => ({
    method: 'POST',
    path: '/visual/api/v1/infographics/generate',
    body: () => infographic({ metrics: [{ ...metric, sparkline: [1, 2] }] }),
    field: `infographics.0.data.metrics.0.${field}`,
  })),
  ...['width', 'w', 'height', 'h', 'devicePixelRatio', 'version', 'v'].map((field) => ({
    method: 'POST',
    path: '/quickchart/chart',
    body: () => ({
      chart: { type: 'bar', data: { datasets: [{ data: [1] }] } },
      width: 100,
      w: 100,
      height: 100,
      h: 100,
      devicePixelRatio: 1,
      version: 4,
      v: 4,
    }),
    field,
  })),
];
/** Every number in a JSON body. */
const BODY_NUMBERS: BodyCase[] = [
  { method: 'POST', path: '/payment/create-payment-intent', body: () => ({ amount: 2900, planType: 'pro', userId }), field: 'amount' },
  { method: 'POST', path: RETRY, body: retryBody, field: 'limit' },
  ...['employees', 'founded_year', 'revenue_history.0.year', 'revenue_history.0.revenue', 'revenue_history.0.net_income', 'key_metrics.k'].map((field) => ({
    method: 'POST',
    path: '/orchestrator/api/reports',
    body: reportBody,
    field: `profile.${field}`,
  })),
  { method: 'POST', path: '/orchestrator/api/reports/{trackingId}/shares', body: () => ({ expiresInDays: 7 }), field: 'expiresInDays' },
  ...VISUAL_NUMBERS,
];
/** Every date-time in a JSON body. */
const BODY_DATES: BodyCase[] = [
  { method: 'PUT', path: PLAN, body: planBody, field: 'timestamp' },
  { method: 'PUT', path: PLAN, body: planBody, field: 'periodEnd' },
  { method: 'POST', path: RETRY, body: retryBody, field: 'from' },
  { method: 'POST', path: RETRY, body: retryBody, field: 'to' },
];

/** A path parameter of the table's path is given a well-formed value: the query is checked before the handler looks it up. */
const get = (path: string, query: Record<string, string>) =>
  host.fetch(`${path.replace('{id}', 'we_0')}?${new URLSearchParams(query)}`, { headers: bearer(adminToken) });
/** The visual API and the QuickChart endpoint take the visual token; the other routes the admin's. */
const tokenFor = (path: string) => (/^\/(visual|quickchart)\//.test(path) ? visualToken(host) : adminToken);
const send = (method: string, path: string, text: string) =>
  host.fetch(path, { method, headers: { ...bearer(tokenFor(path)), 'content-type': 'application/json' }, body: text });

/** The body as JSON text with `field` set to `raw`, written as is (so 1e400 stays the number text it is). */
function withField(body: Record<string, unknown>, field: string, raw: string): string {
  const keys = field.split('.');
  let at: any = body;
  for (const key of keys.slice(0, -1)) at = at[key];
  at[keys.at(-1)!] = '\u0000BAD\u0000';
  return JSON.stringify(body).replace('"\\u0000BAD\\u0000"', raw);
}

async function expectNamed(res: Response, where: 'query' | 'body', field: string, message: string) {
  const body = await expectErrorAnswer(res, 400, 'VALIDATION_FAILED');
  expect({ message: body.message, details: body.details }).toEqual({
    message: `Invalid ${where}: ${field} ${message}`,
    details: [{ field, message }],
  });
}

describe('numbers in queries are finite', () => {
  test.each(QUERY_NUMBERS.flatMap(([path, param]) => BAD_QUERY_NUMBERS.map((value) => [path, param, value])))(
    '%s?%s=%s: 400 naming the parameter',
    async (path, param, value) => {
      await expectNamed(await get(path, { [param]: value }), 'query', param, NUMBER_MESSAGE);
    },
  );

  test.each(QUERY_NUMBERS)('%s?%s=%s is still answered', async (path, param, good) => {
    expect((await get(path, { [param]: good })).status).toBe(200);
  });
});

describe('date-times in queries are real instants of the years 0001-9999', () => {
  test.each(QUERY_DATES.flatMap(([path, param]) => BAD_DATES.map((value) => [path, param, value])))(
    '%s?%s=%s: 400 naming the parameter',
    async (path, param, value) => {
      await expectNamed(await get(path, { [param]: value }), 'query', param, DATE_MESSAGE);
    },
  );

  test.each(QUERY_DATES)('%s?%s= the first and last instants allowed, and an offset, are still answered', async (path, param) => {
    for (const value of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '2026-03-01T10:00:00+02:00', '9999-12-31T23:59:59+00:00'])
      expect({ value, status: (await get(path, { [param]: value })).status }).toEqual({ value, status: 200 });
  });
});

describe('numbers in JSON bodies are finite', () => {
  test.each(BODY_NUMBERS.flatMap((c) => ['1e400', '-1e400', '1E+999'].map((raw) => [`${c.method} ${c.path} ${c.field}`, raw, c] as const)))(
    '%s = %s: 400 naming the field',
    async (_name, raw, c) => {
      await expectNamed(await send(c.method, url(c.path), withField(c.body(), c.field, raw)), 'body', c.field, NUMBER_MESSAGE);
    },
  );

  test('anywhere in a body, even where the schema allows any value: a chart option of 1e400', async () => {
    const res = await host.fetch('/visual/api/v1/charts/render', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(visualToken(host)) },
      body: '{"charts":[{"type":"line","data":{"labels":["a"],"datasets":[{"data":[1],"pointRadius":1e400}]}}]}',
    });
    await expectNamed(res, 'body', 'charts.0.data.datasets.0.pointRadius', NUMBER_MESSAGE);
  });
});

describe('date-times in JSON bodies are real instants of the years 0001-9999', () => {
  test.each(BODY_DATES.flatMap((c) => BAD_DATES.map((value) => [`${c.method} ${c.path} ${c.field}`, value, c] as const)))(
    '%s = %s: 400 naming the field',
    async (_name, value, c) => {
      const body = { ...c.body(), [c.field]: value };
      await expectNamed(await send(c.method, url(c.path), JSON.stringify(body)), 'body', c.field, DATE_MESSAGE);
    },
  );

  test('a normal plan timestamp and bulk retry range are still answered', async () => {
    expect((await send('PUT', url(PLAN), JSON.stringify(planBody()))).status).toBe(200);
    expect((await send('POST', RETRY, JSON.stringify(retryBody()))).status).toBe(200);
  });
});

describe('"from must be before to" holds whatever the years', () => {
  test('a bulk retry from year 10000 (9999-12-31T23:59:59-23:59) to 2027 is refused, not run on an empty range', async () => {
    const res = await send('POST', RETRY, JSON.stringify({ from: '9999-12-31T23:59:59-23:59', to: '2027-01-01T00:00:00Z', dryRun: true }));
    await expectNamed(res, 'body', 'from', DATE_MESSAGE);
  });

  test('a bulk retry from 2026 to the last instant of 9999 is a range, not "from after to"', async () => {
    const res = await send('POST', RETRY, JSON.stringify({ from: '2026-01-01T00:00:00Z', to: '9999-12-31T23:59:59-00:00', dryRun: true }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ from: '2026-01-01T00:00:00.000Z', to: '9999-12-31T23:59:59.000Z', matched: 0 });
  });

  test('the same order, the other way round, is refused as before', async () => {
    const res = await send('POST', RETRY, JSON.stringify({ from: '9999-12-31T23:59:59Z', to: '2026-01-01T00:00:00Z', dryRun: true }));
    const body = await expectErrorAnswer(res, 400, 'VALIDATION_FAILED');
    expect(body.message).toBe('`from` must be before `to`.');
  });
});

test("a Stripe event's created time beyond the year 9999 is a 400 naming it, not a 500", async () => {
  const event = stripeEvent('payment_intent.succeeded', paymentIntentObject('pi_dates_far', { userId, planType: 'pro', amount: 2900 }), { created: 1e17 });
  const res = await deliver(host, event);
  expect({ status: res.status, code: res.body.code, details: res.body.details }).toEqual({
    status: 400,
    code: 'VALIDATION_FAILED',
    details: [{ field: 'created', message: 'must be <= 253402300799' }],
  });
});

describe('the tables above hold every date and number a route takes', () => {
  /** `where:field:kind` of every integer, number and date-time in a route's path, query or body. */
  function inputsOf(schema: any, prefix: string, out: string[] = []): string[] {
    if (!schema || typeof schema !== 'object') return out;
    if (schema.format === 'date-time') out.push(`${prefix}:date`);
    else if (schema.type === 'integer' || schema.type === 'number') out.push(`${prefix}:number`);
    const at = (key: string) => (prefix.endsWith(':') ? `${prefix}${key}` : `${prefix}.${key}`);
    for (const [key, value] of Object.entries(schema.properties ?? {})) inputsOf(value, at(key), out);
    if (schema.items) inputsOf(schema.items, at('0'), out);
    if (typeof schema.additionalProperties === 'object') inputsOf(schema.additionalProperties, at('k'), out);
    for (const option of schema.anyOf ?? []) inputsOf(option, prefix, out);
    return out;
  }

  test('every route', () => {
    const found = allServices()
      .flatMap((s) => s.functions)
      .filter((fn): fn is RoutedFunction => fn.kind === 'http' && 'doc' in fn)
      .flatMap((fn) => {
        const path = `/${fn.doc.path}`;
        return [
          ...inputsOf(fn.doc.io.params, `${path} path:`),
          ...inputsOf(fn.doc.io.query, `${path} query:`),
          ...inputsOf(bodySpec(fn.doc.io.body)?.schema, `${path} body:`),
        ];
      })
      .sort();
    const tested = [
      ...QUERY_NUMBERS.map(([path, param]) => `${path} query:${param}:number`),
      ...QUERY_DATES.map(([path, param]) => `${path} query:${param}:date`),
      ...BODY_NUMBERS.map((c) => `${c.path} body:${c.field}:number`),
      ...BODY_DATES.map((c) => `${c.path} body:${c.field}:date`),
      '/payment/webhook body:created:number',
    ].sort();
    expect(found).toEqual(tested);
  });
});
