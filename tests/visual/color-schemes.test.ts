import fs from 'node:fs';
import { colorScheme, colorSchemeTable } from '../../functions/visual/color-schemes';
import { applyChartExtras } from '../../functions/visual/chart-extras';
import { pluginSchemeFiles } from '../../scripts/build-color-schemes';
import { countColor, decodePng, postJson, visualTestHost } from './helpers';

/**
 * The colour schemes are chartjs-plugin-colorschemes' own table: every scheme its data files
 * export is known by `<category>.<name>`, with the plugin's colours, and charts drawn with one
 * show them. The names are counted from the files with a plain text scan, not with the build's
 * parser, so the two readings check each other.
 */
const visual = visualTestHost();

function exportedNames(): string[] {
  return pluginSchemeFiles().flatMap(({ category, file }) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.includes(' = ['))
      .map((line) => `${category}.${line.trim().split(' = [')[0]}`),
  );
}

test('every scheme the plugin exports is known, with the colours of its source', () => {
  const names = exportedNames();
  expect(names.length).toBeGreaterThan(400);
  const known = Object.entries(colorSchemeTable()).flatMap(([category, schemes]) => Object.keys(schemes).map((name) => `${category}.${name}`));
  expect(known.sort()).toEqual([...names].sort());
  // Spot checks against the plugin's files as published (0.4.0).
  expect(colorScheme('office.Excel16')).toEqual([
    '#9999ff', '#993366', '#ffffcc', '#ccffff', '#660066', '#ff8080', '#0066cc', '#ccccff',
    '#000080', '#ff00ff', '#ffff00', '#0000ff', '#800080', '#800000', '#008080', '#0000ff',
  ]); // prettier-ignore
  expect(colorScheme('tableau.Tableau10')?.[0]).toBe('#4E79A7');
  expect(colorScheme('brewer.YlGnBu3')).toEqual(['#edf8b1', '#7fcdbb', '#2c7fb8']);
});

test("the plugin's older names are read as it reads them", () => {
  expect(colorScheme('brewer.Set1-9')).toEqual(colorScheme('brewer.SetOne9'));
  expect(colorScheme('brewer.Pastel2-8')).toEqual(colorScheme('brewer.PastelTwo8'));
  expect(colorScheme('brewer.Set3-12')).toEqual(colorScheme('brewer.SetThree12'));
  expect(colorScheme('office.Office2007-2010-6')).toEqual(colorScheme('office.OfficeClassic6'));
  for (const unknown of ['brewer.Nope', 'office', 'office.Excel16.x', '__proto__.x', 'brewer.constructor', 'brewer.Set4-9'])
    expect(colorScheme(unknown)).toBeUndefined();
});

test('datasets are coloured as the plugin colours them, by type', () => {
  const schemed = (type: string, dataset: Record<string, unknown> = {}) =>
    (
      applyChartExtras(
        {
          type,
          data: { datasets: [{ data: [1, 2, 3], ...dataset }, { data: [4, 5, 6] }] },
          options: { plugins: { colorschemes: { scheme: 'office.Excel16' } } },
        },
        false,
      ) as any
    ).data.datasets;
  const [bar1, bar2] = schemed('bar');
  expect([bar1.backgroundColor, bar2.backgroundColor, bar1.borderColor]).toEqual(['#9999ff', '#993366', undefined]);
  const [line] = schemed('line');
  expect(line).toMatchObject({
    backgroundColor: 'rgba(153, 153, 255, 0.5)',
    borderColor: '#9999ff',
    pointBackgroundColor: 'rgba(153, 153, 255, 0.5)',
    pointBorderColor: '#9999ff',
  });
  expect(schemed('scatter')[0].borderColor).toBe('#9999ff');
  expect(schemed('pie')[0].backgroundColor).toEqual(['#9999ff', '#993366', '#ffffcc']);
  // A colour the dataset gives is kept (unless override).
  expect(schemed('bar', { backgroundColor: '#123456' })[0].backgroundColor).toBe('#123456');
});

test('a chart drawn with office.Excel16 through /quickchart shows its colours; an unknown scheme is 400', async () => {
  const chart = {
    type: 'bar',
    data: { labels: ['a', 'b'], datasets: [{ data: [3, 5] }, { data: [4, 2] }] },
    options: { plugins: { colorschemes: { scheme: 'office.Excel16' } } },
  };
  const res = await postJson(visual.host, '/quickchart/chart', { key: visual.token, chart, width: 300, height: 200, devicePixelRatio: 1, version: '3' });
  expect(res.status).toBe(200);
  const png = decodePng(Buffer.from(await res.arrayBuffer()));
  expect(countColor(png, '#9999ff')).toBeGreaterThan(500);
  expect(countColor(png, '#993366')).toBeGreaterThan(500);
  const bad = await postJson(visual.host, '/quickchart/chart', {
    key: visual.token,
    chart: { ...chart, options: { plugins: { colorschemes: { scheme: 'office.Excel99' } } } },
  });
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { message: string }).message).toMatch(/"office.Excel99" is not a scheme of chartjs-plugin-colorschemes/);
});
