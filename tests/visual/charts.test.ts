import { Resvg } from '@resvg/resvg-js';
import { THEMES } from '../../functions/visual/themes';
import { barChart, chartOfType, countColor, decodePng, hexToRgb, pixel, postJson, fetchFresh, visualTestHost, renderPoolOf } from './helpers';
import { expectErrorAnswer } from '../helpers/errors';

const visual = visualTestHost();

const render = (body: unknown, auth: string | undefined = visual.token) => postJson(visual.host, '/visual/api/v1/charts/render', body, auth);
const fetchBytes = async (url: string) => Buffer.from(await (await fetchFresh(url)).arrayBuffer());

test('GET /visual/health names SQL, storage and the renderer', async () => {
  const res = await fetchFresh(`${visual.host.url}/visual/health`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as any;
  expect(body).toMatchObject({ service: 'visual', status: 'healthy', dependencies: { storage: { ok: true }, renderer: { ok: true } } });
  expect(body.dependencies.renderer.detail).toMatch(/^\d+ render threads/);
});

describe('routing and errors (resources, 405 for other methods, the named error bodies)', () => {
  test.each(['/visual', '/visual/', '/visual/anything/else', '/visual/api', '/visual/api/v2/charts'])('%s answers the plain-text banner', async (route) => {
    for (const method of ['GET', 'POST']) {
      const res = await fetchFresh(`${visual.host.url}${route}`, { method });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toContain('Visual rendering service');
    }
  });

  test.each(['/visual/api/v1/unknown', '/visual/api/v1/', '/visual/api/v1/chart/render'])('%s is 404 Resource not found for any method', async (route) => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await fetchFresh(`${visual.host.url}${route}`, { method, headers: { authorization: `Bearer ${visual.token}` } });
      expect(await expectErrorAnswer(res, 404, 'RESOURCE_NOT_FOUND')).toMatchObject({ error: 'Resource not found' });
    }
  });

  test.each(['GET', 'PUT', 'PATCH', 'DELETE'])('%s on charts is 405 Method not allowed', async (method) => {
    const res = await fetchFresh(`${visual.host.url}/visual/api/v1/charts/render`, { method, headers: { authorization: `Bearer ${visual.token}` } });
    expect(await expectErrorAnswer(res, 405, 'METHOD_NOT_ALLOWED')).toMatchObject({ error: 'Method not allowed' });
    expect(res.headers.get('allow')).toBe('POST');
  });

  test('the API requires the bearer token when VISUAL_API_TOKEN is set', async () => {
    const missing = await render({ charts: [barChart()] }, '');
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ code: 'AUTH_REQUIRED' });
    const wrong = await render({ charts: [barChart()] }, `${visual.token}x`);
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'AUTH_TOKEN_INVALID' });
  });

  test.each([
    ['missing', {}],
    ['a string', { charts: 'bar' }],
    ['an object', { charts: { id: 'a' } }],
    ['a body that is an array', [barChart()]],
    ['null', { charts: null }],
  ])('charts %s is 400 Invalid charts array', async (_name, body) => {
    const res = await render(body);
    expect(await expectErrorAnswer(res, 400, 'INVALID_CHARTS_ARRAY')).toMatchObject({ error: 'Invalid charts array' });
  });

  test('malformed JSON is 400 INVALID_JSON', async () => {
    const res = await render('{"charts": [');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'INVALID_JSON' });
  });

  test('an invalid chart is 400 naming the chart id and the field', async () => {
    const bad = { ...barChart('sales'), data: { labels: ['a'], datasets: [{ label: 'x', data: ['ten'] }] } };
    const res = await render({ charts: [barChart('ok'), bad] });
    const body = await expectErrorAnswer(res, 400, 'VALIDATION_FAILED');
    expect(body).toMatchObject({ chartId: 'sales', field: 'data.datasets.0.data.0' });
    expect(body.message).toContain('Chart "sales"');

    const wrongType = await render({ charts: [{ ...barChart('t'), type: 'funnel' }] });
    expect(await expectErrorAnswer(wrongType, 400, 'VALIDATION_FAILED')).toMatchObject({ chartId: 't', field: 'type' });

    const scatter = await render({ charts: [{ ...chartOfType('scatter', 'sc'), data: { datasets: [{ data: [1, 2] }] } }] });
    expect(await expectErrorAnswer(scatter, 400, 'VALIDATION_FAILED')).toMatchObject({ chartId: 'sc', field: 'data.datasets.0.data.0' });

    const format = await render({ charts: [barChart()], format: 'gif' });
    expect((await expectErrorAnswer(format, 400, 'VALIDATION_FAILED')).message).toContain('format');
  });
});

