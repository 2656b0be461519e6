/** Rewrites the generated tables: settings in README.md, functions in docs/architecture.md. */
import fs from 'node:fs';
import path from 'node:path';
import { functionTable } from '../functions/route-table';
import { settingsTable } from '../shared/config/table';
import { replaceGeneratedBlock } from '../shared/markdown';

const ROOT = path.resolve(__dirname, '..', '..');
export const GENERATED: { file: string; block: string; content: () => string }[] = [
  { file: 'README.md', block: 'settings', content: settingsTable },
  { file: 'docs/architecture.md', block: 'functions', content: functionTable },
];

if (require.main === module) {
  for (const { file, block, content } of GENERATED) {
    const full = path.join(ROOT, file);
    fs.writeFileSync(full, replaceGeneratedBlock(fs.readFileSync(full, 'utf8'), block, content()));
    process.stdout.write(`updated ${file} (${block})\n`);
  }
}
