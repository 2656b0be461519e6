/**
 * Rewrites what is generated from the code: the settings table in README.md, the function and
 * error-code tables and the import diagram in docs/architecture.md, the mutation scores in
 * docs/testing.md (from tests/mutation/scores.json), and functions/function-index.json (what the Azure
 * Functions entry point registers without loading the services).
 */
import fs from 'node:fs';
import path from 'node:path';
import { bodyLimitTable, functionIndex, functionTable } from './function-tables';
import { settingsTable } from './settings-table';
import { errorCodeTable } from './error-table';
import { replaceGeneratedBlock } from './markdown';
import { importDiagram } from './import-graph';
import { mutationScoreTable } from './mutation-scores';

const ROOT = path.resolve(__dirname, '..', '..');
export const GENERATED: { file: string; block: string; content: () => string }[] = [
  { file: 'README.md', block: 'settings', content: settingsTable },
  { file: 'docs/architecture.md', block: 'functions', content: functionTable },
  { file: 'docs/architecture.md', block: 'error-codes', content: errorCodeTable },
  { file: 'docs/limits.md', block: 'body-limits', content: bodyLimitTable },
  { file: 'docs/architecture.md', block: 'import-diagram', content: () => importDiagram() },
  { file: 'docs/testing.md', block: 'mutation-scores', content: () => mutationScoreTable() },
];

/** Files generated whole. */
export const GENERATED_FILES: { file: string; content: () => string }[] = [
  { file: 'functions/function-index.json', content: () => `${JSON.stringify(functionIndex(), null, 2)}\n` },
];

if (require.main === module) {
  for (const { file, block, content } of GENERATED) {
    const full = path.join(ROOT, file);
    fs.writeFileSync(full, replaceGeneratedBlock(fs.readFileSync(full, 'utf8'), block, content()));
    process.stdout.write(`updated ${file} (${block})\n`);
  }
  for (const { file, content } of GENERATED_FILES) {
    fs.writeFileSync(path.join(ROOT, file), content());
    process.stdout.write(`updated ${file}\n`);
  }
}
