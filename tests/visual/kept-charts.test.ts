import { chartJsConfig, type ChartSpec } from '../../functions/visual/chart-spec';
import { bundledFontDir } from '../../functions/visual/render/fonts';
import { RenderInputError, RenderPool } from '../../functions/visual/render/pool';
import type { ChartFormat } from '../../functions/visual/render/tasks';
import { themeOf } from '../../functions/visual/themes';

// One thread each, so every chart of the sequence lands on the same thread and its kept charts.
const fonts = { dir: bundledFontDir(), extra: [] };
let kept: RenderPool;
let fresh: RenderPool;
beforeAll(() => {
  kept = new RenderPool(1, 30_000, fonts, 100);
  fresh = new RenderPool(1, 30_000, fonts, 100, undefined, { keepCharts: false });
});
afterAll(async () => {
  await kept.close();
  await fresh.close();
});

const bar = (label: string, data: number[], options: ChartSpec['options'] = {}): ChartSpec => ({
  type: 'bar',
  data: { labels: ['North', 'South', 'East', 'West', 'Central'].slice(0, data.length), datasets: [{ label, data }] },
  options: { title: `Revenue ${label}`, ...options },
});

/**
 * A sequence meant to leave state behind on a kept chart: new data, more and fewer points and
 * datasets, other scales, stacking, axis direction, legend and title on and off, other themes and
 * backgrounds, a type change and back, charts that cannot be kept (plugins, mixed types) in between.
 */
const SEQUENCE: { spec: ChartSpec; theme?: string; background?: string; format?: ChartFormat; size?: [number, number]; pixelRatio?: number }[] = [
  { spec: bar('A', [12, 19, 7, 15, 11]) },
  { spec: bar('B', [1200, -40, 7, 15000, 3]) },
  { spec: bar('C', [3, 2]), theme: 'dark' },
  {
    spec: {
      type: 'bar',
      data: {
        labels: ['Q1', 'Q2', 'Q3'],
        datasets: [
          { label: 'x', data: [1, 2, 3], stack: 's' },
          { label: 'y', data: [3, 2, 1], stack: 's' },
        ],
      },
      options: { title: 'Stacked', scales: { x: { stacked: true }, y: { stacked: true, max: 10 } } },
    },
  },
  { spec: bar('D', [5, 4, 3, 2, 1], { indexAxis: 'y', plugins: { legend: { display: false } } }) },
  { spec: bar('E', [5, 4, 3, 2, 1], { scales: { y: { type: 'logarithmic' } } }), background: 'transparent' },
  { spec: { type: 'line', data: { labels: ['a', 'b', 'c', 'd'], datasets: [{ label: 'line', data: [1, 3, 2, 4], fill: true, tension: 0.3 }] } } },
  { spec: bar('F', [9, 8, 7, 6, 5]) },
  { spec: { type: 'pie', data: { labels: ['a', 'b', 'c'], datasets: [{ data: [1, 2, 3] }] }, options: { title: 'Pie' } } },
  { spec: { type: 'pie', data: { labels: ['a', 'b', 'c', 'd'], datasets: [{ data: [4, 3, 2, 1] }] }, options: { plugins: { legend: { position: 'left' } } } } },
  { spec: bar('G', [1, 2, 3, 4, 5], { plugins: { datalabels: { display: true, formatter: '{value} units' } } }) },
  { spec: bar('H', [2, 4, 6, 8, 10]), theme: 'minimal' },
  {
    spec: {
      type: 'bar',
      data: {
        labels: ['a', 'b'],
        datasets: [
          { label: 'bars', data: [1, 2] },
          { label: 'line', type: 'line', data: [2, 1] },
        ],
      },
    },
  },
  { spec: bar('I', [7, 7, 7, 7, 7]), format: 'jpeg', background: 'transparent' },
  { spec: bar('J', [10, 20, 30, 40, 50]), format: 'webp' },
  { spec: bar('K', [1, 1, 2, 3, 5]), size: [500, 300] },
  { spec: { type: 'radar', data: { labels: ['a', 'b', 'c', 'd', 'e'], datasets: [{ label: 'r', data: [1, 2, 3, 2, 1] }] } } },
  { spec: bar('L', [12, 19, 7, 15, 11]) },
  { spec: bar('M', [12, 19, 7, 15, 11]), pixelRatio: 2 },
  { spec: bar('N', [3, 1, 4, 1, 5]), pixelRatio: 2, background: 'transparent' },
  { spec: { type: 'pie', data: { labels: ['a', 'b', 'c'], datasets: [{ data: [5, 2, 3] }] } }, pixelRatio: 2 },
  { spec: bar('O', [2, 7, 1, 8, 2]), pixelRatio: 1.5, size: [500, 300] },
  { spec: bar('P', [12, 19, 7, 15, 11]), size: [2000, 1000], pixelRatio: 2 },
  { spec: bar('Q', [12, 19, 7, 15, 11]), format: 'svg' },
  { spec: bar('R', [1200, -40, 7, 15000, 3], { indexAxis: 'y' }), format: 'svg', background: 'transparent' },
  { spec: { type: 'line', data: { labels: ['a', 'b', 'c'], datasets: [{ label: 'l', data: [3, 1, 2], fill: true }] } }, format: 'svg' },
  { spec: bar('S', [1, 2, 3, 4, 5], { plugins: { datalabels: { display: true } } }), format: 'svg' },
  { spec: { type: 'pie', data: { labels: ['a', 'b'], datasets: [{ data: [1, 3] }] } }, format: 'svg', theme: 'executive' },
  { spec: bar('T', [5, 5, 5, 5, 5]), format: 'svg' },
];

const task = (item: (typeof SEQUENCE)[number]) => {
  const theme = themeOf(item.theme ?? 'professional');
  const [width, height] = item.size ?? [800, 400];
  return {
    kind: 'chart' as const,
    config: chartJsConfig(item.spec, theme),
    width,
    height,
    pixelRatio: item.pixelRatio ?? 1,
    format: item.format ?? ('png' as ChartFormat),
    background: item.background ?? theme.backgroundColor,
  };
};

test("a kept chart's output equals a new chart's, byte for byte, whatever was drawn on it before", async () => {
  // Twice through, so the second pass draws every chart on a kept chart that drew the whole sequence.
  for (const item of [...SEQUENCE, ...SEQUENCE]) {
    const [a, b] = await Promise.all([kept.run(task(item)), fresh.run(task(item))]);
    expect({ chart: item.spec.options?.title ?? item.spec.type, equal: Buffer.from(a.bytes).equals(Buffer.from(b.bytes)) }).toEqual({
      chart: item.spec.options?.title ?? item.spec.type,
      equal: true,
    });
  }
});

test('a configuration Chart.js refuses on a kept chart is the same input error as on a new chart, and the next chart is unharmed', async () => {
  await kept.run(task(SEQUENCE[0]));
  const refused = { ...task(SEQUENCE[0]), config: { ...task(SEQUENCE[0]).config, options: { scales: { y: { type: 'no-such-scale' } } } } };
  const errors = await Promise.all(
    [kept.run(refused), fresh.run(refused)].map((p) =>
      p.then(
        () => undefined,
        (error: Error) => error,
      ),
    ),
  );
  expect(errors[0]).toBeInstanceOf(RenderInputError);
  expect(errors[0]?.message).toBe(errors[1]?.message);
  const [a, b] = await Promise.all([kept.run(task(SEQUENCE[1])), fresh.run(task(SEQUENCE[1]))]);
  expect(Buffer.from(a.bytes).equals(Buffer.from(b.bytes))).toBe(true);
});
