import { dashboardSvg, type InfographicSpec } from '../../functions/visual/infographics';
import { MAX_SVG_BYTES } from '../../functions/visual/render/tasks';
import { THEMES } from '../../functions/visual/themes';
import { expectErrorAnswer } from '../helpers/errors';
import { fetchFresh, postJson, visualTestHost } from './helpers';

/**
 * What a chart may ask the renderer for, bounded before it is drawn: ticks per axis (a 165-byte
 * chart asked for 100,000 and held a render thread), and the bytes of every SVG (a 430 KB chart
 * wrote a 47 MB SVG and the host kept the memory). docs/limits.md names these tests.
 */
const visual = visualTestHost();

const quickChart = (chart: unknown, extra: Record<string, unknown> = {}) =>
  postJson(visual.host, '/quickchart/chart', { key: visual.token, version: '4', format: 'png', chart, ...extra });
const renderCharts = (charts: unknown[], format = 'png') =>
  postJson(visual.host, '/visual/api/v1/charts/render', { charts, format, quality: 'standard' }, visual.token);

/** The chart of issue 48: two points 99,999 ms apart on a time axis with a tick every millisecond. */
const TICK_BOMB = {
  type: 'line',
  data: {
    datasets: [
      {
        data: [
          { x: 0, y: 1 },
          { x: 99999, y: 2 },
        ],
      },
    ],
  },
  options: { scales: { x: { type: 'time', time: { unit: 'millisecond' } } } },
};

describe('ticks per axis', () => {
  test("issue 48's chart is 400 TOO_MANY_TICKS naming the axis, through /quickchart (png and svg) and the render API", async () => {
    for (const format of ['png', 'svg']) {
      const res = await quickChart(TICK_BOMB, { format });
      const body = await expectErrorAnswer(res, 400, 'TOO_MANY_TICKS');
      expect(body).toMatchObject({
        field: 'options.scales.x',
        message:
          'scales.x would have 99,999 ticks (a tick every 1 millisecond over 99,999 ms); an axis may have at most 5,000: use a larger time.unit or ticks.stepSize',
      });
      expect(decodeURIComponent(res.headers.get('x-quickchart-error')!)).toBe(body.message);
    }
    const api = await renderCharts([{ id: 'bomb', type: 'line', data: TICK_BOMB.data, options: TICK_BOMB.options }]);
    const body = await expectErrorAnswer(api, 400, 'TOO_MANY_TICKS');
    expect(body.message).toMatch(/^Chart "bomb": scales\.x would have 99,999 ticks/);
  });

  test('a Chart.js 2 configuration (xAxes) is refused the same way, and a chart cannot switch the limit off', async () => {
    const v2 = {
      type: 'line',
      data: {
        datasets: [
          {
            data: [
              { x: 0, y: 1 },
              { x: 99999, y: 2 },
            ],
          },
        ],
      },
      options: { scales: { xAxes: [{ type: 'time', time: { unit: 'millisecond' } }] } },
    };
    const body = await expectErrorAnswer(await quickChart(v2, { version: '2' }), 400, 'TOO_MANY_TICKS');
    expect(body.message).toMatch(/^scales\.x would have 99,999 ticks/);
    for (const plugins of [{ tickLimit: false }, false]) {
      const off = { ...TICK_BOMB, options: { ...TICK_BOMB.options, plugins } };
      await expectErrorAnswer(await quickChart(off), 400, 'TOO_MANY_TICKS');
    }
  });

  test('a time step that never moves the axis on (half a millisecond, 0.3 of a day: the date is truncated) is refused instead of stepping forever', async () => {
    for (const [unit, step, max] of [
      ['millisecond', 0.5, 10],
      ['day', 0.3, 10 * 86_400_000],
    ] as const) {
      const chart = {
        type: 'line',
        data: {
          datasets: [
            {
              data: [
                { x: 0, y: 1 },
                { x: max, y: 2 },
              ],
            },
          ],
        },
        options: { scales: { x: { type: 'time', time: { unit }, ticks: { stepSize: step } } } },
      };
      const body = await expectErrorAnswer(await quickChart(chart), 400, 'TOO_MANY_TICKS');
      expect(body.message).toBe(`scales.x: ticks.stepSize ${step} of ${unit}s never moves the time axis on; use a whole number of units`);
    }
  });

  test('ticks.count of a linear axis, and labels beyond the data limit on a category axis, are refused naming the axis', async () => {
    const counted = { type: 'line', data: { labels: ['a', 'b'], datasets: [{ data: [0, 1] }] }, options: { scales: { y: { ticks: { count: 100_000 } } } } };
    const byCount = await expectErrorAnswer(await quickChart(counted), 400, 'TOO_MANY_TICKS');
    expect(byCount).toMatchObject({ field: 'options.scales.y', message: 'scales.y would have 100,000 ticks (ticks.count); an axis may have at most 5,000' });
    const labels = Array.from({ length: 6000 }, (_, i) => `L${i}`);
    const category = { type: 'bar', data: { datasets: [{ data: [1, 2] }] }, options: { scales: { x: { labels } } } };
    const byLabels = await expectErrorAnswer(await quickChart(category), 400, 'TOO_MANY_TICKS');
    expect(byLabels.message).toBe('scales.x would have 6,000 ticks; an axis may have at most 5,000');
  });

  test('what a legitimate chart needs still draws: a category axis of VISUAL_MAX_POINTS labels, a year of days, an automatic time unit', async () => {
    const n = 5000; // VISUAL_MAX_POINTS
    const full = {
      id: 'full',
      type: 'bar',
      data: { labels: Array.from({ length: n }, (_, i) => `L${i}`), datasets: [{ label: 'all', data: Array.from({ length: n }, (_, i) => i % 17) }] },
    };
    expect((await renderCharts([full])).status).toBe(200);
    const day = 86_400_000;
    const year = {
      type: 'line',
      data: {
        datasets: [
          {
            data: [
              { x: 0, y: 1 },
              { x: 365 * day, y: 2 },
            ],
          },
        ],
      },
      options: { scales: { x: { type: 'time', time: { unit: 'day' } } } },
    };
    expect((await quickChart(year)).status).toBe(200);
    const auto = { ...TICK_BOMB, options: { scales: { x: { type: 'time' } } } };
    expect((await quickChart(auto)).status).toBe(200);
  });
});

