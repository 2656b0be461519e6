import fs from 'node:fs';
import path from 'node:path';
import { once } from '../../shared/once';

/**
 * Colour schemes by name, as chartjs-plugin-colorschemes names them (QuickChart bundles it; it has
 * no Chart.js 4 version): `<category>.<scheme>`, every scheme of the plugin's own table (ColorBrewer,
 * Office, Tableau). `npm run build` writes the table from the plugin's source
 * (scripts/build-color-schemes.ts). QuickChart colours Chart.js 2 charts with tableau.Tableau10
 * unless told otherwise.
 */
export type ColorSchemeTable = Record<string, Record<string, string[]>>;

export const COLOR_SCHEMES_FILE = path.join(__dirname, 'color-schemes.json');
export const DEFAULT_SCHEME = 'tableau.Tableau10';

/** The plugin's table, read once (a missing file is a build that did not finish: it fails loudly). */
export const colorSchemeTable = once((): Readonly<ColorSchemeTable> => JSON.parse(fs.readFileSync(COLOR_SCHEMES_FILE, 'utf8')) as ColorSchemeTable);

const NUMBERED = ['One', 'Two', 'Three'];

/**
 * The plugin's own spelling of a name: it still reads the names of its earlier versions,
 * `brewer.Set1-9` as `brewer.SetOne9` (`<name><1-3>-<count>`) and `office.Office2007-2010-6` as
 * `office.OfficeClassic6`, so they are read here too.
 */
function canonicalName(name: string): string {
  if (name === 'office.Office2007-2010-6') return 'office.OfficeClassic6';
  const dash = name.lastIndexOf('-');
  if (!name.startsWith('brewer.') || dash < 0) return name;
  const count = name.slice(dash + 1);
  const digit = name.charAt(dash - 1);
  const base = name.slice('brewer.'.length, dash - 1);
  if (!/^\d+$/.test(count) || !'123'.includes(digit) || digit === '' || !/^\w+$/.test(base)) return name;
  return `brewer.${base}${NUMBERED[Number(digit) - 1]}${count}`;
}

/** The colours of a scheme by its name (`brewer.Paired12`, `office.Excel16`...), or undefined for a name the plugin does not know. */
export function colorScheme(name: string): readonly string[] | undefined {
  const [category, scheme, ...rest] = canonicalName(name).split('.');
  if (rest.length || !category || !scheme) return undefined;
  const schemes = Object.prototype.hasOwnProperty.call(colorSchemeTable(), category) ? colorSchemeTable()[category] : undefined;
  return schemes && Object.prototype.hasOwnProperty.call(schemes, scheme) ? schemes[scheme] : undefined;
}

/** How many schemes the table holds (for messages). */
export const colorSchemeCount = (): number => Object.values(colorSchemeTable()).reduce((sum, schemes) => sum + Object.keys(schemes).length, 0);
