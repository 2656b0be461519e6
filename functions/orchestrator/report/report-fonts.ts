import path from 'node:path';
import { once } from '../../../shared/once';
import { scriptFontDraws, scriptFontFile, scriptFontsBuilt, scriptFontsFor, type ScriptFont } from '../../../shared/script-fonts';

/**
 * The report's fonts: DejaVu Sans (regular and bold; the layout sets no italics) from the `dejavu-fonts-ttf` package, the
 * family the visual service draws the charts with. It covers Latin with its extensions, Greek,
 * Cyrillic, Armenian, Georgian, Hebrew, basic Arabic and most symbols. After it come the script
 * fonts (shared/script-fonts.ts: Noto Sans JP, SC, KR, Thai, Devanagari and Noto Emoji, one
 * weight each), loaded only for a report whose text holds their characters. Every font is embedded
 * (subset) in the PDF; nothing depends on fonts installed on a machine (Flex Consumption has none).
 */
export const REPORT_FONT_FAMILY = 'DejaVu Sans';
const FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'];

export const reportFontFiles = () => {
  const dir = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  return FILES.map((name) => path.join(dir, name));
};

/** Code points every report font draws (regular and bold alike): read once from the fonts' character maps. */
const coveredCodePoints = once((): ReadonlySet<number> => {
  // fontkit (pdfkit's font reader) loads only when a text leaves Latin-1, which most reports never do.
  const fontkit = require('fontkit') as { openSync(file: string): { characterSet: number[] } };
  const [regular, ...others] = reportFontFiles().map((file) => new Set(fontkit.openSync(file).characterSet));
  return new Set([...regular].filter((cp) => others.every((font) => font.has(cp))));
});

/** Scripts named when the fonts cannot draw them (Unicode script names), in the order they are tried. */
const SCRIPTS = [
  'Han',
  'Hiragana',
  'Katakana',
  'Hangul',
  'Thai',
  'Lao',
  'Khmer',
  'Myanmar',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Tibetan',
  'Ethiopic',
  'Arabic',
  'Hebrew',
  'Syriac',
  'Thaana',
  'Armenian',
  'Georgian',
  'Mongolian',
].map((name) => ({ name, pattern: new RegExp(`\\p{Script=${name}}`, 'u') }));

function scriptOf(char: string): string {
  if (/\p{Extended_Pictographic}/u.test(char)) return 'Emoji';
  return SCRIPTS.find((s) => s.pattern.test(char))?.name ?? 'Symbols';
}

/**
 * Blocks every report font draws in full (each assigned character that is neither a control nor a
 * format character): Basic Latin, Latin-1, Latin Extended-A and -B, IPA, Greek, Cyrillic and the
 * general punctuation. Text within them skips the fonts' character maps, so most reports never load
 * fontkit (about 150 ms); tests/orchestrator/report-words.test.ts checks the claim against the fonts.
 */
export const FULLY_COVERED_BLOCKS: [number, number][] = [
  [0x20, 0x7e],
  [0xa0, 0x2af],
  [0x370, 0x4ff],
  [0x2010, 0x205e],
];
const FAST_PATH = new RegExp(`^[${FULLY_COVERED_BLOCKS.map(([a, b]) => `\\u{${a.toString(16)}}-\\u{${b.toString(16)}}`).join('')}]*$`, 'u');
const UNASSIGNED_OR_FORMAT = /[\p{Cn}\p{Cf}]/u;

/** Whether every report font draws this character (read from the fonts' character maps). */
export const fontsDraw = (char: string) => coveredCodePoints().has(char.codePointAt(0)!);

/** The script fonts a text needs (none when the build has not written them: the placeholder stands in). */
export const reportScriptFonts = (text: string): ScriptFont[] => (scriptFontsBuilt() ? scriptFontsFor(text) : []);
export { scriptFontFile };

/** Whether DejaVu Sans (regular and bold) or a script font (built) draws this code point. */
const drawn = (codePoint: number) => coveredCodePoints().has(codePoint) || (scriptFontsBuilt() && scriptFontDraws(codePoint));

/** Characters never printed: controls other than the space (tabs and line ends become spaces first). */
// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/** Combining marks, joiners and variation selectors: they belong to the character before them. */
const JOINING = /^(?:\p{M}|\u200c|\u200d|\ufe0f)$/u;
/** Zero-width (non-)joiners and variation selectors. */
const isSelector = (char: string) => {
  const cp = char.codePointAt(0)!;
  return cp === 0x200c || cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f);
};

export interface FontFallback {
  /** Scripts some submitted text was written in that the fonts cannot draw. */
  scripts: Set<string>;
  /** The text with each run of characters the fonts lack replaced by the script's name in brackets: "[Thai] Holdings". */
  fit(text: string): string;
}

/**
 * A clear fallback for text in a script no shipped font covers (Ethiopic, Tamil, a rare
 * ideograph...): never a box or a wrong glyph (mojibake), but the script's name in brackets, and
 * the cover says so. PDF/UA also forbids text a font cannot show, so nothing reaches the
 * typesetter that the fonts lack. Japanese, Chinese, Korean, Thai, Hindi and emoji are drawn.
 */
export function fontFallback(): FontFallback {
  const scripts = new Set<string>();
  return {
    scripts,
    fit(text) {
      const clean = text.replace(/[\t\r\n]+/g, ' ').replace(CONTROLS, '');
      if (FAST_PATH.test(clean) && !UNASSIGNED_OR_FORMAT.test(clean)) return clean;
      let out = '';
      let run: string | null = null;
      for (const char of clean) {
        // A joiner or variation selector after a drawn character stays with it (the shaper uses it: emoji sequences, Devanagari).
        if (run === null && out && isSelector(char)) {
          out += char;
          continue;
        }
        // Combining marks and joiners stay with the run they belong to.
        if (drawn(char.codePointAt(0)!) && !(run && JOINING.test(char))) {
          run = null;
          out += char;
          continue;
        }
        const script: string = run ?? scriptOf(char);
        if (run === null) {
          scripts.add(script);
          out += `[${script}]`;
        }
        run = script;
      }
      return out;
    },
  };
}
