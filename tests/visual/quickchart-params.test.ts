import http from 'node:http';
import QuickChart from 'quickchart-js';
import { countColor, decodePng, fetchFresh, postJson, visualTestHost } from './helpers';
import { expectErrorAnswer } from '../helpers/errors';

// quickchart-js fetches through Node's global agent; see fetchFresh for why tests avoid keep-alive.
http.globalAgent = new http.Agent({ keepAlive: false });

const visual = visualTestHost();
const client = () => new QuickChart(visual.token).setHost(`${new URL(visual.host.url).host}/quickchart`).setScheme('http');
const BAR = { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: 'Units', data: [3, 5], backgroundColor: '#D62728' }] } };
const post = (body: Record<string, unknown>) => postJson(visual.host, '/quickchart/chart', { key: visual.token, chart: BAR, width: 200, height: 100, ...body });

describe('QuickChart parameters', () => {
  test('devicePixelRatio defaults to 2, as QuickChart', async () => {
    const res = await fetchFresh(`${visual.host.url}/quickchart/chart?key=${visual.token}&w=200&h=100&c=${encodeURIComponent(JSON.stringify(BAR))}`);
    expect(res.status).toBe(200);
    const png = decodePng(Buffer.from(await res.arrayBuffer()));
    expect([png.width, png.height]).toEqual([400, 200]);
  });

  test('backgroundColor takes colour names and transparent; anything else is 400', async () => {
    const named = decodePng(Buffer.from(await (await post({ backgroundColor: 'yellow', devicePixelRatio: 1 })).arrayBuffer()));
    expect(countColor(named, '#FFFF00')).toBeGreaterThan(5000);
    const transparent = decodePng(Buffer.from(await (await post({ backgroundColor: 'transparent', devicePixelRatio: 1 })).arrayBuffer()));
    expect(transparent.data[3]).toBe(0); // top-left pixel fully transparent
    const bad = await post({ backgroundColor: 'not-a-colour' });
    expect((await expectErrorAnswer(bad, 400, 'VALIDATION_FAILED')).message).toMatch(/backgroundColor "not-a-colour" is not a colour/);
  });

  test('format webp, jpg and pdf answer those formats; base64 answers a PNG data URI', async () => {
    const webp = await post({ format: 'webp' });
    expect(webp.headers.get('content-type')).toBe('image/webp');
    const webpBytes = Buffer.from(await webp.arrayBuffer());
    expect([webpBytes.subarray(0, 4).toString('latin1'), webpBytes.subarray(8, 12).toString('latin1')]).toEqual(['RIFF', 'WEBP']);
    const jpg = await post({ format: 'jpg' });
    expect(jpg.headers.get('content-type')).toBe('image/jpeg');
    expect([...Buffer.from(await jpg.arrayBuffer()).subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const pdf = await post({ format: 'pdf' });
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const pdfText = Buffer.from(await pdf.arrayBuffer()).toString('latin1');
    expect(pdfText.startsWith('%PDF-')).toBe(true);
    expect(pdfText).toMatch(/\/MediaBox \[0 0 150 75\]/); // 200x100 CSS pixels in points
    const base64 = await post({ format: 'base64', devicePixelRatio: 1 });
    expect(base64.headers.get('content-type')).toMatch(/^text\/plain/);
    const uri = await base64.text();
    expect(uri.startsWith('data:image/png;base64,')).toBe(true);
    const png = decodePng(Buffer.from(uri.split(',')[1], 'base64'));
    expect([png.width, png.height]).toEqual([200, 100]);
    expect(countColor(png, '#D62728')).toBeGreaterThan(100);
  });

  test('a filename gives Content-Disposition with an ASCII fallback and the exact UTF-8 name', async () => {
    const res = await post({ filename: 'Ventes été', format: 'png' });
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="Ventes _t_.png"; filename*=UTF-8''Ventes%20%C3%A9t%C3%A9.png`);
    expect((await post({})).headers.get('content-disposition')).toBeNull();
  });

  test('version selects the syntax: Chart.js 2 is translated (the default), 3 and 4 are read as they are; others are 400', async () => {
    const v2 = {
      type: 'horizontalBar',
      data: { labels: ['a'], datasets: [{ data: [5], backgroundColor: '#2CA02C' }] },
      options: { legend: { display: false } },
    } as any;
    const png = decodePng(await client().setConfig(v2).setWidth(200).setHeight(100).toBinary());
    expect(countColor(png, '#2CA02C')).toBeGreaterThan(1000);
    // The Chart.js 2 legend option means nothing to Chart.js 4: under version 4 the legend stays.
    const legend = { ...BAR, options: { legend: { display: false } } } as any;
    const svgOf = async (version: string) => (await client().setConfig(legend).setVersion(version).setFormat('svg').toBinary()).toString('utf8');
    expect(await svgOf('2.9.4')).not.toContain('>Units</text>');
    expect(await svgOf('4')).toContain('>Units</text>');
    await expect(
      client()
        .setConfig(BAR as any)
        .setVersion('5')
        .toBinary(),
    ).rejects.toThrow(/status code 400\s+version "5" is not supported/);
  });

  test('encoding=base64 decodes the chart; malformed base64 and unknown encodings are 400 naming the cause', async () => {
    const encoded = Buffer.from(JSON.stringify(BAR)).toString('base64');
    expect((await post({ chart: encoded, encoding: 'base64' })).status).toBe(200);
    const bad = await post({ chart: '***', encoding: 'base64' });
    expect(await bad.json()).toMatchObject({ code: 'CHART_BASE64_INVALID' });
    const unknown = await post({ encoding: 'gzip' });
    expect(((await unknown.json()) as any).message).toMatch(/encoding "gzip" is not supported/);
  });
});

describe('every refusal names its real cause, and a configuration Chart.js refuses is a 400, never a 500', () => {
  test('JavaScript is CHART_NOT_DATA; malformed text is INVALID_CHART', async () => {
    const code = await post({ chart: "{ type: 'bar', data: { datasets: [{ data: [1].map(x => x) }] } }" });
    expect(await code.json()).toMatchObject({ code: 'CHART_NOT_DATA' });
    const broken = await post({ chart: "{ type: 'bar', data: { datasets: [{ data: [1, 2 }] } }" });
    const body = (await broken.json()) as any;
    expect(body.code).toBe('INVALID_CHART');
    expect(body.message).not.toMatch(/contains JavaScript/);
  });

  test('an unknown scale type is 400 CHART_NOT_RENDERABLE, through QuickChart and the render API', async () => {
    const bad = { ...BAR, options: { scales: { x: { type: 'nonsense' } } } };
    const quick = await post({ chart: bad, version: '4' });
    expect(quick.status).toBe(400);
    expect(await quick.json()).toMatchObject({ code: 'CHART_NOT_RENDERABLE', details: expect.stringContaining('"nonsense" is not a registered scale') });
    const api = await postJson(
      visual.host,
      '/visual/api/v1/charts/render',
      { charts: [{ id: 'c', type: 'bar', data: BAR.data, options: { scales: { x: { type: 'nonsense' } } } }] },
      visual.token,
    );
    expect(api.status).toBe(400);
    expect(await api.json()).toMatchObject({ error: 'Invalid chart specification', code: 'CHART_NOT_RENDERABLE' });
  });

  test('a Chart.js 2 option without an equivalent is 400 naming it', async () => {
    const res = await post({ chart: { ...BAR, options: { scales: { yAxes: [{ gridLines: { zeroLineBorderDash: [2, 2] } }] } } } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'CHART_OPTION_UNSUPPORTED', field: 'options.scales.yAxes[0].gridLines.zeroLineBorderDash' });
  });

  test('an unknown colour scheme is 400 naming it', async () => {
    const res = await post({ chart: { ...BAR, options: { plugins: { colorschemes: { scheme: 'brewer.Nope' } } } } });
    expect(((await res.json()) as any).message).toMatch(/colorschemes.scheme "brewer.Nope" is not a scheme of chartjs-plugin-colorschemes/);
  });
});

test('time scales render on the render API with ISO strings and epoch milliseconds (no 500)', async () => {
  const chart = {
    id: 'ts',
    type: 'line',
    data: {
      datasets: [
        {
          label: 'Visits',
          data: [
            { x: '2024-01-01', y: 1 },
            { x: 1709251200000, y: 4 },
          ],
          borderColor: '#D62728',
        },
      ],
    },
    options: {
      width: 400,
      height: 200,
      scales: { x: { type: 'time', time: { unit: 'month', displayFormats: { month: 'MMM YYYY' } }, ticks: { source: 'auto' } } },
    },
  };
  const res = await postJson(visual.host, '/visual/api/v1/charts/render', { charts: [chart], format: 'svg' }, visual.token);
  expect(res.status).toBe(200);
  const svg = await (await fetchFresh(((await res.json()) as any).charts[0].imageUrl)).text();
  expect(svg).toContain('>Jan 2024</text>');
  expect(svg).toContain('>Mar 2024</text>');
});