describe('SVG output size', () => {
  /** 20 datasets x 5,000 points with point markers: 47 MB of SVG before the cap, within every input limit. */
  const markers = (id: string) => ({
    id,
    type: 'line',
    data: {
      labels: Array.from({ length: 5000 }, (_, i) => i),
      datasets: Array.from({ length: 20 }, (_, d) => ({
        label: `s${d}`,
        data: Array.from({ length: 5000 }, (_, i) => Math.round(Math.sin(i / 50 + d) * 100)),
        pointRadius: 3,
      })),
    },
  });

  test('a chart whose SVG would pass 4 MiB is 400 SVG_TOO_LARGE naming it, on both routes; as PNG it draws', async () => {
    const chart = markers('dots');
    const api = await expectErrorAnswer(await renderCharts([chart], 'svg'), 400, 'SVG_TOO_LARGE');
    expect(api).toMatchObject({
      message:
        'Chart "dots": The chart\'s SVG is larger than 4 MiB, the limit for SVG output: draw fewer elements (pointRadius: 0 on a line of many points) or ask for PNG',
      details: { maxBytes: MAX_SVG_BYTES },
    });
    const { id: _id, ...config } = chart;
    await expectErrorAnswer(await quickChart(config, { format: 'svg' }), 400, 'SVG_TOO_LARGE');
    expect((await renderCharts([chart], 'png')).status).toBe(200);
  });

  test('a diagram whose Graphviz SVG would pass 4 MiB is 400 SVG_TOO_LARGE, as SVG and as PNG', async () => {
    // Each periphery is one ellipse element: 60,000 of them are about 5 MB of SVG from 30 bytes of DOT.
    for (const format of ['svg', 'png']) {
      const res = await postJson(
        visual.host,
        '/visual/api/v1/diagrams/render',
        { format, diagrams: [{ id: 'rings', type: 'dot', source: 'digraph { a [peripheries=60000] }' }] },
        visual.token,
      );
      const body = await expectErrorAnswer(res, 400, 'SVG_TOO_LARGE');
      expect(body.message).toMatch(/^Diagram "rings": The diagram's SVG is larger than 4 MiB/);
    }
  });

  test('the largest infographic the schema allows is far below the cap', () => {
    const metrics = Array.from({ length: 24 }, (_, i) => ({
      label: '&'.repeat(100),
      value: '&'.repeat(40),
      unit: '&'.repeat(20),
      change: -123456789.123,
      sparkline: Array.from({ length: 500 }, (_, k) => (k % 2 ? -1e15 : 1e15) + i),
    }));
    const spec: InfographicSpec = { type: 'dashboard', title: '&'.repeat(200), description: '&'.repeat(5000), width: 4000, data: { metrics } };
    const { svg } = dashboardSvg(spec, THEMES.professional);
    expect(Buffer.byteLength(svg)).toBeLessThan(MAX_SVG_BYTES / 4);
  });
});

describe('a point Chart.js cannot place', () => {
  // Skia's binding aborted the whole process (a Rust panic in @napi-rs/canvas) on an arc at x NaN,
  // where a box plot or violin without labels draws its points: the host died with every request
  // in it. The corpus generated from the API document found it (tests/platform/openapi-validator.test.ts).
  test.each(['boxplot', 'violin', 'horizontalBoxplot'])('a %s without labels draws, as PNG, through both endpoints, and the host lives on', async (type) => {
    const chart = { type, data: { datasets: [{ data: [[1, 2], [3]] }] } };
    expect((await renderCharts([chart], 'png')).status).toBe(200);
    expect((await quickChart(chart, { format: 'png' })).status).toBe(200);
    expect((await fetchFresh(`${visual.host.url}/visual/health`)).status).toBe(200);
  });
});
