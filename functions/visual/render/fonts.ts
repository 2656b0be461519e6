import fs from 'node:fs';
import path from 'node:path';

/**
 * The theme families (Arial, Segoe UI, Calibri) are not free to ship, so each is registered as an
 * alias of DejaVu Sans: every machine renders with the same metrics whatever it has installed, and
 * the SVG still names a real family. Missing fonts fail loudly instead of drawing boxes.
 */
/** What the render threads register: the folder of the DejaVu files and any extra font files. */
export interface RenderFonts {
  dir: string;
  extra: string[];
  /**
   * The script fonts (shared/script-fonts.ts: Japanese, Chinese, Korean, Thai, Devanagari, emoji)
   * the threads may load, each only when a task's text holds its characters; none when the build
   * did not write them.
   */
  scripts?: { id: string; family: string; file: string }[];
  /** Subsets of the regular and bold files that SVG text is drawn with first (see svgTextFonts); none: SVG text uses the full fonts. */
  svgText?: string[];
}

export const FONT_ALIASES = ['DejaVu Sans', 'Arial', 'Segoe UI', 'Calibri', 'Helvetica Neue', 'Helvetica', 'sans-serif'];
const FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'];

/**
 * The fonts come from npm (`dejavu-fonts-ttf`), never from the operating system: Flex Consumption,
 * macOS and Windows have no DejaVu, and Flex has no package manager to add it.
 */
export function bundledFontDir(): string {
  return path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
}

/**
 * SVG text is drawn with subsets of DejaVu Sans first, the full fonts after them: Skia's SVG canvas
 * pays for the whole font's glyph table on every text (112 µs per fillText with DejaVu Sans, 35
 * with the subset), and the subsets keep the full fonts' names, outlines and metrics, so the SVG
 * shows the same. Written by `npm run build` (scripts/build-fonts.ts) from the bundled files only.
 */
export const SVG_TEXT_FAMILY = 'DejaVu Sans SVG text';
export const SVG_TEXT_FONTS: Record<string, string> = { 'DejaVuSans.ttf': 'DejaVuSans-svg-text.ttf', 'DejaVuSans-Bold.ttf': 'DejaVuSans-Bold-svg-text.ttf' };
export const svgTextFontDir = () => path.join(__dirname, '..', 'fonts');

/** The subsets, when the fonts in use are the bundled ones and the build wrote them; otherwise none. */
export function svgTextFonts(fontDir: string): string[] {
  if (path.resolve(fontDir) !== path.resolve(bundledFontDir())) return [];
  const files = Object.values(SVG_TEXT_FONTS).map((name) => path.join(svgTextFontDir(), name));
  return files.every((file) => fs.existsSync(file)) ? files : [];
}

const ALIASES: ReadonlySet<string> = new Set(FONT_ALIASES.map((family) => family.toLowerCase()));

/** A CSS font-family list with the SVG text subsets in front, when its first family is drawn with DejaVu Sans (other families are left alone). */
export function withSvgTextFamily(family: string): string {
  const first = family
    .split(',')[0]
    .trim()
    .replace(/^["']|["']$/g, '')
    .toLowerCase();
  return ALIASES.has(first) ? `"${SVG_TEXT_FAMILY}", ${family}` : family;
}

const GENERIC_FAMILIES: ReadonlySet<string> = new Set(['serif', 'sans-serif', 'monospace', 'cursive', 'fantasy', 'system-ui']);

/**
 * The `font-family` an SVG written by our SVG context names for a CSS family list: each family
 * drawn with DejaVu Sans (the aliases) as `DejaVu Sans`, which is what measured the text, an extra
 * font's alias as the font's own name (`ownNames`, by lower-case alias), other families as they
 * are, and a generic family kept last, so a viewer without these fonts still draws a sans-serif.
 * Names other than plain words are quoted.
 */
export function svgFontFamily(list: string, ownNames: ReadonlyMap<string, string> = new Map()): string {
  const names: string[] = [];
  let generic: string | undefined;
  for (const part of list.split(',')) {
    const name = part.trim().replace(/^["']|["']$/g, '');
    if (!name) continue;
    const lower = name.toLowerCase();
    if (GENERIC_FAMILIES.has(lower)) generic ??= lower;
    const drawnWith = ALIASES.has(lower) ? 'DejaVu Sans' : GENERIC_FAMILIES.has(lower) ? undefined : (ownNames.get(lower) ?? name);
    if (drawnWith && !names.includes(drawnWith)) names.push(drawnWith);
  }
  if (generic === 'sans-serif' && !names.includes('DejaVu Sans')) names.unshift('DejaVu Sans');
  const quoted = names.map((name) => (/^[A-Za-z][\w -]*$/.test(name) ? name : `'${name.replace(/['\\]/g, '')}'`));
  return [...quoted, ...(generic ? [generic] : [])].join(', ');
}

/** The regular and bold font files in `dir` (VISUAL_FONT_DIR, else the bundled fonts); throws naming what is missing. */
export function fontFiles(dir: string): string[] {
  const files = FILES.map((name) => path.join(dir, name));
  const missing = files.filter((file) => !fs.existsSync(file));
  if (missing.length)
    throw new Error(
      `Font file(s) ${missing.join(', ')} missing: VISUAL_FONT_DIR must name a folder holding ${FILES.join(' and ')} (unset, the fonts of the dejavu-fonts-ttf package are used)`,
    );
  return files;
}

/**
 * Extra font files for scripts DejaVu Sans lacks (CJK, Thai, Devanagari...): absolute paths, or
 * package paths resolved like `require` (`@fontsource/noto-sans-sc/files/...woff`). Throws naming
 * a file that is not there, so a typo fails at start instead of drawing boxes.
 */
export function extraFontFiles(setting: string | undefined): string[] {
  return (setting ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((spec) => {
      if (path.isAbsolute(spec)) {
        if (!fs.existsSync(spec)) throw new Error(`VISUAL_EXTRA_FONTS: font file ${spec} not found`);
        return spec;
      }
      try {
        return require.resolve(spec);
      } catch {
        throw new Error(`VISUAL_EXTRA_FONTS: font file ${spec} not found (give an absolute path or a path inside an installed package)`);
      }
    });
}

/** The family an extra font file is registered under: its file name, so SVG output names something readable. */
export const extraFontFamily = (file: string) => path.basename(file).replace(/\.[^.]+$/, '');

/** Appends the extra families to a CSS font-family list, so each glyph the first fonts lack is looked up in them. */
export const withFallbackFamilies = (family: string, extras: readonly string[]) =>
  extras.length ? `${family}, ${extras.map((f) => `"${f}"`).join(', ')}` : family;