describe('rendering', () => {
  test.each(Object.values(THEMES).map((t) => [t.name, t] as const))('every chart type renders as PNG with the %s theme', async (_name, theme) => {
    const types = ['bar', 'line', 'pie', 'doughnut', 'radar', 'scatter', 'bubble'];
    const res = await render({ charts: types.map((t) => chartOfType(t)), theme: theme.name, quality: 'standard' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.charts.map((c: any) => c.id)).toEqual(types);
    for (const chart of body.charts) {
      const bytes = await fetchBytes(chart.imageUrl);
      expect(chart.metadata).toMatchObject({ width: 800, height: 400, size: bytes.length, title: `A ${chart.id} chart`, description: null });
      const png = decodePng(bytes);
      expect([png.width, png.height]).toEqual([800, 400]);
      expect(pixel(png, 1, 1)).toEqual([...hexToRgb(theme.backgroundColor), 255]);
      expect(countColor(png, theme.colors[0])).toBeGreaterThan(30);
      if (chart.id === 'pie') expect(countColor(png, theme.colors[1])).toBeGreaterThan(1000);
    }
  });

  test.each(Object.values(THEMES).map((t) => [t.name, t] as const))('every chart type renders as SVG with the %s theme', async (_name, theme) => {
    const types = ['bar', 'line', 'pie', 'doughnut', 'radar', 'scatter', 'bubble'];
    const res = await render({ charts: types.map((t) => chartOfType(t)), theme: theme.name, format: 'svg' });
    expect(res.status).toBe(200);
    for (const chart of ((await res.json()) as any).charts) {
      const svg = await (await fetchFresh(chart.imageUrl)).text();
      const parsed = new Resvg(svg, { font: { loadSystemFonts: false } });
      expect([parsed.width, parsed.height]).toEqual([800, 400]);
      expect(svg).toMatch(new RegExp(`<text[^>]*>A ${chart.id} chart</text>`));
      expect(svg.toLowerCase()).toContain(theme.colors[0].toLowerCase());
      expect(svg.toLowerCase()).toMatch(new RegExp(`<text fill="${theme.textColor.toLowerCase()}"[^>]*>a ${chart.id} chart</text>`));
    }
  });

  test('an unknown theme falls back to professional; defaults are 800x400 at 2x density for quality high', async () => {
    const res = await render({ charts: [barChart('fallback')], theme: 'neon' });
    const body = (await res.json()) as any;
    const bytes = await fetchBytes(body.charts[0].imageUrl);
    const png = decodePng(bytes);
    expect([png.width, png.height]).toEqual([1600, 800]);
    // pHYs: 192 dpi (96 per CSS pixel at 2x) in pixels per metre, so documents size it as 800x400.
    const phys = bytes.indexOf('pHYs');
    expect(bytes.readUInt32BE(phys + 4)).toBe(Math.round(192 * 39.3701));
    expect(body.charts[0].metadata).toMatchObject({ width: 800, height: 400 });
    expect(countColor(png, THEMES.professional.colors[0])).toBeGreaterThan(1000);
  });

  test('options.width and options.height size the image', async () => {
    const res = await render({ charts: [barChart('small', { width: 320, height: 200 })], quality: 'standard' });
    const body = (await res.json()) as any;
    const png = decodePng(await fetchBytes(body.charts[0].imageUrl));
    expect([png.width, png.height]).toEqual([320, 200]);
    expect(body.charts[0].metadata).toMatchObject({ width: 320, height: 200 });
  });

  test('SVG keeps text as escaped text and parses', async () => {
    const chart = { ...barChart('svg'), data: { labels: ['<script>alert(1)</script>', 'Tom & "Jerry"'], datasets: [{ label: "it's", data: [1, 2] }] } };
    const res = await render({ charts: [chart], format: 'svg', theme: 'corporate' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.charts[0].base64).toBeNull();
    const file = await fetchFresh(body.charts[0].imageUrl);
    expect(file.headers.get('content-type')).toBe('image/svg+xml');
    const svg = await file.text();
    expect(svg).toMatch(/^<\?xml[^>]*\?><svg[^>]*width="800" height="400"/);
    expect(svg).not.toContain('<script');
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(svg).toContain('Tom &amp; &quot;Jerry&quot;');
    expect(svg).toMatch(/<text[^>]*>Revenue by quarter<\/text>/);
    expect(svg.toLowerCase()).toContain(THEMES.corporate.colors[0].toLowerCase());
    const parsed = new Resvg(svg, { font: { loadSystemFonts: false } });
    expect([parsed.width, parsed.height]).toEqual([800, 400]);
    expect(body.charts[0].metadata.size).toBe(Buffer.byteLength(svg));
  });

  test('a label "process.env" is literal text, never evaluated', async () => {
    const chart = {
      ...barChart('env', { title: 'process.env.HOME' }),
      data: { labels: ['process.env', '${process.env.HOME}'], datasets: [{ label: 'require("fs")', data: [1, 2] }] },
    };
    const res = await render({ charts: [chart], format: 'svg' });
    const svg = await (await fetchFresh(((await res.json()) as any).charts[0].imageUrl)).text();
    expect(svg).toMatch(/<text[^>]*>process\.env<\/text>/);
    expect(svg).toMatch(/<text[^>]*>\$\{process\.env\.HOME\}<\/text>/);
    expect(svg).toMatch(/<text[^>]*>process\.env\.HOME<\/text>/);
    expect(svg).toContain('require(&quot;fs&quot;)');
    expect(svg).not.toContain(process.env.HOME ?? '/root');
  });

  test('base64 format answers a PNG data URI; other formats answer null', async () => {
    const res = await render({ charts: [barChart('b64')], format: 'base64', quality: 'standard' });
    const chart = ((await res.json()) as any).charts[0];
    expect(chart.base64).toMatch(/^data:image\/png;base64,/);
    const bytes = Buffer.from(chart.base64.split(',')[1], 'base64');
    expect(decodePng(bytes).width).toBe(800);
    expect(bytes.equals(await fetchBytes(chart.imageUrl))).toBe(true);
    expect(chart.metadata.size).toBe(bytes.length);
    const png = ((await (await render({ charts: [barChart('b64')], format: 'png', quality: 'standard' })).json()) as any).charts[0];
    expect(png.base64).toBeNull();
    expect(png.imageUrl).not.toBe(chart.imageUrl);
  });

  test('charts of one request render in parallel on the pool: more than one thread when it has more than one', async () => {
    const charts = Array.from({ length: 6 }, (_, i) => ({
      ...chartOfType('line', `p${i}`),
      data: { labels: ['a', 'b', 'c'], datasets: [{ label: `parallel ${i}`, data: [i, i + 1, i + 2] }] },
    }));
    const res = await render({ charts, format: 'png' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-render-count')).toBe('6');
    // The pool has VISUAL_RENDER_WORKERS threads, or one per core (0, the default): read, not assumed.
    const size = renderPoolOf(visual.host).size;
    const threads = res.headers.get('x-render-threads')!.split(',');
    expect(threads.length).toBeGreaterThanOrEqual(Math.min(2, size));
    expect(threads.length).toBeLessThanOrEqual(size);
  });
});

describe('cache', () => {
  test('a repeated request is a hit served without rendering, whatever its id; the same keys in another order are another key', async () => {
    const chart = barChart('cached', { title: `cache ${Date.now()}` });
    const first = await render({ charts: [chart], theme: 'executive' });
    expect(first.headers.get('x-cache')).toBe('MISS');
    const firstBody = (await first.json()) as any;
    const rendersBefore = renderPoolOf(visual.host).renders;

    const renamed = { ...chart, id: 'renamed' };
    const second = await render({ theme: 'executive', charts: [renamed] });
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(second.headers.get('x-render-count')).toBe('0');
    expect(renderPoolOf(visual.host).renders).toBe(rendersBefore);
    const secondBody = (await second.json()) as any;
    expect(secondBody.charts[0]).toMatchObject({ id: 'renamed', imageUrl: firstBody.charts[0].imageUrl, metadata: firstBody.charts[0].metadata });
    expect(secondBody.cacheKey).toBe(firstBody.cacheKey);

    const otherTheme = await render({ charts: [chart], theme: 'corporate' });
    expect(otherTheme.headers.get('x-cache')).toBe('MISS');

    // Renderers draw objects in key order, so a key is a hash of the order too: never one image for two drawings.
    const reordered = { options: { description: chart.options.description, title: chart.options.title }, data: chart.data, type: 'bar', id: 'cached' };
    const third = await render({ theme: 'executive', charts: [reordered] });
    expect(third.headers.get('x-cache')).toBe('MISS');
    expect(((await third.json()) as any).charts[0].imageUrl).not.toBe(firstBody.charts[0].imageUrl);
  });

  test('the response carries imageUrl under the visual URL, cacheKey and expiresAt 12 hours ahead', async () => {
    const before = Date.now();
    const res = await render({ charts: [barChart('urls')] });
    const body = (await res.json()) as any;
    expect(body.success).toBe(true);
    expect(body.cacheKey).toMatch(/^[a-f0-9]{64}$/);
    expect(body.charts[0].imageUrl).toMatch(new RegExp(`^${visual.host.serviceUrls.visual}/cache/[a-f0-9]{64}$`));
    const expires = Date.parse(body.expiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + 12 * 3600_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 12 * 3600_000);
    expect(Date.parse(body.charts[0].metadata.generatedAt)).toBeLessThanOrEqual(Date.now());
  });

  test('GET /visual/cache/{key} serves the image with ETag and Cache-Control, 304 on If-None-Match, 404 when unknown', async () => {
    const body = (await (await render({ charts: [barChart('served')] })).json()) as any;
    const url = body.charts[0].imageUrl as string;
    const res = await fetchFresh(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const etag = res.headers.get('etag');
    expect(etag).toBe(`"${url.split('/').pop()}"`);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=(4319\d|43200), immutable$/);
    expect((await fetchFresh(url, { headers: { 'if-none-match': etag! } })).status).toBe(304);
    await expectErrorAnswer(await fetchFresh(`${visual.host.url}/visual/cache/${'0'.repeat(64)}`), 404, 'CACHE_ENTRY_NOT_FOUND');
    await expectErrorAnswer(await fetchFresh(`${visual.host.url}/visual/cache/not-a-key`), 404, 'CACHE_ENTRY_NOT_FOUND');
  });
});

describe('limits', () => {
  test('width above the maximum is 400 naming options.width', async () => {
    const res = await render({ charts: [barChart('huge', { width: 5000 })] });
    expect(await expectErrorAnswer(res, 400, 'VALIDATION_FAILED')).toMatchObject({ chartId: 'huge', field: 'options.width' });
  });

  test('more charts than allowed is 413', async () => {
    const res = await render({ charts: Array.from({ length: 21 }, (_, i) => barChart(`c${i}`)) });
    expect((await expectErrorAnswer(res, 413, 'LIMIT_EXCEEDED')).message).toContain('limit is 20');
  });

  test('too many datasets or points is 400 naming the field', async () => {
    const datasets = Array.from({ length: 21 }, () => ({ data: [1] }));
    const many = await render({ charts: [{ ...barChart('ds'), data: { datasets } }] });
    expect(await expectErrorAnswer(many, 400, 'VALIDATION_FAILED')).toMatchObject({ chartId: 'ds', field: 'data.datasets' });
    const points = await render({ charts: [{ ...barChart('pts'), data: { datasets: [{ data: Array.from({ length: 5001 }, () => 1) }] } }] });
    expect(await expectErrorAnswer(points, 400, 'VALIDATION_FAILED')).toMatchObject({ chartId: 'pts', field: 'data.datasets.0.data' });
  });

  test('a body above the size limit is 413', async () => {
    const res = await render({ charts: [barChart()], padding: 'x'.repeat(3 * 1024 * 1024) });
    expect(await expectErrorAnswer(res, 413, 'PAYLOAD_TOO_LARGE')).toMatchObject({ error: 'Payload too large' });
  });
});
