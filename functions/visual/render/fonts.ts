import fs from 'node:fs';
import path from 'node:path';

export const FONT_DIR = '/usr/share/fonts/truetype/dejavu';
const REGULAR = path.join(FONT_DIR, 'DejaVuSans.ttf');
const BOLD = path.join(FONT_DIR, 'DejaVuSans-Bold.ttf');

/**
 * The theme families (Arial, Segoe UI, Calibri) are not free to ship, so each is registered as an
 * alias of DejaVu Sans: every machine renders with the same metrics whatever it has installed, and
 * the SVG still names the theme's family. Missing fonts fail loudly instead of drawing boxes.
 */
export const FONT_ALIASES = ['DejaVu Sans', 'Arial', 'Segoe UI', 'Calibri', 'Helvetica Neue', 'Helvetica', 'sans-serif'];

export function fontFiles(): string[] {
  for (const file of [REGULAR, BOLD]) {
    if (!fs.existsSync(file)) throw new Error(`Font ${file} is missing (install fonts-dejavu-core)`);
  }
  return [REGULAR, BOLD];
}
