/**
 * npm run test:changed [-- <base>]   the inner loop: only the tests that reach what changed
 *
 * The tests run compiled (dist/), which git does not track, so jest's own --changedSince finds
 * nothing. This asks git instead: every file changed since `base` (default `main`; committed,
 * staged, unstaged or new), mapped to what the build made of it (`x.ts` → `dist/x.js`), and hands
 * them to jest's --findRelatedTests, which follows the imports of the compiled files to the test
 * files that load them. A changed test file runs itself. Run after `npm run build` (the npm script
 * builds first). Files the build does not compile (docs, SQL, Bicep) have no related tests here:
 * the whole suite (`npm test`) remains the check before a merge.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../devhost/paths';

const git = (...args: string[]) => execFileSync('git', args, { cwd: PROJECT_ROOT, encoding: 'utf8' });

/** Paths (relative to the project) changed since the merge base with `base`, and those not yet committed. */
export function changedFiles(base: string): string[] {
  const since = git('merge-base', base, 'HEAD').trim();
  const listed = [git('diff', '--name-only', since), git('ls-files', '--others', '--exclude-standard')].join('\n');
  return [...new Set(listed.split('\n').filter(Boolean))];
}

/** The compiled files of the changed TypeScript sources that exist in dist/ (the console is bundled apart and left out). */
export function compiledOf(files: string[]): string[] {
  return files
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts') && !file.startsWith('console/'))
    .map((file) => path.join(PROJECT_ROOT, 'dist', file.replace(/\.tsx?$/, '.js')))
    .filter((file) => fs.existsSync(file));
}

function main(): void {
  const base = process.argv[2] ?? 'main';
  const compiled = compiledOf(changedFiles(base));
  if (!compiled.length) {
    console.log(`test:changed: no compiled source changed since ${base}; nothing to run (npm test runs everything)`);
    return;
  }
  console.log(`test:changed: ${compiled.length} changed file(s) since ${base}; running the tests that reach them`);
  const jest = require.resolve('jest/bin/jest');
  const result = spawnSync(process.execPath, [jest, '--passWithNoTests', '--findRelatedTests', ...compiled], { cwd: PROJECT_ROOT, stdio: 'inherit' });
  process.exitCode = result.status ?? 1;
}

if (require.main === module) main();
