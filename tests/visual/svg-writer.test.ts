/**
 * Our SVG context (render/svg-context.ts) against Skia's SVG canvas, the writer before it, over the
 * whole corpus (tests/visual/corpus): the same texts, the same number of shapes, the same colours,
 * and rasterised by resvg with the same fonts, the same picture (text anti-aliasing aside: no
 * pixel differs by more than half its range, and few by more than a sixteenth). Also: the SVG is a
 * standalone document (width, height, viewBox) that an XML parser reads, and every string in it
 * is escaped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Color } from '@kurkle/color';
import { Resvg } from '@resvg/resvg-js';
import { chartJsConfig } from '../../functions/visual/chart-spec';
import { parseChartConfig, quickChartConfig } from '../../functions/visual/quickchart';
import { bundledFontDir, fontFiles, svgTextFonts } from '../../functions/visual/render/fonts';
import { RenderPool } from '../../functions/visual/render/pool';
import type { RenderTask } from '../../functions/visual/render/tasks';
import { themeOf } from '../../functions/visual/themes';

const dir = bundledFontDir();
const LIMITS = { maxItems: 20, maxDimension: 4000, maxDatasets: 20, maxPoints: 5000, maxBodyBytes: 2 * 1024 * 1024 };
let ours: RenderPool;
let skia: RenderPool;
beforeAll(() => {
  ours = new RenderPool(1, 30_000, { dir, extra: [], svgText: svgTextFonts(dir) }, 100);
  skia = new RenderPool(1, 30_000, { dir, extra: [], svgText: svgTextFonts(dir) }, 100, undefined, { skiaSvg: true });
});
afterAll(async () => {
  await ours.close();
  await skia.close();
});

interface Entry {
  name: string;
  version: string;
  chart: string | Record<string, unknown>;
  encoding?: 'base64';
  backgroundColor?: string;
}
const CORPUS = path.join(__dirname, '..', '..', '..', 'tests', 'visual', 'corpus');
const corpus: Entry[] = fs
  .readdirSync(CORPUS)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(fs.readFileSync(path.join(CORPUS, f), 'utf8')));

/** The task /quickchart/chart draws for an entry, at 500x300 (the size the corpus test draws). */
function corpusTask(entry: Entry): Extract<RenderTask, { kind: 'chart' }> {
  const text = typeof entry.chart === 'string' ? entry.chart : JSON.stringify(entry.chart);
  const chart = entry.encoding === 'base64' ? Buffer.from(text).toString('base64') : entry.chart;
  const config = quickChartConfig(parseChartConfig(chart, LIMITS, entry.encoding ?? 'url'), Number(entry.version) as 2 | 3 | 4);
  return { kind: 'chart', config, width: 500, height: 300, pixelRatio: 1, format: 'svg', background: entry.backgroundColor ?? 'white' };
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'", '&#39;': "'" };
const unescape = (text: string) => text.replace(/&(amp|lt|gt|quot|apos|#39);/g, (entity) => ENTITIES[entity]);

/** The texts an SVG draws, in order of their content. */
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => unescape(m[1])).sort();

/** The drawn shapes (paths and rects outside clip definitions), less Skia's invisible first rect. */
function shapes(svg: string): string[] {
  const body = svg.replace(/<clipPath[^>]*>.*?<\/clipPath>/gs, '');
  return [...body.matchAll(/<(path|rect)\b([^>]*)>/g)].map((m) => m[2]).filter((attributes) => !/fill-opacity="0"/.test(attributes));
}

/** Every colour an SVG fills or strokes with, as lower-case #rrggbb (an element without a fill is filled black, SVG's default). */
function colours(svg: string): string[] {
  const found = new Set<string>();
  const body = svg.replace(/<clipPath[^>]*>.*?<\/clipPath>/gs, '');
  for (const [, attributes] of body.matchAll(/<(?:path|rect|text)\b([^>]*)>/g)) {
    if (/fill-opacity="0"/.test(attributes)) continue;
    const values = [...attributes.matchAll(/(?:^| )(?:fill|stroke)="([^"]+)"/g)].map((m) => m[1]);
    if (!/(?:^| )fill="/.test(attributes)) values.push('black');
    for (const value of values) {
      if (value === 'none' || value.startsWith('url(')) continue;
      const { r, g, b } = new Color(value).rgb;
      found.add(`#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`);
    }
  }
  return [...found].sort();
}

const fonts = fontFiles(dir);
function rasterise(svg: string) {
  const image = new Resvg(svg, {
    font: { fontFiles: fonts, loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans', sansSerifFamily: 'DejaVu Sans' },
  }).render();
  return { width: image.width, height: image.height, pixels: image.pixels };
}

/** Pixels whose largest channel difference exceeds `threshold`. */
function differing(a: Buffer, b: Buffer, threshold: number): number {
  let count = 0;
  for (let i = 0; i < a.length; i += 4) {
    let d = 0;
    for (let k = 0; k < 4; k++) d = Math.max(d, Math.abs(a[i + k] - b[i + k]));
    if (d > threshold) count++;
  }
  return count;
}

async function both(task: Extract<RenderTask, { kind: 'chart' }>): Promise<[string, string]> {
  const [a, b] = await Promise.all([ours.run(task), skia.run(task)]);
  return [Buffer.from(a.bytes).toString('utf8'), Buffer.from(b.bytes).toString('utf8')];
}

test('the corpus holds at least 40 configurations', () => expect(corpus.length).toBeGreaterThanOrEqual(40));

describe.each(corpus.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
  test('the same texts, shapes and colours as Skia, and the same picture', async () => {
    const [svg, reference] = await both(corpusTask(entry));
    expect(texts(svg)).toEqual(texts(reference));
    expect(shapes(svg).length).toBe(shapes(reference).length);
    expect(colours(svg)).toEqual(colours(reference));
    const [a, b] = [rasterise(svg), rasterise(reference)];
    expect([a.width, a.height]).toEqual([500, 300]);
    expect(differing(a.pixels, b.pixels, 128)).toBe(0);
    expect(differing(a.pixels, b.pixels, 16)).toBeLessThan(0.015 * 500 * 300);
  });
});

test('a standalone document: XML declaration, namespace, width, height and viewBox', async () => {
  const [svg] = await both(corpusTask(corpus[0]));
  expect(svg).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="500" height="300" viewBox="0 0 500 300"/);
  expect(svg.endsWith('</svg>')).toBe(true);
});

test('every string is escaped and characters XML cannot hold are dropped; the document still parses', async () => {
  const label = `<script>alert("x")</script> & 'q' \u0001\u0008 \uD800 ok`;
  const spec = { type: 'bar' as const, data: { labels: [label], datasets: [{ label: 'a&b<c>', data: [1] }] }, options: { title: 'T "quoted" & <b>' } };
  const task = {
    kind: 'chart' as const,
    config: chartJsConfig(spec, themeOf('professional')),
    width: 400,
    height: 200,
    pixelRatio: 1,
    format: 'svg' as const,
    background: 'white',
  };
  const svg = Buffer.from((await ours.run(task)).bytes).toString('utf8');
  expect(svg).not.toContain('<script');
  expect(svg).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;');
  expect(svg).toContain('>a&amp;b&lt;c&gt;</text>');
  expect(svg).toContain('>T &quot;quoted&quot; &amp; &lt;b&gt;</text>');
  for (const dropped of ['\u0001', '\u0008', '\uD800']) expect(svg).not.toContain(dropped);
  // resvg's XML parser is strict: malformed markup would throw.
  expect(rasterise(svg).width).toBe(400);
});
