import { bundledFontDir, svgTextFonts } from '../../functions/visual/render/fonts';
import { RenderPool, RenderSvgTooLargeError, shouldRecycle } from '../../functions/visual/render/pool';
import type { RenderTask } from '../../functions/visual/render/tasks';

const MB = 1024 * 1024;
const dir = bundledFontDir();
let pool: RenderPool;
beforeAll(() => (pool = new RenderPool(1, 30_000, { dir, extra: [], svgText: svgTextFonts(dir) }, 10)));
afterAll(() => pool.close());

/** Issue 33's chart as the bench draws it: an 800x400 bar chart with a title, its first value new each time. */
const plain = (i: number): RenderTask => ({
  kind: 'chart',
  config: {
    type: 'bar',
    data: { labels: ['North', 'South', 'East', 'West', 'Central'], datasets: [{ label: 'Revenue', data: [12 + i / 1000, 19, 7, 15, 11] }] },
    options: { plugins: { title: { display: true, text: 'Revenue by region' } } },
  },
  width: 800,
  height: 400,
  pixelRatio: 1,
  format: 'svg',
  background: 'white',
});

/** 20 datasets x 5,000 points with markers: refused past 4 MiB of SVG, after growing a new thread's heap by about 55 MB. */
const markers: RenderTask = {
  kind: 'chart',
  config: {
    type: 'line',
    data: {
      labels: Array.from({ length: 5000 }, (_, i) => i),
      datasets: Array.from({ length: 20 }, (_, d) => ({ data: Array.from({ length: 5000 }, (_, i) => (i * (d + 1)) % 97), pointRadius: 3 })),
    },
  },
  width: 800,
  height: 400,
  pixelRatio: 1,
  format: 'svg',
  background: 'white',
};

test('the rule: a task that grew the heap by more than 32 MB to past 64 MB, or a heap past 192 MB', () => {
  expect(shouldRecycle(33 * MB, 89 * MB)).toBe(true);
  expect(shouldRecycle(90 * MB, 106 * MB)).toBe(false);
  expect(shouldRecycle(10 * MB, 60 * MB)).toBe(false);
  expect(shouldRecycle(190 * MB, 193 * MB)).toBe(true);
  expect(shouldRecycle(undefined, 100 * MB)).toBe(false);
  expect(shouldRecycle(undefined, undefined)).toBe(false);
});

test("a chart that grew a thread's heap is answered, then its thread replaced", async () => {
  const first = await pool.run(plain(0));
  await expect(pool.run(markers)).rejects.toBeInstanceOf(RenderSvgTooLargeError);
  expect(pool.recycled).toBe(1);
  const next = await pool.run(plain(1));
  expect(next.threadId).not.toBe(first.threadId);
});

test('a thread drawing plain SVG charts is kept: its heap moves past 64 MB with garbage V8 collects itself', async () => {
  const recycled = pool.recycled;
  const threads = new Set<number>();
  // Replaced past 64 MB (the rule before), a thread drawing these was replaced every 300 charts or so.
  for (let i = 0; i < 900; i++) threads.add((await pool.run(plain(i))).threadId);
  expect(pool.recycled).toBe(recycled);
  expect(threads.size).toBe(1);
}, 60_000);
