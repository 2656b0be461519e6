import fs from 'node:fs';
import path from 'node:path';

/**
 * The theme families (Arial, Segoe UI, Calibri) are not free to ship, so each is registered as an
 * alias of DejaVu Sans: every machine renders with the same metrics whatever it has installed, and
 * the SVG still names a real family. Missing fonts fail loudly instead of drawing boxes.
 */
export const FONT_ALIASES = ['DejaVu Sans', 'Arial', 'Segoe UI', 'Calibri', 'Helvetica Neue', 'Helvetica', 'sans-serif'];
const FILES = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'];

/** The regular and bold font files in `dir` (VISUAL_FONT_DIR); throws naming what is missing. */
export function fontFiles(dir: string): string[] {
  const files = FILES.map((name) => path.join(dir, name));
  const missing = files.filter((file) => !fs.existsSync(file));
  if (missing.length) throw new Error(`Font file(s) ${missing.join(', ')} missing: install fonts-dejavu-core or set VISUAL_FONT_DIR`);
  return files;
}
