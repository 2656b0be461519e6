/**
 * SVG text drawn with the DejaVu Sans subsets first (render/fonts.ts, scripts/build-fonts.ts) shows
 * exactly what the full fonts show: the same characters at the same places in the same family,
 * size, weight and colour, and the same markup around them. One thread renders with the subsets and
 * one without, the same charts on both.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chartJsConfig, type ChartSpec } from '../../functions/visual/chart-spec';
import { bundledFontDir, SVG_TEXT_FAMILY, SVG_TEXT_FONTS, svgTextFonts, withSvgTextFamily } from '../../functions/visual/render/fonts';
import { RenderPool } from '../../functions/visual/render/pool';
import { THEMES, themeOf } from '../../functions/visual/themes';

const dir = bundledFontDir();
let subsets: RenderPool;
let full: RenderPool;
beforeAll(() => {
  // The subsets serve Skia's SVG canvas (the reference writer; our SVG context measures on a raster canvas).
  subsets = new RenderPool(1, 30_000, { dir, extra: [], svgText: svgTextFonts(dir) }, 100, undefined, { skiaSvg: true });
  full = new RenderPool(1, 30_000, { dir, extra: [], svgText: [] }, 100, undefined, { skiaSvg: true });
});
afterAll(async () => {
  await subsets.close();
  await full.close();
});

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" };

/**
 * What an SVG shows: each character of its text with its position and its element's other
 * attributes, and the markup outside the text (clip-path ids are a per-process counter, so
 * normalised). How the text is split into elements is left out: a character outside the subsets
 * starts a new run in the full font.
 */
function shown(svg: string) {
  const glyphs: string[] = [];
  let elements = 0;
  const markup = svg.replace(/cl_[0-9a-f]+/g, 'cl').replace(/<text([^>]*)>([^<]*)<\/text>/g, (_, attributes: string, content: string) => {
    elements++;
    const list = (name: string) =>
      (new RegExp(`\\s${name}="([^"]*)"`).exec(attributes)?.[1] ?? '')
        .split(',')
        .map((value) => value.trim())
        .filter(Boolean);
    const [xs, ys] = [list('x'), list('y')];
    const style = attributes.replace(/\s[xy]="[^"]*"/g, '');
    [...content.replace(/&[a-z]+;/g, (entity) => ENTITIES[entity] ?? entity)].forEach((char, i) =>
      glyphs.push(`${style} ${JSON.stringify(char)} ${xs[i]} ${ys[Math.min(i, ys.length - 1)]}`),
    );
    return '<text/>';
  });
  return { glyphs, markup: markup.replace(/(<text\/>)+/g, '<text/>'), elements };
}

const svgOf = async (pool: RenderPool, spec: ChartSpec, theme: string) =>
  Buffer.from(
    (
      await pool.run({
        kind: 'chart',
        config: chartJsConfig(spec, themeOf(theme)),
        width: 800,
        height: 400,
        pixelRatio: 1,
        format: 'svg',
        background: themeOf(theme).backgroundColor,
      })
    ).bytes,
  ).toString('utf8');

// Within the subsets: Latin, Greek, Cyrillic, punctuation, currency, arrows, mathematical operators.
const WITHIN: ChartSpec[] = [
  {
    type: 'bar',
    data: { labels: ['North', 'South', 'East', 'West', 'Central'], datasets: [{ label: 'Revenue', data: [12, 19, 7, 15, 11] }] },
    options: { title: 'Revenue by region' },
  },
  {
    type: 'line',
    data: { labels: ['Jan', 'Feb', 'Mär', 'Apr'], datasets: [{ label: 'Umsatz (€, 1 000)', data: [1.5, -2, 3.25, 4] }] },
    options: { title: 'Zürich – Łódź “quarterly” … 12 % → Hà Nội' },
  },
  { type: 'doughnut', data: { labels: ['Москва', 'Αθήνα', 'x ≤ ∑ ± ∞'], datasets: [{ data: [1, 2, 3] }] }, options: { title: 'Привет, Ελλάδα' } },
  { type: 'radar', data: { labels: ['a', 'b', 'c', 'd', 'e'], datasets: [{ label: 'r', data: [1, 2, 3, 2, 1] }] } },
];
// DejaVu Sans draws these, the subsets do not: Armenian, Georgian, Hebrew.
const OUTSIDE: ChartSpec = {
  type: 'bar',
  data: { labels: ['Երևան', 'თბილისი', 'Zürich', 'תל אביב', 'a Երևան b'], datasets: [{ label: 'Umsatz € ∑ – “q”', data: [12, 19, 7, 15, 11] }] },
  options: { title: 'Total Երևան თბილისი' },
};

test('the build wrote the subsets, and they are used only with the bundled fonts they were made from', () => {
  expect(svgTextFonts(dir).map((file) => path.basename(file))).toEqual(Object.values(SVG_TEXT_FONTS));
  const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'fonts-'));
  try {
    for (const file of Object.keys(SVG_TEXT_FONTS)) fs.copyFileSync(path.join(dir, file), path.join(elsewhere, file));
    expect(svgTextFonts(elsewhere)).toEqual([]);
  } finally {
    fs.rmSync(elsewhere, { recursive: true, force: true });
  }
});

test('only a family list that starts with a family drawn with DejaVu Sans gets the subsets in front', () => {
  expect(withSvgTextFamily("'Segoe UI', sans-serif")).toBe(`"${SVG_TEXT_FAMILY}", 'Segoe UI', sans-serif`);
  expect(withSvgTextFamily('Calibri')).toBe(`"${SVG_TEXT_FAMILY}", Calibri`);
  expect(withSvgTextFamily('"Noto Sans SC", Arial')).toBe('"Noto Sans SC", Arial');
});

test.each(Object.keys(THEMES))('charts within the subsets are the same SVG with the subsets as without them (%s theme)', async (theme) => {
  for (const spec of WITHIN) {
    const [a, b] = await Promise.all([svgOf(subsets, spec, theme), svgOf(full, spec, theme)]);
    expect(a.replace(/cl_[0-9a-f]+/g, 'cl')).toBe(b.replace(/cl_[0-9a-f]+/g, 'cl'));
  }
});

test('characters outside the subsets are drawn from the full fonts: the same glyphs, at the same places', async () => {
  const [a, b] = await Promise.all([svgOf(subsets, OUTSIDE, 'professional'), svgOf(full, OUTSIDE, 'professional')]);
  const [withSubsets, withFull] = [shown(a), shown(b)];
  // Skia leaves out of the SVG's text a space that starts a run (where the font changes); the other
  // characters sit at the positions Skia gives them either way, so the drawing is the same.
  const visible = (glyphs: string[]) => glyphs.filter((glyph) => !glyph.includes(' " " '));
  expect(visible(withSubsets.glyphs)).toEqual(visible(withFull.glyphs));
  expect(withSubsets.markup).toBe(withFull.markup);
  for (const char of ['Ե', 'თ', 'ת', 'Z', '∑']) expect(withSubsets.glyphs.join('\n')).toContain(JSON.stringify(char));
  // The subsets were in use: text runs split where a character is not in them.
  expect(withSubsets.elements).toBeGreaterThan(withFull.elements);
  // A run Skia leaves empty (a lone space) is not written as an empty element.
  expect(a).not.toMatch(/<text[^>]*><\/text>/);
});
