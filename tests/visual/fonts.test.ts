import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { PNG } from 'pngjs';
import { FONT_ALIASES, SVG_TEXT_FAMILY } from '../../functions/visual/render/fonts';
import { THEMES } from '../../functions/visual/themes';
import { countColor, decodePng } from './helpers';

/**
 * No operating-system font is ever needed (Flex Consumption has none). Skia (@napi-rs/canvas) scans
 * /usr/share/fonts on its own, so the renderer runs in a child process in which an empty tmpfs is
 * mounted over that folder (a private mount namespace: `unshare`), with VISUAL_FONT_DIR unset.
 */
const FIXTURE = path.join(__dirname, 'fixtures', 'render-fonts.js');
const ENV = { ...process.env, SERVICES: 'visual', VISUAL_FONT_DIR: '', VISUAL_RENDER_WORKERS: '1' };

interface Seen {
  systemFontFiles: number;
  systemFamilies: string[];
  familiesAfter: string[];
  chart: string;
  svg: string;
  diagram: string;
  infographic: string;
}

function run(command: string, args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(command, args, { env: { ...ENV, ...env }, encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? String(result.error ?? '') };
}

/**
 * The fixture with /usr/share/fonts hidden: an unprivileged user namespace, a mount namespace when
 * root, or through sudo (GitHub's runners restrict unprivileged user namespaces but allow sudo).
 */
function runWithoutSystemFonts(env: Record<string, string> = {}): Seen {
  const script = '[ ! -d /usr/share/fonts ] || mount -t tmpfs tmpfs /usr/share/fonts; exec "$0" "$1"';
  const args = ['sh', '-c', script, process.execPath, FIXTURE];
  const attempts: ReturnType<typeof run>[] = [];
  for (const command of [
    ['unshare', '-Urm'],
    ['unshare', '-m'],
    ['sudo', '-n', '--preserve-env', 'unshare', '-m'],
  ]) {
    const attempt = run(command[0], [...command.slice(1), ...args], env);
    if (attempt.status === 0) return JSON.parse(attempt.stdout);
    attempts.push(attempt);
  }
  throw new Error(`Could not render with the system fonts hidden (unshare needs user or mount namespaces):\n${attempts.map((a) => a.stderr).join('\n')}`);
}

/** Pixels of a colour in the top rows (the chart title) or the whole image. */
const textPixels = (png: PNG, color: string, rows = png.height) =>
  countColor({ ...png, height: rows, data: png.data.subarray(0, png.width * rows * 4) } as PNG, color, 40);

let hidden: Seen;
let visible: Seen;
beforeAll(() => {
  hidden = runWithoutSystemFonts();
  const plain = run(process.execPath, [FIXTURE]);
  if (plain.status !== 0) throw new Error(plain.stderr);
  visible = JSON.parse(plain.stdout);
});

test('with /usr/share/fonts hidden, Skia finds no system font: the only families are those registered from the npm package', () => {
  expect(hidden.systemFontFiles).toBe(0);
  expect(hidden.systemFamilies).toEqual([]);
  // The aliases of the full fonts, and the subsets SVG text is drawn with first (built from the same package).
  expect([...hidden.familiesAfter].sort()).toEqual([...FONT_ALIASES, SVG_TEXT_FAMILY].sort());
});

test('charts draw their text with the npm fonts: the title is drawn, and the image is the same as with system fonts present', () => {
  const png = decodePng(Buffer.from(hidden.chart, 'base64'));
  expect([png.width, png.height]).toEqual([400, 200]);
  expect(textPixels(png, THEMES.professional.textColor, 30)).toBeGreaterThan(50);
  expect(hidden.chart).toBe(visible.chart);
  expect(hidden.svg).toContain('>Fonts from npm</text>');
  expect(hidden.svg).toBe(visible.svg);
});

test('diagrams and infographics (resvg) rasterise their text with the npm fonts too', () => {
  for (const key of ['diagram', 'infographic'] as const) {
    const png = decodePng(Buffer.from(hidden[key], 'base64'));
    expect(textPixels(png, '#000000')).toBeGreaterThan(50);
    expect(hidden[key]).toBe(visible[key]);
  }
});

describe('VISUAL_EXTRA_FONTS: fonts for scripts DejaVu Sans lacks, from npm too', () => {
  const THAI_FONT = '@fontsource/noto-sans-thai/files/noto-sans-thai-thai-400-normal.woff';
  const THAI = 'รายได้';
  let thai: Seen;
  let thaiWithoutFont: Seen;
  let latinWithFont: Seen;
  /** Six private-use characters: no font has them, so DejaVu Sans draws its missing-glyph boxes. */
  let tofu: Seen;
  beforeAll(() => {
    tofu = runWithoutSystemFonts({ FIXTURE_TITLE: '\ue000'.repeat(6) });
    thai = runWithoutSystemFonts({ VISUAL_EXTRA_FONTS: THAI_FONT, FIXTURE_TITLE: THAI });
    thaiWithoutFont = runWithoutSystemFonts({ FIXTURE_TITLE: THAI });
    latinWithFont = runWithoutSystemFonts({ VISUAL_EXTRA_FONTS: THAI_FONT });
  });

  test('the extra font is registered, and the SVG names it by its own name after DejaVu Sans, for every text', () => {
    expect(thai.familiesAfter).toContain('noto-sans-thai-thai-400-normal');
    // A viewer draws each character from the first family that has it: Thai from Noto Sans Thai.
    expect(thai.svg).toMatch(new RegExp(`font-family="DejaVu Sans, Noto Sans Thai, sans-serif"[^>]*>${THAI}</text>`));
    expect(thai.svg).toMatch(/font-family="DejaVu Sans, Noto Sans Thai, sans-serif"[^>]*>Revenue<\/text>/);
    // Without it, Thai is drawn with the built-in script font (shared/script-fonts.ts), loaded for this text only.
    expect(thaiWithoutFont.familiesAfter).toContain('Noto Sans Thai');
    expect(thaiWithoutFont.familiesAfter).not.toContain('noto-sans-thai-thai-400-normal');
    expect(thaiWithoutFont.svg).toMatch(new RegExp(`font-family="DejaVu Sans, Noto Sans Thai, sans-serif"[^>]*>${THAI}</text>`));
  });

  test("Thai text is drawn from it (or the built-in Thai font) instead of DejaVu's missing-glyph boxes", () => {
    const withFont = decodePng(Buffer.from(thai.chart, 'base64'));
    const builtIn = decodePng(Buffer.from(thaiWithoutFont.chart, 'base64'));
    const boxes = decodePng(Buffer.from(tofu.chart, 'base64'));
    expect(textPixels(withFont, THEMES.professional.textColor, 30)).toBeGreaterThan(50);
    expect(textPixels(builtIn, THEMES.professional.textColor, 30)).toBeGreaterThan(50);
    expect(thai.chart).not.toBe(tofu.chart);
    expect(thaiWithoutFont.chart).not.toBe(tofu.chart);
    expect(textPixels(withFont, THEMES.professional.textColor, 30)).not.toBe(textPixels(boxes, THEMES.professional.textColor, 30));
  });

  test('Latin text is unchanged by an extra font', () => {
    expect(latinWithFont.chart).toBe(hidden.chart);
  });
});
