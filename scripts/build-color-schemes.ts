/**
 * Writes the colour scheme table of chartjs-plugin-colorschemes (the plugin QuickChart bundles) as
 * JSON into dist/functions/visual (part of the deployed package). Run by `npm run build`.
 *
 * Why from the plugin's source: QuickChart's users name any of its schemes (`office.Excel16`,
 * `brewer.YlGnBu9`, `tableau.Tableau20`...), so the table is the plugin's own, not a hand list.
 * The plugin itself cannot be loaded (it registers itself with Chart.js 2), so its data files are
 * read as JavaScript by acorn, and only array literals of strings are taken: nothing is evaluated.
 */
import fs from 'node:fs';
import path from 'node:path';
import { COLOR_SCHEMES_FILE, type ColorSchemeTable } from '../functions/visual/color-schemes';

/** The plugin's data files, one per category: src/colorschemes/colorschemes.<category>.js. */
export function pluginSchemeFiles(): { category: string; file: string }[] {
  const dir = path.join(path.dirname(require.resolve('chartjs-plugin-colorschemes/package.json')), 'src', 'colorschemes');
  return fs
    .readdirSync(dir)
    .map((name) => /^colorschemes\.(\w+)\.js$/.exec(name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ category: match[1], file: path.join(dir, match[0]) }))
    .sort((a, b) => a.category.localeCompare(b.category));
}

interface Node {
  type: string;
  [key: string]: unknown;
}

/** `export var Name = ['#...', ...], ...` declarations of one file: each name and its colours. */
export function readSchemes(source: string, file: string): Record<string, string[]> {
  const acorn = require('acorn') as typeof import('acorn');
  const program = acorn.parse(source, { ecmaVersion: 'latest', sourceType: 'module' }) as unknown as { body: Node[] };
  const schemes: Record<string, string[]> = {};
  for (const statement of program.body) {
    if (statement.type !== 'ExportNamedDeclaration') continue;
    const declaration = statement.declaration as { declarations?: { id: Node & { name?: string }; init: Node & { elements?: Node[] } }[] } | null;
    for (const declarator of declaration?.declarations ?? []) {
      const colors = (declarator.init?.elements ?? []).map((element) => (element.type === 'Literal' ? element.value : undefined));
      if (!declarator.id.name || declarator.init?.type !== 'ArrayExpression' || !colors.every((c): c is string => typeof c === 'string'))
        throw new Error(`${file}: export ${declarator.id.name ?? '?'} is not an array of colour strings`);
      schemes[declarator.id.name] = colors;
    }
  }
  if (!Object.keys(schemes).length) throw new Error(`${file}: no colour schemes found`);
  return schemes;
}

export function pluginSchemeTable(): ColorSchemeTable {
  return Object.fromEntries(pluginSchemeFiles().map(({ category, file }) => [category, readSchemes(fs.readFileSync(file, 'utf8'), file)]));
}

if (require.main === module) {
  try {
    fs.mkdirSync(path.dirname(COLOR_SCHEMES_FILE), { recursive: true });
    fs.writeFileSync(COLOR_SCHEMES_FILE, JSON.stringify(pluginSchemeTable()));
  } catch (error) {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  }
}
