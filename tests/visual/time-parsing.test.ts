import { parseTime } from '../../functions/visual/render/chart-plugins';
import { postJson, visualTestHost } from './helpers';

/**
 * Time values are read as QuickChart reads them: with the parser's format when they match it, as
 * ISO 8601 otherwise (what a JavaScript Date in QuickChart's configuration is in JSON), epoch
 * milliseconds as such. Dates are given in UTC (Z) or checked against the machine's own reading of
 * local time, so the test holds in every time zone.
 */
const visual = visualTestHost();
const local = (y: number, m: number, d: number, h = 0, min = 0) => new Date(y, m - 1, d, h, min).getTime();

test('parser format, ISO 8601 and epoch milliseconds', () => {
  expect(parseTime('01/05/2020 10:00', 'MM/DD/YYYY HH:mm')).toBe(local(2020, 1, 5, 10));
  expect(parseTime('2020-01-05T10:00:00.000Z', 'MM/DD/YYYY HH:mm')).toBe(Date.UTC(2020, 0, 5, 10));
  expect(parseTime('2020-01-05', 'MM/DD/YYYY HH:mm')).toBe(local(2020, 1, 5));
  expect(parseTime('1/5/2020 9:30', 'MM/DD/YYYY HH:mm')).toBe(local(2020, 1, 5, 9, 30)); // moment's forgiving reading
  expect(parseTime('5 Jan 2020', 'D MMM YYYY')).toBe(local(2020, 1, 5));
  expect(parseTime(1578218400000, 'MM/DD/YYYY HH:mm')).toBe(1578218400000);
  expect(parseTime('2020-01-05T10:00:00Z')).toBe(Date.UTC(2020, 0, 5, 10));
  expect(parseTime('not a date', 'MM/DD/YYYY')).toBeNull();
  expect(parseTime(null)).toBeNull();
  expect(parseTime(Number.NaN)).toBeNull();
});

/** Chart.js 3's time scale sample as JSON: labels are Dates (ISO strings here), the third dataset's points strings in the parser's format. */
const timeChart = {
  type: 'line',
  data: {
    labels: ['2021-03-01T00:00:00.000Z', '2021-03-02T00:00:00.000Z', '2021-03-03T00:00:00.000Z', '2021-03-04T00:00:00.000Z'],
    datasets: [
      { label: 'My First dataset', data: [3, 9, 4, 7], fill: false },
      { label: 'My Second dataset', data: [5, 2, 8, 6], fill: false },
      {
        label: 'Dataset with point data',
        data: [
          { x: '03/01/2021 12:00', y: 4 },
          { x: '03/02/2021 12:00', y: 8 },
          { x: '03/04/2021 00:00', y: 2 },
        ],
        fill: false,
      },
    ],
  },
  options: {
    plugins: { title: { display: true, text: 'Chart.js Time Scale' } },
    scales: { x: { type: 'time', time: { parser: 'MM/DD/YYYY HH:mm', unit: 'day', displayFormats: { day: 'MMM D YYYY' } } } },
  },
};

test('a Chart.js 3 time chart with ISO labels and a parser draws its ticks in 2021, not at 1970', async () => {
  const res = await postJson(visual.host, '/quickchart/chart', { key: visual.token, chart: timeChart, version: '3', format: 'svg', width: 600, height: 300 });
  expect(res.status).toBe(200);
  const svg = await res.text();
  const ticks = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]).filter((t) => /\d{4}$/.test(t));
  expect(ticks.length).toBeGreaterThanOrEqual(3);
  expect(ticks.every((t) => t.endsWith('2021'))).toBe(true);
  expect(ticks.some((t) => t.startsWith('Mar'))).toBe(true);
});
