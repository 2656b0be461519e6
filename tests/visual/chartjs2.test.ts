import { createCanvas } from '@napi-rs/canvas';
import { Chart, type ChartConfiguration } from 'chart.js/auto';
import 'chartjs-adapter-moment';
import { translateChartJs2, UntranslatableOption } from '../../functions/visual/chartjs2';

/**
 * The Chart.js 2 -> 4 translation is pure data; these tests draw the translated configuration with
 * Chart.js 4 and compare what the original meant (axis types, stacking, titles, legend position...).
 */
type Json = Record<string, any>;
/** Chart.js's types do not follow options per chart type and scale type; the assertions read them as data. */
type AnyChart = any;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/** Translates (the input frozen: the function must not change it) and draws with Chart.js 4. */
function draw(v2: Json): AnyChart {
  const config = translateChartJs2(deepFreeze(structuredClone(v2)));
  const canvas = createCanvas(600, 400);
  const options = { ...(config.options as Json), animation: false, responsive: false };
  return new Chart(canvas.getContext('2d') as any, { ...config, options } as unknown as ChartConfiguration);
}

const charts: AnyChart[] = [];
const drawn = (v2: Json) => {
  const chart = draw(v2);
  charts.push(chart);
  return chart;
};
afterAll(() => charts.forEach((c: AnyChart) => c.destroy()));

const LABELS = ['a', 'b', 'c'];

test('horizontalBar is a bar chart on the y index axis: category axis vertical, values horizontal', () => {
  const chart = drawn({
    type: 'horizontalBar',
    data: { labels: LABELS, datasets: [{ data: [1, 2, 3] }] },
    options: { scales: { xAxes: [{ ticks: { beginAtZero: true } }] } },
  });
  expect(chart.config.type).toBe('bar');
  expect(chart.options.indexAxis).toBe('y');
  expect(chart.scales.y.type).toBe('category');
  expect(chart.scales.x.type).toBe('linear');
  expect(chart.scales.x.min).toBe(0);
});

test('xAxes/yAxes stacked become stacked scales, and stacked bars sum', () => {
  const chart = drawn({
    type: 'bar',
    data: { labels: LABELS, datasets: [{ data: [1, 2, 3] }, { data: [3, 2, 1] }] },
    options: { scales: { xAxes: [{ stacked: true }], yAxes: [{ stacked: true, ticks: { beginAtZero: true } }] } },
  });
  expect(chart.scales.x.options.stacked).toBe(true);
  expect(chart.scales.y.options.stacked).toBe(true);
  expect(chart.scales.y.max).toBeGreaterThanOrEqual(4);
});

test('top-level title and legend move under plugins with their fonts and colours', () => {
  const chart = drawn({
    type: 'line',
    data: { labels: LABELS, datasets: [{ label: 'x', data: [1, 2, 3] }] },
    options: {
      title: { display: true, text: 'Revenue', fontSize: 20, fontColor: '#ff0000', fontStyle: 'bold' },
      legend: { position: 'bottom', labels: { fontColor: '#00ff00', boxWidth: 10 } },
    },
  });
  expect(chart.options.plugins.title).toMatchObject({ display: true, text: 'Revenue', color: '#ff0000', font: { size: 20, weight: 'bold' } });
  expect((chart as any).titleBlock.options.text).toBe('Revenue');
  expect((chart as any).legend.position).toBe('bottom');
  expect(chart.options.plugins.legend.labels).toMatchObject({ color: '#00ff00', boxWidth: 10 });
});

test('scaleLabel, gridLines and ticks (min, max, stepSize, fontColor) become title, grid, border and scale options', () => {
  const chart = drawn({
    type: 'bar',
    data: { labels: LABELS, datasets: [{ data: [10, 50, 70] }] },
    options: {
      scales: {
        yAxes: [
          {
            scaleLabel: { display: true, labelString: 'Units', fontColor: '#123456' },
            gridLines: { display: false, drawBorder: false },
            ticks: { min: 0, max: 100, stepSize: 25, fontColor: '#654321' },
          },
        ],
      },
    },
  });
  const y = chart.scales.y;
  expect(y.options.title).toMatchObject({ display: true, text: 'Units', color: '#123456' });
  expect(y.options.grid.display).toBe(false);
  expect((y.options as any).border.display).toBe(false);
  expect([y.min, y.max]).toEqual([0, 100]);
  expect(y.ticks.map((t: { value: number }) => t.value)).toEqual([0, 25, 50, 75, 100]);
  expect(y.options.ticks.color).toBe('#654321');
});

test('a time axis keeps its type, unit and display formats (moment tokens), and the ticks read them', () => {
  const chart = drawn({
    type: 'line',
    data: {
      datasets: [
        {
          data: [
            { x: '2024-01-01', y: 1 },
            { x: '2024-03-01', y: 3 },
          ],
        },
      ],
    },
    options: { scales: { xAxes: [{ type: 'time', distribution: 'linear', time: { unit: 'month', displayFormats: { month: 'MMM YYYY' } } }] } },
  });
  expect(chart.scales.x.type).toBe('time');
  expect(chart.scales.x.ticks.map((t: { label: string }) => t.label)).toEqual(['Jan 2024', 'Feb 2024', 'Mar 2024']);
  const series = draw({
    type: 'line',
    data: { labels: ['2024-01-01', '2024-01-09'], datasets: [{ data: [1, 2] }] },
    options: { scales: { xAxes: [{ type: 'time', distribution: 'series' }] } },
  });
  expect(series.scales.x.type).toBe('timeseries');
  series.destroy();
});

