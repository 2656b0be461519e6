import fs from 'node:fs';
import path from 'node:path';

/**
 * Fonts for the scripts DejaVu Sans lacks: Japanese, Chinese, Korean, Thai, Devanagari and emoji.
 * Built by `npm run build` (scripts/build-fonts.ts) from npm packages (Noto, SIL Open Font
 * License) as TrueType subsets, one weight each, into dist/shared/fonts, which the deployment
 * package ships; the source packages are development dependencies only.
 *
 * Both the visual service (charts) and the orchestrator (the PDF report) use them, and both load
 * a font only when a text holds a character it is for (`scriptFontsFor`): a service drawing Latin
 * never reads them, so neither its cold start nor its memory grows. Hebrew and Arabic are drawn by
 * DejaVu Sans itself.
 */
export interface ScriptFont {
  /** Short id: the file's stem and the key of the coverage manifest. */
  id: 'ja' | 'zh' | 'ko' | 'thai' | 'deva' | 'emoji';
  /** The font's own family name: what an SVG names and what Typst and Skia look it up by. */
  family: string;
  /** Characters this font is loaded for. */
  wanted: RegExp;
}

const HAN = '\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff';

/**
 * In the order a family list tries them. Han is drawn with the Japanese font where it has the
 * character (JIS X 0208) and with the Chinese one otherwise (GB 2312 and Big5 ideographs it adds):
 * both are Source Han Sans designs, so a Chinese text mixing them reads as one face.
 */
export const SCRIPT_FONTS: readonly ScriptFont[] = [
  { id: 'ja', family: 'Noto Sans JP', wanted: new RegExp(`[\\u3000-\\u30ff\\u31f0-\\u31ff\\uff00-\\uffef${HAN}]`) },
  { id: 'zh', family: 'Noto Sans SC', wanted: new RegExp(`[${HAN}\\u3100-\\u312f]`) },
  { id: 'ko', family: 'Noto Sans KR', wanted: /[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af]/ },
  { id: 'thai', family: 'Noto Sans Thai', wanted: /[\u0e00-\u0e7f]/ },
  // eslint-disable-next-line no-misleading-character-class -- code point ranges, marks included on purpose
  { id: 'deva', family: 'Noto Sans Devanagari', wanted: /[\u0900-\u097f\ua8e0-\ua8ff\u1cd0-\u1cff]/ },
  { id: 'emoji', family: 'Noto Emoji', wanted: /[\u{1f000}-\u{1faff}]|\p{Emoji_Presentation}/u },
];

/** Text no script font is for: nothing from U+0900 on but the general punctuation and currency signs (Latin, Greek, Cyrillic, Hebrew, Arabic...). */
// eslint-disable-next-line no-misleading-character-class -- code point ranges, marks included on purpose
const NONE_NEEDED = /^[^\u0900-\u1fff\u20d0-\u{10ffff}]*$/u;

/** The script fonts a text needs, in family-list order (none for Latin text, tested first). */
export function scriptFontsFor(text: string): ScriptFont[] {
  if (NONE_NEEDED.test(text)) return [];
  return SCRIPT_FONTS.filter((font) => font.wanted.test(text));
}

/** Where the build writes the fonts (dist/shared/fonts; this file is dist/shared/script-fonts.js). */
export const scriptFontDir = () => path.join(__dirname, 'fonts');
export const scriptFontFile = (font: Pick<ScriptFont, 'id'>) => path.join(scriptFontDir(), `${font.id}.ttf`);
/** The manifest of the code points each font draws, as [first, last] ranges (written with the fonts). */
export const COVERAGE_FILE = 'coverage.json';

/** Whether the build wrote the fonts (a checkout that has not run `npm run build` has none). */
let built: boolean | undefined;
export const scriptFontsBuilt = () => (built ??= SCRIPT_FONTS.every((font) => fs.existsSync(scriptFontFile(font))));

let coverage: Map<string, [number, number][]> | undefined;

/** Whether a script font draws this code point (from the manifest, read once, only when a text leaves Latin). */
export function scriptFontDraws(codePoint: number, fonts: readonly ScriptFont[] = SCRIPT_FONTS): boolean {
  if (!coverage) {
    const file = path.join(scriptFontDir(), COVERAGE_FILE);
    coverage = new Map(fs.existsSync(file) ? Object.entries(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, [number, number][]>) : []);
  }
  return fonts.some((font) => {
    const ranges = coverage!.get(font.id) ?? [];
    let lo = 0;
    let hi = ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (codePoint < ranges[mid][0]) hi = mid - 1;
      else if (codePoint > ranges[mid][1]) lo = mid + 1;
      else return true;
    }
    return false;
  });
}

/** A CSS font-family list with script families added before its generic family (or at its end): `Arial, Noto Sans JP, sans-serif`. */
export function withScriptFamilies(list: string, families: readonly string[]): string {
  if (!families.length) return list;
  const parts = list.split(',').map((part) => part.trim());
  const generic = parts.findIndex((part) => /^(?:serif|sans-serif|monospace|system-ui|cursive|fantasy)$/i.test(part));
  const at = generic < 0 ? parts.length : generic;
  return [...parts.slice(0, at), ...families, ...parts.slice(at)].join(', ');
}
