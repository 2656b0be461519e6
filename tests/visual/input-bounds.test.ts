import { fetchFresh, postJson, visualTestHost } from './helpers';
import { expectErrorAnswer } from '../helpers/errors';
import { malformedParts, officeXmlParts } from '../helpers/office-xml';

/**
 * Input the visual service could not draw or hold cheaply (issue 48): control characters in texts
 * (decks, chart labels), numbers too large to draw, option objects of 150,000 keys and JSON5
 * charts of megabytes. Each is stripped or refused before any work on it.
 */
const visual = visualTestHost();
const api = (route: string, body: unknown) => postJson(visual.host, `/visual/api/v1/${route}`, body, visual.token);
const quickChart = (body: Record<string, unknown>) => postJson(visual.host, '/quickchart/chart', { key: visual.token, width: 200, height: 100, ...body });
const bytesOf = async (url: string) => Buffer.from(await (await fetchFresh(url)).arrayBuffer());
/** The SVG of the first chart of a charts/render answer. */
const firstSvg = async (res: Response) => (await fetchFresh(((await res.json()) as any).charts[0].imageUrl)).text();
const CONTROLS = ['\u0000', '\u0001', '\u0008', '\u001f'];

describe('control characters', () => {
  test('in a deck: dropped from the title, subtitle, slide titles, bullets and notes; every XML part is well-formed and holds the text', async () => {
    const res = await api('presentations/generate', {
      title: 'Deck\u0001',
      subtitle: 'Sub\u0008title',
      slides: [{ title: 'Slide\u0000One', bullets: ['Bul\u001flet'], notes: 'Notes\u0000here' }],
    });
    expect(res.status).toBe(200);
    const parts = await officeXmlParts(await bytesOf(((await res.json()) as any).presentation.url));
    expect(parts.size).toBeGreaterThan(10);
    expect(malformedParts(parts)).toEqual({});
    for (const [name, xml] of parts) for (const control of CONTROLS) expect({ name, has: xml.includes(control) }).toEqual({ name, has: false });
    expect(parts.get('ppt/slides/slide1.xml')).toContain('>Deck</a:t>');
    expect(parts.get('ppt/slides/slide1.xml')).toContain('>Subtitle</a:t>');
    expect(parts.get('docProps/core.xml')).toContain('>Deck</dc:title>');
    expect(parts.get('ppt/slides/slide2.xml')).toContain('>SlideOne</a:t>');
    expect(parts.get('ppt/slides/slide2.xml')).toContain('>Bullet</a:t>');
    expect([...parts.values()].some((xml) => xml.includes('>Noteshere</a:t>'))).toBe(true);
  });

  const labelled = {
    id: 'nul',
    type: 'bar',
    data: { labels: ['Ja\u0000n', 'Feb'], datasets: [{ label: 'Uni\u0000ts\u0001', data: [3, 5] }] },
    options: { title: 'Sa\u0000les', width: 300, height: 200 },
  };

  test('in chart labels, dataset labels and titles: dropped, and the chart is drawn (PNG and SVG), never the canvas library message', async () => {
    const png = await api('charts/render', { charts: [labelled], format: 'png' });
    expect(png.status).toBe(200);
    const svgAnswer = await api('charts/render', { charts: [labelled], format: 'svg' });
    expect(svgAnswer.status).toBe(200);
    const svg = await firstSvg(svgAnswer);
    for (const text of ['>Jan</text>', '>Units</text>', '>Sales</text>']) expect(svg).toContain(text);
    for (const control of CONTROLS) expect(svg).not.toContain(control);
  });

  test('in a QuickChart chart: dropped, and the chart is drawn', async () => {
    const res = await quickChart({
      chart: { type: 'bar', data: { labels: ['a\u0000b'], datasets: [{ label: 'x\u0000', data: [1] }] } },
      version: '4',
      format: 'svg',
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('>ab</text>');
  });
});

describe('numbers a chart cannot draw', () => {
  const chart = (data: unknown[], extra: Record<string, unknown> = {}, options: Record<string, unknown> = {}) => ({
    id: 'big',
    type: 'line',
    data: { labels: data.map((_, i) => `p${i}`), datasets: [{ label: 'd', data, ...extra }] },
    options: { width: 300, height: 200, ...options },
  });

  test('data whose range overflows ([1e308, -1e308]) is 400 naming the point and the bound', async () => {
    const body = await expectErrorAnswer(await api('charts/render', { charts: [chart([1e308, -1e308])], format: 'svg' }), 400, 'VALIDATION_FAILED');
    expect(body).toMatchObject({ chartId: 'big', field: 'data.datasets.0.data.0' });
    expect(body.message).toBe('Chart "big": data.datasets.0.data.0 is 1e+308; numbers in a chart must lie within ±1e300');
  });

  test('the largest numbers allowed ([1e300, -1e300]) are drawn, and the SVG holds no NaN or Infinity', async () => {
    const res = await api('charts/render', { charts: [chart([1e300, -1e300])], format: 'svg' });
    expect(res.status).toBe(200);
    expect(await firstSvg(res)).not.toMatch(/NaN|Infinity/);
  });

  test('a radius beyond the largest chart side (pointRadius 1e308, or 4,001 as an option) is 400 naming the option', async () => {
    const huge = await expectErrorAnswer(await api('charts/render', { charts: [chart([1, 2], { pointRadius: 1e308 })] }), 400, 'VALIDATION_FAILED');
    expect(huge).toMatchObject({ field: 'data.datasets.0.pointRadius' });
    expect(huge.message).toBe(
      'Chart "big": data.datasets.0.pointRadius is 1e+308; a radius, width, size, thickness, length, padding, offset or spacing must lie within ±4000 px (the largest chart side)',
    );
    const option = await expectErrorAnswer(
      await api('charts/render', { charts: [chart([1, 2], {}, { elements: { point: { radius: 4001 } } })] }),
      400,
      'VALIDATION_FAILED',
    );
    expect(option).toMatchObject({ field: 'options.elements.point.radius' });
    const inside = await api('charts/render', { charts: [chart([1, 2], {}, { elements: { point: { radius: 4000 } } })] });
    expect(inside.status).toBe(200);
  });

  test('QuickChart: the same bounds, naming the field of the chart', async () => {
    const body = await expectErrorAnswer(
      await quickChart({ chart: { type: 'line', data: { labels: ['a', 'b'], datasets: [{ data: [1e308, -1e308] }] } }, version: '4', format: 'svg' }),
      400,
      'VALIDATION_FAILED',
    );
    expect(body).toMatchObject({ field: 'data.datasets.0.data.0' });
    expect(body.message).toBe('Invalid chart: data.datasets.0.data.0 is 1e+308; numbers in a chart must lie within ±1e300');
  });

  test('the SVG writer never writes a non-finite number: a scale whose grace overflows its range is 400 CHART_NOT_RENDERABLE, not x="NaN"', async () => {
    // Numbers within the bound, and a grace given as text ("1e10%"), which no number check reads.
    const stretched = chart([1e300, -1e300], {}, { scales: { y: { grace: '1e10%' } } });
    const body = await expectErrorAnswer(await api('charts/render', { charts: [stretched], format: 'svg' }), 400, 'CHART_NOT_RENDERABLE');
    expect(body.message).toBe(
      'The chart cannot be drawn: Chart "big": a position or size would not be a finite number (a value or an option too large to draw)',
    );
  });

  test('an infographic sparkline whose range overflows is 400 naming the point', async () => {
    const infographic = { type: 'dashboard', data: { metrics: [{ label: 'Revenue', value: 1, sparkline: [1e308, -1e308] }] } };
    const body = await expectErrorAnswer(await api('infographics/generate', { infographics: [infographic], format: 'svg' }), 400, 'VALIDATION_FAILED');
    expect(body.message).toBe('Invalid infographics[0]: data.metrics.0.sparkline.0 must be <= 1e+300');
  });
});

describe('size bounds checked before any work', () => {
  const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 1]));
  /** options.plugins.extra with n keys: n + 4 option keys in all (width, height, plugins, extra). */
  const withKeys = (n: number) => ({
    id: 'keys',
    type: 'bar',
    data: { labels: ['a'], datasets: [{ data: [1] }] },
    options: { width: 200, height: 100, plugins: { extra: keys(n) } },
  });

  test('a chart whose options hold more than 10,000 keys is 400 naming the limit (150,000 keys: refused); 10,000 are drawn', async () => {
    const body = await expectErrorAnswer(await api('charts/render', { charts: [withKeys(150_000)] }), 400, 'VALIDATION_FAILED');
    expect(body).toMatchObject({ chartId: 'keys', field: 'options' });
    expect(body.message).toBe('Chart "keys": options holds more than 10000 keys (options and dataset options, at every depth); the limit is 10000');
    await expectErrorAnswer(await api('charts/render', { charts: [withKeys(9_997)] }), 400, 'VALIDATION_FAILED');
    expect((await api('charts/render', { charts: [withKeys(9_996)] })).status).toBe(200);
  });

  test('QuickChart: the same limit on the options of `chart`', async () => {
    const { id: _id, ...config } = withKeys(150_000);
    const body = await expectErrorAnswer(await quickChart({ chart: config, version: '4' }), 400, 'VALIDATION_FAILED');
    expect(body.message).toBe('Invalid chart: options holds more than 10000 keys (options and dataset options, at every depth); the limit is 10000');
  });

  const BAR = `{type:'bar',data:{labels:['a'],datasets:[{data:[1]}]}}`;
  /** The chart as JSON5 text of exactly `length` characters (spaces before its last brace). */
  const json5Of = (length: number) => `${BAR.slice(0, -1)}${' '.repeat(length - BAR.length)}}`;

  test('a JSON5 `chart` of up to 262,144 characters is read; a longer one is 413 CHART_TEXT_TOO_LARGE; JSON is read up to the body limit', async () => {
    expect((await quickChart({ chart: json5Of(262_144), version: '4' })).status).toBe(200);
    const over = await expectErrorAnswer(await quickChart({ chart: json5Of(2_000_000), version: '4' }), 413, 'CHART_TEXT_TOO_LARGE');
    expect(over.message).toBe(
      'chart is 2000000 characters of JavaScript object-literal (JSON5) text; the limit for such text is 262144 characters. Send a larger chart as JSON, which is read up to the body limit',
    );
    await expectErrorAnswer(await quickChart({ chart: json5Of(262_145), version: '4' }), 413, 'CHART_TEXT_TOO_LARGE');
    const json = JSON.stringify({ type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] } });
    expect((await quickChart({ chart: `${json.slice(0, -1)}${' '.repeat(1_500_000)}}`, version: '4' })).status).toBe(200);
  });
});
