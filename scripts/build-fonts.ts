/**
 * Writes the script fonts (shared/script-fonts.ts) into dist/shared/fonts, and the SVG text fonts: subsets of the bundled DejaVu Sans (regular and bold) holding the
 * characters charts mostly draw, into dist/functions/visual/fonts (part of the deployed package).
 * Run by `npm run build`.
 *
 * Why: Skia's SVG canvas maps each text run's glyphs back to characters by building the whole
 * font's glyph-to-Unicode table on every fillText, so a text costs about 112 µs with DejaVu Sans
 * (6,000 glyphs) against 12 µs on a raster canvas. A smaller font makes that table small;
 * characters outside it are drawn from the full font, next in the family list. The subsets keep
 * the fonts' names, outlines, metrics and kerning: the SVG is the same, byte for byte, for text
 * within them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundledFontDir, SVG_TEXT_FONTS, svgTextFontDir } from '../functions/visual/render/fonts';
import { COVERAGE_FILE, SCRIPT_FONTS, scriptFontDir, scriptFontFile, type ScriptFont } from '../shared/script-fonts';

type SubsetFont = (font: Buffer, text: string, options: { targetFormat: 'truetype' }) => Promise<Buffer>;
const subsetFont = require('subset-font') as SubsetFont;

/**
 * What chart text mostly is: Latin (with Latin Extended A/B and Vietnamese), Greek, Cyrillic,
 * punctuation, super- and subscripts, currency, letterlike symbols, number forms, arrows,
 * mathematical operators, geometric shapes. 2,000 characters instead of the font's 6,000 glyphs:
 * 35 µs per SVG fillText instead of 112.
 */
const RANGES: [number, number][] = [
  [0x20, 0x7e],
  [0xa0, 0x24f],
  [0x370, 0x4ff],
  [0x1e00, 0x1eff],
  [0x2000, 0x214f],
  [0x2150, 0x22ff],
  [0x25a0, 0x25ff],
];
const SVG_TEXT_CHARACTERS = RANGES.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i))).join('');

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The characters of a legacy double-byte character set, read with Node's ICU decoders (lead and trail byte ranges). */
function charset(encoding: string, lead: [number, number], trail: [number, number]): Set<number> {
  const decoder = new TextDecoder(encoding, { fatal: true });
  const out = new Set<number>();
  for (const a of range(...lead))
    for (const b of range(...trail)) {
      try {
        const text = decoder.decode(Uint8Array.of(a, b));
        if ([...text].length === 1) out.add(text.codePointAt(0)!);
      } catch {
        // not a character of the set
      }
    }
  return out;
}
const isHan = (cp: number) => (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xf900 && cp <= 0xfaff);

/**
 * What each script font keeps. One weight (regular) each: bold text in these scripts is drawn
 * regular. Han is cut to the ideographs of the national character sets people's names and
 * companies are written in: JIS X 0208 (6,355 kanji) in the Japanese font, and the GB 2312 and
 * Big5 ideographs it lacks in the Chinese one; every Hangul syllable (11,172); Thai, Devanagari
 * and the emoji font whole. Characters outside them keep the report's named placeholder.
 */
function wantedCharacters(): Record<ScriptFont['id'], (cp: number) => boolean> {
  const jis = charset('euc-jp', [0xa1, 0xfe], [0xa1, 0xfe]);
  const chinese = new Set([...charset('gb18030', [0xa1, 0xf7], [0xa1, 0xfe]), ...charset('big5', [0xa1, 0xf9], [0x40, 0xfe])]);
  const cjkSymbols = (cp: number) => (cp >= 0x3000 && cp <= 0x303f) || (cp >= 0xff00 && cp <= 0xffef);
  return {
    ja: (cp) => cp >= 0x2000 && (jis.has(cp) || cjkSymbols(cp) || (cp >= 0x3040 && cp <= 0x30ff) || (cp >= 0x31f0 && cp <= 0x31ff)),
    zh: (cp) => (isHan(cp) && chinese.has(cp) && !jis.has(cp)) || (cp >= 0x3100 && cp <= 0x312f),
    ko: (cp) => (cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0x3130 && cp <= 0x318f) || (cp >= 0xa960 && cp <= 0xa97f) || (cp >= 0xac00 && cp <= 0xd7af),
    // Thai and Devanagari fonts carry Latin too: DejaVu Sans draws it, so only the script and its marks are kept.
    thai: (cp) => cp >= 0x0e00 && cp <= 0x0e7f,
    deva: (cp) =>
      (cp >= 0x0900 && cp <= 0x097f) || (cp >= 0xa8e0 && cp <= 0xa8ff) || (cp >= 0x1cd0 && cp <= 0x1cff) || cp === 0x200c || cp === 0x200d || cp === 0x25cc,
    emoji: (cp) => cp > 0x7f,
  };
}

/** The npm file each script font is cut from (TrueType where a package ships it, else fontsource's WOFF2). */
const SOURCES: Record<ScriptFont['id'], string> = {
  ja: '@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf',
  zh: '@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf',
  ko: '@expo-google-fonts/noto-sans-kr/400Regular/NotoSansKR_400Regular.ttf',
  thai: '@fontsource/noto-sans-thai/files/noto-sans-thai-thai-400-normal.woff2',
  deva: '@fontsource/noto-sans-devanagari/files/noto-sans-devanagari-devanagari-400-normal.woff2',
  emoji: '@expo-google-fonts/noto-emoji/400Regular/NotoEmoji_400Regular.ttf',
};

/** Code points as sorted [first, last] ranges. */
function toRanges(codePoints: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const cp of [...codePoints].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last && cp === last[1] + 1) last[1] = cp;
    else out.push([cp, cp]);
  }
  return out;
}

async function buildScriptFonts(): Promise<void> {
  const fontkit = require('fontkit') as { create(bytes: Buffer): { characterSet: number[] } };
  const wanted = wantedCharacters();
  fs.mkdirSync(scriptFontDir(), { recursive: true });
  const coverage: Record<string, [number, number][]> = {};
  for (const font of SCRIPT_FONTS) {
    const source = fs.readFileSync(require.resolve(SOURCES[font.id]));
    const keep = fontkit.create(source).characterSet.filter(wanted[font.id]);
    const bytes = await subsetFont(source, String.fromCodePoint(...keep), { targetFormat: 'truetype' });
    fs.writeFileSync(scriptFontFile(font), bytes);
    coverage[font.id] = toRanges(fontkit.create(bytes).characterSet.filter(wanted[font.id]));
  }
  fs.writeFileSync(path.join(scriptFontDir(), COVERAGE_FILE), JSON.stringify(coverage));
}

async function main() {
  const out = svgTextFontDir();
  fs.mkdirSync(out, { recursive: true });
  for (const [source, subset] of Object.entries(SVG_TEXT_FONTS)) {
    const bytes = await subsetFont(fs.readFileSync(path.join(bundledFontDir(), source)), SVG_TEXT_CHARACTERS, { targetFormat: 'truetype' });
    fs.writeFileSync(path.join(out, subset), bytes);
  }
  // The fonts for Japanese, Chinese, Korean, Thai, Devanagari and emoji (shared/script-fonts.ts): about a second.
  await buildScriptFonts();
}

if (require.main === module)
  main().catch((error) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  });
