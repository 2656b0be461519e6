import { allServices } from '../../functions/registry';
import { bodyLimit, bodySpec, type RoutedFunction } from '../../shared/http/route';
import { runInPlatform } from '../../shared/platform';
import { signIn } from '../helpers/identity';
import { startTestHost, type TestHost } from '../helpers/host';
import { ACME } from '../orchestrator/helpers';
import { barChart, visualToken } from '../visual/helpers';

/**
 * docs/limits.md, row by row: a request just over each limit, over real HTTP, gets the status and
 * code the page gives. The body limits are read from the route tables, the same place the page's
 * generated table comes from.
 */
let host: TestHost;
let token: string;
let userToken: string;
beforeAll(async () => {
  host = await startTestHost();
  token = visualToken(host);
  userToken = (await signIn(host, 'limits@example.com')).accessToken;
});
afterAll(() => host.stop());

const send = (route: string, body: unknown, bearer = token) =>
  host.fetch(route, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function expectRefused(res: Response, status: number, code: string) {
  const body = (await res.json()) as any;
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  return body;
}

const many = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

describe('the body limit of every route that reads one', () => {
  const routes = allServices()
    .flatMap((s) => s.functions)
    .filter((fn): fn is RoutedFunction => fn.kind === 'http' && 'doc' in fn && bodySpec((fn as RoutedFunction).doc.io.body) !== undefined);

  test('every route that reads a body is in the table', () => expect(routes.length).toBeGreaterThan(10));

  test.each(routes.map((fn) => [`${fn.doc.methods.find((m) => m !== 'GET')} /${fn.doc.path}`, fn] as const))(
    '%s: one byte over its limit is 413 PAYLOAD_TOO_LARGE, before anyone is asked who is calling',
    async (_name, fn) => {
      const limit = runInPlatform(host.platform, () => bodyLimit(bodySpec(fn.doc.io.body)));
      const method = fn.doc.methods.find((m) => m !== 'GET' && m !== 'HEAD')!;
      const path = `/${fn.doc.path.replace(/\{(\w+)\}/g, 'x')}`;
      const res = await host.fetch(path, { method, headers: { 'content-type': 'application/json' }, body: 'x'.repeat(limit + 1) });
      const body = await expectRefused(res, 413, 'PAYLOAD_TOO_LARGE');
      expect(body.message).toContain(`the limit is ${limit} bytes`);
    },
  );
});

describe('visual', () => {
  const charts = (list: unknown[], extra: object = {}) => send('/visual/api/v1/charts/render', { charts: list, ...extra });

  test('21 charts in one request: 413 LIMIT_EXCEEDED', async () => {
    await expectRefused(await charts(many(21, (i) => barChart(`c${i}`))), 413, 'LIMIT_EXCEEDED');
  });
  test('21 slides in one deck: 413 LIMIT_EXCEEDED', async () => {
    await expectRefused(
      await send('/visual/api/v1/presentations/generate', { title: 'Deck', slides: many(21, (i) => ({ title: `S${i}` })) }),
      413,
      'LIMIT_EXCEEDED',
    );
  });
  test('a width of 4,001 px: 400', async () => {
    await expectRefused(await charts([barChart('wide', { width: 4001 })]), 400, 'VALIDATION_FAILED');
  });
  test('21 datasets: 400', async () => {
    const chart = barChart('sets');
    chart.data.datasets = many(21, (i) => ({ label: `d${i}`, data: [1, 2, 3] }));
    await expectRefused(await charts([chart]), 400, 'VALIDATION_FAILED');
  });
  test('5,001 points in a dataset: 400', async () => {
    const chart = barChart('points');
    chart.data.datasets = [{ label: 'd', data: many(5001, (i) => i) }];
    await expectRefused(await charts([chart]), 400, 'VALIDATION_FAILED');
  });
  test('25 metrics in an infographic, and a sparkline of 501 points: 400', async () => {
    const metrics = many(25, (i) => ({ label: `m${i}`, value: i }));
    await expectRefused(
      await send('/visual/api/v1/infographics/generate', { infographics: [{ type: 'dashboard', data: { metrics } }] }),
      400,
      'VALIDATION_FAILED',
    );
    const sparkline = [{ label: 'm', value: 1, sparkline: many(501, (i) => i) }];
    await expectRefused(
      await send('/visual/api/v1/infographics/generate', { infographics: [{ type: 'dashboard', data: { metrics: sparkline } }] }),
      400,
      'VALIDATION_FAILED',
    );
  });
  test('DOT source of 100,001 characters: 400', async () => {
    const source = `digraph { a -> b }${' '.repeat(100_001 - 18)}`;
    await expectRefused(await send('/visual/api/v1/diagrams/render', { diagrams: [{ type: 'dot', source }] }), 400, 'VALIDATION_FAILED');
  });
  test('a flowchart of 501 nodes: 400', async () => {
    const nodes = many(501, (i) => ({ id: `n${i}` }));
    await expectRefused(await send('/visual/api/v1/diagrams/render', { diagrams: [{ type: 'flowchart', nodes, edges: [] }] }), 400, 'VALIDATION_FAILED');
  });
  test('13 bullets on a slide: 400', async () => {
    const slides = [{ title: 'S', bullets: many(13, (i) => `b${i}`) }];
    await expectRefused(await send('/visual/api/v1/presentations/generate', { title: 'Deck', slides }), 400, 'VALIDATION_FAILED');
  });

  test('QuickChart: devicePixelRatio 3.5 is 400; 3 on a 4000 x 4000 chart is reduced to the 16-megapixel cap, not refused', async () => {
    const quick = (extra: object) => send('/quickchart/chart', { chart: { type: 'bar', data: { datasets: [{ data: [1, 2] }] } }, key: token, ...extra });
    await expectRefused(await quick({ devicePixelRatio: 3.5 }), 400, 'VALIDATION_FAILED');
    const big = await quick({ devicePixelRatio: 3, width: 4000, height: 4000 });
    expect(big.status).toBe(200);
    const png = Buffer.from(await big.arrayBuffer());
    expect(png.readUInt32BE(16) * png.readUInt32BE(20)).toBeLessThanOrEqual(16_000_000);
  });

  test('a chart larger than 16 megapixels even at 1x (where an operator allows 8,000 px sides) is 400 IMAGE_TOO_LARGE, not drawn', async () => {
    host.platform.reconfigure({ VISUAL_MAX_DIMENSION: '8000' });
    try {
      const body = await expectRefused(await charts([barChart('huge', { width: 8000, height: 4000 })], { quality: 'standard' }), 400, 'IMAGE_TOO_LARGE');
      expect(body.details).toEqual({ width: 8000, height: 4000, maxPixels: 16_000_000 });
    } finally {
      host.platform.reconfigure({ VISUAL_MAX_DIMENSION: '4000' });
    }
  });
});

describe('report requests', () => {
  const report = (change: (r: any) => void) => {
    const request = JSON.parse(JSON.stringify(ACME));
    change(request);
    return send('/orchestrator/api/reports', request, userToken);
  };
  test.each([
    ['a company name of 201 characters', (r: any) => (r.company_name = 'x'.repeat(201))],
    ['a description of 2,001 characters', (r: any) => (r.profile.description = 'x'.repeat(2001))],
    ['31 years of revenue', (r: any) => (r.profile.revenue_history = many(31, (i) => ({ year: 1990 + i, revenue: 1 })))],
    ['11 goals', (r: any) => (r.profile.goals = many(11, (i) => `goal ${i}`))],
    ['a challenge of 301 characters', (r: any) => (r.profile.challenges = ['x'.repeat(301)])],
    ['21 key metrics', (r: any) => (r.profile.key_metrics = Object.fromEntries(many(21, (i) => [`m${i}`, i])))],
  ])('%s: 400', async (_name, change) => {
    await expectRefused(await report(change), 400, 'VALIDATION_FAILED');
  });
});
