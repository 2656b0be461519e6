/**
 * Our SVG context on its own: what a canvas call becomes in the document (the corpus test holds
 * whole charts against Skia's SVG canvas; these hold the corners charts rarely reach).
 */
import { createCanvas, GlobalFonts, type SKRSContext2D } from '@napi-rs/canvas';
import { bundledFontDir, FONT_ALIASES, fontFiles, svgFontFamily } from '../../functions/visual/render/fonts';
import { SvgContext, xmlText } from '../../functions/visual/render/svg-context';

beforeAll(() => {
  for (const alias of FONT_ALIASES) for (const file of fontFiles(bundledFontDir())) GlobalFonts.registerFromPath(file, alias);
});

type Baseline = SKRSContext2D['textBaseline'];
type Align = SKRSContext2D['textAlign'];

const context = () => new SvgContext(200, 100, createCanvas(1, 1).getContext('2d'), (list) => svgFontFamily(list));
const body = (svg: string) => svg.slice(svg.indexOf('viewBox'));

test('a full turn is a closed ellipse of four curves; a clockwise arc back to its start angle draws nothing', () => {
  const ctx = context();
  ctx.beginPath();
  ctx.arc(50, 50, 10, 0, Math.PI * 2);
  ctx.fill();
  const full = ctx.document();
  expect(full.match(/C/g)?.length).toBe(4);
  expect(full).toContain('d="M60 50C');
  const empty = context();
  empty.beginPath();
  empty.arc(50, 50, 10, 0, -Math.PI * 2);
  empty.fill();
  expect(empty.document()).not.toContain('<path');
});

test('paths are written in canvas coordinates through the transform, line widths scaled with it', () => {
  const ctx = context();
  ctx.translate(10, 20);
  ctx.scale(2, 2);
  ctx.beginPath();
  ctx.moveTo(1, 1);
  ctx.lineTo(5, 1);
  ctx.lineWidth = 3;
  ctx.strokeStyle = 'rgba(255, 0, 0, 0.5)';
  ctx.stroke();
  expect(ctx.document()).toContain('<path fill="none" stroke="#ff0000" stroke-opacity="0.5" stroke-width="6" stroke-miterlimit="10" d="M12 22L20 22"/>');
});

test('text sits on the alphabetic baseline the canvas would use; rotated text carries its transform', () => {
  const ctx = context();
  ctx.font = 'bold 16px Arial, sans-serif';
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'center';
  ctx.fillStyle = '#333333';
  ctx.fillText('Title', 100, 20);
  ctx.translate(10, 50);
  ctx.rotate(-Math.PI / 2);
  ctx.textBaseline = 'alphabetic';
  ctx.fillText('Axis', 0, 0);
  const svg = ctx.document();
  // A raster canvas puts the baseline of 16 px DejaVu Sans Bold about 5-6 px below a middle line at 20.
  const y = Number(/y="([\d.]+)"[^>]*>Title</.exec(svg)?.[1]);
  expect(y).toBeGreaterThan(24.5);
  expect(y).toBeLessThan(26.5);
  expect(svg).toContain('font-family="DejaVu Sans, sans-serif" font-size="16" font-weight="bold" text-anchor="middle">Title</text>');
  expect(svg).toMatch(/transform="matrix\(0 -1 1 0 10 50\)" x="0" y="0"[^>]*>Axis<\/text>/);
});

test('text is measured as the measuring canvas measures it in the font, baseline and alignment of the moment, remembered or not', () => {
  const measurer = createCanvas(1, 1).getContext('2d');
  const ctx = new SvgContext(200, 100, measurer, (list) => svgFontFamily(list));
  const reference = createCanvas(1, 1).getContext('2d');
  const expected = (font: string, baseline: Baseline, align: Align, text: string) => {
    reference.font = font;
    reference.textBaseline = baseline;
    reference.textAlign = align;
    const m = reference.measureText(text);
    return { width: m.width, left: m.actualBoundingBoxLeft, ascent: m.actualBoundingBoxAscent };
  };
  const cases: [string, Baseline, Align, string][] = [
    ['12px Arial', 'alphabetic', 'left', 'Revenue'],
    ['24px Arial', 'alphabetic', 'left', 'Revenue'],
    ['bold 12px Arial', 'alphabetic', 'left', 'Revenue'],
    ['12px Arial', 'top', 'left', 'Revenue'],
    ['12px Arial', 'alphabetic', 'center', 'Revenue'],
    ['12px Arial', 'alphabetic', 'left', 'Revenue by region'],
  ];
  // Twice through: the second round is answered from what the context remembers.
  for (const round of [1, 2]) {
    for (const [font, baseline, align, text] of cases) {
      ctx.font = font;
      ctx.textBaseline = baseline;
      ctx.textAlign = align;
      // Another user of the shared measuring canvas leaves its own state behind.
      measurer.font = '40px serif';
      const m = ctx.measureText(text);
      expect({ round, width: m.width, left: m.actualBoundingBoxLeft, ascent: m.actualBoundingBoxAscent }).toEqual({
        round,
        ...expected(font, baseline, align, text),
      });
    }
  }
  const widths = cases.map(([font, baseline, align, text]) => expected(font, baseline, align, text).width);
  expect(new Set(widths.slice(0, 3)).size).toBe(3);
});

test('clips nest, end with restore, and a clear of the whole canvas starts the document again', () => {
  const ctx = context();
  ctx.fillStyle = 'blue';
  ctx.fillRect(0, 0, 10, 10);
  ctx.clearRect(0, 0, 200, 100);
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, 0, 100, 100);
  ctx.clip();
  ctx.beginPath();
  ctx.rect(50, 0, 100, 100);
  ctx.clip();
  ctx.fillRect(0, 0, 200, 100);
  ctx.restore();
  ctx.fillRect(0, 0, 5, 5);
  const svg = body(ctx.document());
  expect(svg.match(/<rect/g)?.length).toBe(2);
  expect(svg).toContain('<clipPath id="c2" clip-path="url(#c1)">');
  expect(svg).toMatch(
    /<g clip-path="url\(#c2\)"><rect fill="#0000ff" x="0" y="0" width="200" height="100"\/><\/g><rect fill="#0000ff" x="0" y="0" width="5" height="5"\/><\/svg>$/,
  );
});

test('what is not a colour is ignored, as a canvas ignores it; transparent draws nothing', () => {
  const ctx = context();
  ctx.fillStyle = '#123456';
  ctx.fillStyle = 'not a colour';
  ctx.fillRect(0, 0, 1, 1);
  ctx.fillStyle = 'transparent';
  ctx.fillRect(0, 0, 2, 2);
  const svg = body(ctx.document());
  expect(svg.match(/<rect/g)?.length).toBe(1);
  expect(svg).toContain('fill="#123456"');
});

test('XML text: special characters escaped, characters XML cannot hold dropped, surrogate pairs kept', () => {
  expect(xmlText(`a<b>&"'\u0000\u0007\u000b\uFFFE\uD83D\uDE00\uD800x\tz`)).toBe('a&lt;b&gt;&amp;&quot;&#39;\uD83D\uDE00x z');
});
