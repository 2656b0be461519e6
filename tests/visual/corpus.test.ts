import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import JSON5 from 'json5';
import QuickChart from 'quickchart-js';
import { translateChartJs2 } from '../../functions/visual/chartjs2';
import { countColor, decodePng, fetchFresh, postJson, visualTestHost } from './helpers';

// quickchart-js fetches through Node's global agent; see fetchFresh for why tests avoid keep-alive.
http.globalAgent = new http.Agent({ keepAlive: false });

/**
 * The corpus: data-only configurations written from the public documentation of Chart.js 2 and 4,
 * QuickChart and each plugin (tests/visual/corpus/*.json, each naming its source). Each renders
 * through /quickchart/chart with the real quickchart-js client and through the render API, as PNG
 * (decoded: size and expected colours) and as SVG (expected labels present as text).
 */
interface Entry {
  name: string;
  source: string;
  version: string;
  chart: string | Record<string, unknown>;
  expect: { colors: string[]; texts: string[] };
  /** Colours the render API draws instead (its theme colours a dataset that names none; QuickChart's Chart.js 2 default is tableau.Tableau10). */
  apiColors?: string[];
  encoding?: 'base64';
  backgroundColor?: string;
}

const DIR = path.join(__dirname, '..', '..', '..', 'tests', 'visual', 'corpus');
const corpus: Entry[] = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')));

const WIDTH = 500;
const HEIGHT = 300;
const visual = visualTestHost();

test('the corpus holds at least 40 configurations, each naming its source', () => {
  expect(corpus.length).toBeGreaterThanOrEqual(40);
  for (const entry of corpus) expect(entry.source.length).toBeGreaterThan(10);
});

function client(entry: Entry, format: 'png' | 'svg'): QuickChart {
  const text = typeof entry.chart === 'string' ? entry.chart : JSON.stringify(entry.chart);
  return new QuickChart(visual.token)
    .setHost(`${new URL(visual.host.url).host}/quickchart`)
    .setScheme('http')
    .setConfig(entry.encoding === 'base64' ? Buffer.from(text).toString('base64') : text)
    .setVersion(entry.version)
    .setWidth(WIDTH)
    .setHeight(HEIGHT)
    .setDevicePixelRatio(1)
    .setBackgroundColor(entry.backgroundColor ?? 'white')
    .setFormat(format);
}

/** quickchart-js sends no `encoding`: a base64 chart goes by the URL the client builds, with encoding=base64 added. */
async function quickChartBytes(entry: Entry, format: 'png' | 'svg'): Promise<Buffer> {
  const qc = client(entry, format);
  if (entry.encoding !== 'base64') return qc.toBinary();
  // getUrl() leaves devicePixelRatio=1 out (the server's default is 2, as QuickChart's).
  const res = await fetchFresh(`${qc.getUrl()}&encoding=base64&devicePixelRatio=1`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** The same chart as a render API specification: Chart.js 4 options (Chart.js 2 ones translated first). */
function apiChart(entry: Entry): Record<string, unknown> {
  const parsed = (typeof entry.chart === 'string' ? JSON5.parse(entry.chart) : entry.chart) as Record<string, unknown>;
  const config = entry.version === '2' ? translateChartJs2(parsed) : parsed;
  return { id: entry.name, type: config.type, data: config.data, options: { ...(config.options as object), width: WIDTH, height: HEIGHT } };
}

async function apiBytes(entry: Entry, format: 'png' | 'svg'): Promise<Buffer> {
  const res = await postJson(visual.host, '/visual/api/v1/charts/render', { charts: [apiChart(entry)], format, quality: 'standard' }, visual.token);
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${entry.name}: ${res.status} ${JSON.stringify(body)}`);
  return Buffer.from(await (await fetchFresh(body.charts[0].imageUrl)).arrayBuffer());
}

function checkPng(bytes: Buffer, colors: string[]) {
  const png = decodePng(bytes);
  expect([png.width, png.height]).toEqual([WIDTH, HEIGHT]);
  for (const color of colors) expect(`${color}: ${countColor(png, color) > 30 ? 'drawn' : `only ${countColor(png, color)} pixels`}`).toBe(`${color}: drawn`);
}

function checkSvg(bytes: Buffer, texts: string[]) {
  const svg = bytes.toString('utf8');
  expect(svg.startsWith('<?xml') || svg.startsWith('<svg')).toBe(true);
  for (const text of texts) expect(`${text}: ${svg.includes(`>${text}</text>`) ? 'present' : 'missing'}`).toBe(`${text}: present`);
}

describe.each(corpus.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
  test('through /quickchart/chart with quickchart-js: PNG colours and SVG text', async () => {
    checkPng(await quickChartBytes(entry, 'png'), entry.expect.colors);
    checkSvg(await quickChartBytes(entry, 'svg'), entry.expect.texts);
  });

  test('through the render API: PNG colours and SVG text', async () => {
    checkPng(await apiBytes(entry, 'png'), entry.apiColors ?? entry.expect.colors);
    checkSvg(await apiBytes(entry, 'svg'), entry.expect.texts);
  });
});
