import { Resvg } from '@resvg/resvg-js';
import { bundledFontDir, fontFiles, svgTextFonts, type RenderFonts } from '../../functions/visual/render/fonts';
import { RenderPool } from '../../functions/visual/render/pool';
import type { RenderTask } from '../../functions/visual/render/tasks';
import { SCRIPT_FONTS, scriptFontFile } from '../../shared/script-fonts';
import { decodePng, fetchFresh, visualTestHost } from './helpers';

/**
 * Issue 53: every renderer path draws Japanese, Chinese, Korean, Thai, Arabic, Hebrew, Devanagari
 * and emoji with real glyphs. A glyph is compared with the blank box (tofu) the fonts draw for a
 * character none of them has (U+E000, private use): the same pixels mean a box, an image without
 * ink means nothing drawn. PNG from Skia, SVG rasterised with resvg and the same fonts, and the
 * resvg paths (infographics, diagrams) alike.
 */
const dir = bundledFontDir();
const SCRIPTS = SCRIPT_FONTS.map((font) => ({ id: font.id, family: font.family, file: scriptFontFile(font) }));
const WITH_SCRIPTS: RenderFonts = { dir, extra: [], svgText: svgTextFonts(dir), scripts: SCRIPTS };
const WITHOUT_SCRIPTS: RenderFonts = { dir, extra: [], svgText: svgTextFonts(dir) };
const TOFU = '\ue000';
const GLYPHS: [string, string][] = [
  ['Japanese kanji', '東'],
  ['katakana', 'サ'],
  ['Chinese (simplified only)', '测'],
  ['Hangul', '서'],
  ['Thai', 'ก'],
  ['Arabic', 'ب'],
  ['Hebrew', 'ש'],
  ['Devanagari', 'क'],
  ['emoji', '🚀'],
];

let pool: RenderPool;
let bare: RenderPool;
beforeAll(() => {
  pool = new RenderPool(1, 30_000, WITH_SCRIPTS, 100);
  bare = new RenderPool(1, 30_000, WITHOUT_SCRIPTS, 100);
});
afterAll(async () => {
  await pool.close();
  await bare.close();
});

/** A chart whose only ink is its title, drawn large. */
const titleChart = (text: string): Record<string, unknown> => ({
  type: 'bar',
  data: { labels: [], datasets: [] },
  options: {
    animation: false,
    plugins: { title: { display: true, text, font: { size: 48 } }, legend: { display: false } },
    scales: { x: { display: false }, y: { display: false } },
  },
});
const chartTask = (text: string, format: 'png' | 'svg'): RenderTask => ({
  kind: 'chart',
  config: titleChart(text),
  width: 160,
  height: 90,
  pixelRatio: 1,
  format,
  background: 'white',
});
const run = async (p: RenderPool, task: RenderTask) => Buffer.from((await p.run(task)).bytes);

/** resvg with the fonts the service has: DejaVu Sans and the script fonts, no system font. */
const rasterise = (svg: Buffer | string) =>
  Buffer.from(
    new Resvg(svg, { font: { fontFiles: [...fontFiles(dir), ...SCRIPTS.map((s) => s.file)], loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans' } })
      .render()
      .asPng(),
  );

/** Dark pixels of a PNG: the ink of its text. */
function ink(png: Buffer): number {
  const { data } = decodePng(png);
  let count = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 128 && data[i] + data[i + 1] + data[i + 2] < 384) count++;
  return count;
}

/** A real glyph: ink, and not the pixels of the tofu box. */
function expectRealGlyph(png: Buffer, tofu: Buffer): void {
  expect(ink(png)).toBeGreaterThan(20);
  expect(png.equals(tofu)).toBe(false);
}

describe('the comparison sees tofu', () => {
  test('without the script fonts, 東 is drawn as the same box as a private-use character', async () => {
    const tofu = await run(bare, chartTask(TOFU, 'png'));
    expect(ink(tofu)).toBeGreaterThan(20);
    expect((await run(bare, chartTask('東', 'png'))).equals(tofu)).toBe(true);
  });
});

describe.each(GLYPHS)('%s (%s)', (_name, glyph) => {
  test('PNG: a real glyph, not the tofu box', async () => {
    expectRealGlyph(await run(pool, chartTask(glyph, 'png')), await run(pool, chartTask(TOFU, 'png')));
  });

  test('SVG, rasterised with resvg and the same fonts: a real glyph; the SVG names the font it was measured with', async () => {
    const svg = await run(pool, chartTask(glyph, 'svg'));
    expect(svg.toString('utf8')).toContain(`>${glyph}</text>`);
    expectRealGlyph(rasterise(svg), rasterise(await run(pool, chartTask(TOFU, 'svg'))));
  });

  test('infographics and diagrams (resvg): a real glyph', async () => {
    const svg = (text: string) =>
      `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80" font-family="Segoe UI, Arial, sans-serif"><rect width="120" height="80" fill="white"/><text x="20" y="60" font-size="48">${text}</text></svg>`;
    expectRealGlyph(
      await run(pool, { kind: 'svg-to-png', svg: svg(glyph), pixelRatio: 1 }),
      await run(pool, { kind: 'svg-to-png', svg: svg(TOFU), pixelRatio: 1 }),
    );
    const dot = (text: string): RenderTask => ({ kind: 'dot', source: `digraph { node [shape=plaintext, fontsize=40]; a [label="${text}"] }`, format: 'png' });
    expectRealGlyph(await run(pool, dot(glyph)), await run(pool, dot(TOFU)));
  });
});

test('the SVG of a chart in several scripts names each script font after DejaVu Sans, and a Latin chart drawn after it is unchanged', async () => {
  const latin = (await run(pool, chartTask('Revenue', 'svg'))).toString('utf8');
  const mixed = (await run(pool, chartTask('地域別売上 매출 รายได้ Zürich 🚀', 'svg'))).toString('utf8');
  expect(mixed).toMatch(/font-family="DejaVu Sans, Noto Sans JP, Noto Sans SC, Noto Sans KR, Noto Sans Thai, Noto Emoji, sans-serif"/);
  expect(latin).not.toContain('Noto');
  expect((await run(pool, chartTask('Revenue', 'svg'))).toString('utf8')).toBe(latin);
  const latinPng = await run(bare, chartTask('Revenue', 'png'));
  expect((await run(pool, chartTask('Revenue', 'png'))).equals(latinPng)).toBe(true);
});

describe('the QuickChart drop-in', () => {
  const visual = visualTestHost();
  const get = async (config: unknown) => {
    const res = await fetchFresh(`${visual.host.url}/quickchart/chart?w=300&h=120&key=${visual.token}&c=${encodeURIComponent(JSON.stringify(config))}`);
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };
  test("GET /quickchart/chart draws the issue's chart with real glyphs: different from the same chart with tofu characters", async () => {
    const chart = (labels: string[], title: string) => ({
      type: 'bar',
      data: { labels, datasets: [{ label: '売上 매출 รายได้', data: [3, 2, 1] }] },
      options: { plugins: { title: { display: true, text: title } } },
    });
    const real = await get(chart(['東京', '서울', 'กรุงเทพ'], '地域別売上 Zürich 🚀'));
    const tofu = await get(chart([TOFU.repeat(2), TOFU.repeat(2), TOFU.repeat(7)], `${TOFU.repeat(5)} Zürich ${TOFU}`));
    expect(real.equals(tofu)).toBe(false);
  });
});