test('several y axes keep their ids; datasets refer to them; default axis ids x-axis-0/y-axis-0 become x/y', () => {
  const chart = drawn({
    type: 'bar',
    data: {
      labels: LABELS,
      datasets: [
        { data: [1, 2, 3], yAxisID: 'left' },
        { type: 'line', data: [0.1, 0.2, 0.3], yAxisID: 'right', xAxisID: 'x-axis-0' },
      ],
    },
    options: {
      scales: {
        yAxes: [
          { id: 'left', position: 'left' },
          { id: 'right', position: 'right', gridLines: { drawOnChartArea: false } },
        ],
      },
    },
  });
  expect(chart.getDatasetMeta(0).yAxisID).toBe('left');
  expect(chart.getDatasetMeta(1).yAxisID).toBe('right');
  expect(chart.getDatasetMeta(1).xAxisID).toBe('x');
  expect(chart.scales.right.options.position).toBe('right');
  expect(chart.scales.right.options.grid.drawOnChartArea).toBe(false);
});

test('doughnut cutoutPercentage and rotation/circumference in radians become cutout and degrees', () => {
  const chart = drawn({
    type: 'doughnut',
    data: { datasets: [{ data: [1, 1] }] },
    options: { cutoutPercentage: 60, rotation: -0.5 * Math.PI, circumference: Math.PI },
  });
  expect(chart.options.cutout).toBe('60%');
  expect(chart.options.rotation).toBe(0);
  expect(chart.options.circumference).toBe(180);
  const arc = chart.getDatasetMeta(0).data[0] as any;
  expect(arc.innerRadius / arc.outerRadius).toBeCloseTo(0.6, 1);
});

test('dataset renames (lineTension, steppedLine), elements.rectangle, radial options.scale and bar sizing on axes', () => {
  const line = drawn({
    type: 'line',
    data: {
      labels: LABELS,
      datasets: [
        { data: [1, 2, 3], lineTension: 0.4 },
        { data: [1, 2, 3], steppedLine: true },
      ],
    },
  });
  expect((line.getDatasetMeta(0).dataset as any).options.tension).toBe(0.4);
  expect((line.getDatasetMeta(1).dataset as any).options.stepped).toBe(true);
  const bar = drawn({
    type: 'bar',
    data: { labels: LABELS, datasets: [{ data: [1, 2, 3] }] },
    options: { elements: { rectangle: { borderWidth: 4 } }, scales: { xAxes: [{ barPercentage: 0.5 }] } },
  });
  expect((bar.getDatasetMeta(0).data[0] as any).options.borderWidth).toBe(4);
  expect((bar.options as any).datasets.bar.barPercentage).toBe(0.5);
  const radar = drawn({
    type: 'radar',
    data: { labels: LABELS, datasets: [{ data: [1, 2, 3] }] },
    options: { scale: { ticks: { beginAtZero: true, max: 10 }, pointLabels: { fontColor: '#ff0000' } } },
  });
  expect(radar.scales.r.max).toBe(10);
  expect(radar.scales.r.min).toBe(0);
  expect((radar.scales.r.options as any).pointLabels.color).toBe('#ff0000');
});

test('annotations (Chart.js 2 plugin syntax) move under plugins with Chart.js 4 scale ids and label options', () => {
  const config = translateChartJs2({
    type: 'line',
    data: { datasets: [{ data: [1] }] },
    options: {
      annotation: {
        annotations: [
          {
            type: 'line',
            mode: 'horizontal',
            scaleID: 'y-axis-0',
            value: 5,
            label: { enabled: true, content: 'Target', position: 'left', fontColor: '#fff', fontSize: 14 },
          },
        ],
      },
    },
  }) as Json;
  expect(config.options.annotation).toBeUndefined();
  expect(config.options.plugins.annotation.annotations[0]).toEqual({
    type: 'line',
    scaleID: 'y',
    value: 5,
    label: { display: true, content: 'Target', position: 'start', color: '#fff', font: { size: 14 } },
  });
});

test('an option with no Chart.js 4 equivalent is refused by its path', () => {
  expect(() =>
    translateChartJs2({ type: 'bar', data: { datasets: [] }, options: { scales: { yAxes: [{ gridLines: { zeroLineBorderDash: [2, 2] } }] } } }),
  ).toThrow(UntranslatableOption);
  expect(() =>
    translateChartJs2({ type: 'bar', data: { datasets: [] }, options: { scales: { yAxes: [{ gridLines: { zeroLineBorderDash: [2, 2] } }] } } }),
  ).toThrow('options.scales.yAxes[0].gridLines.zeroLineBorderDash has no Chart.js 4 equivalent');
});

test('a configuration already in Chart.js 3/4 form passes through unchanged', () => {
  const v4 = {
    type: 'bar',
    data: { labels: LABELS, datasets: [{ data: [1, 2, 3] }] },
    options: { indexAxis: 'y', scales: { x: { stacked: true } }, plugins: { title: { display: true, text: 'T' }, legend: { position: 'right' } } },
  };
  expect(translateChartJs2(deepFreeze(structuredClone(v4)))).toEqual(v4);
});
