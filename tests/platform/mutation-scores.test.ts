import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileScores, mutationScoreTable, score, type MutationReport } from '../../scripts/mutation-scores';

const report = (files: Record<string, string[]>): MutationReport => ({
  files: Object.fromEntries(
    Object.entries(files).map(([file, statuses]) => [file, { mutants: statuses.map((status) => ({ status })) }]),
  ) as MutationReport['files'],
});

test('a file is scored as Stryker scores it: found (killed, timed out) among found, survived and not reached', () => {
  const [s] = fileScores(
    'part',
    report({ 'functions/payment/a.ts': ['Killed', 'Killed', 'Timeout', 'Survived', 'NoCoverage', 'CompileError', 'Ignored', 'RuntimeError'] }),
  );
  expect(s).toEqual({ file: 'functions/payment/a.ts', part: 'part', mutants: 8, leftOut: 3, killed: 2, timedOut: 1, survived: 1, notReached: 1 });
  expect(score(s)).toBe(60);
  expect(score({ killed: 0, timedOut: 0, survived: 0, notReached: 0 })).toBeUndefined();
});

describe('the table of docs/testing.md', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mutation-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, files: Record<string, string[]>) => fs.writeFileSync(path.join(dir, name), JSON.stringify(report(files)));

  test('lists every source file, says which no part has run, and totals only what ran', () => {
    write('guards.json', { 'functions/identity/guards.ts': ['Killed', 'Killed', 'Killed', 'Survived', 'Ignored'] });
    write('sync.json', { 'functions/payment/plan-sync.ts': ['Killed', 'Timeout', 'Survived', 'Survived'] });
    // A whole run's results are older than the parts' here and are not read.
    write('incremental.json', { 'functions/payment/plan-sync.ts': ['Survived'] });
    const table = mutationScoreTable(dir).split('\n');
    expect(table).toContain('| `identity/guards.ts` | guards | 5 | 1 | 3 | 0 | 1 | 0 | 75.0 % |');
    expect(table).toContain('| `payment/plan-sync.ts` | sync | 4 | 0 | 1 | 1 | 2 | 0 | 50.0 % |');
    expect(table).toContain('| `identity/login.ts` | not run yet | | | | | | | |');
    expect(table.find((line) => line.startsWith('| **identity:'))).toMatch(
      /^\| \*\*identity: 1 of \d+ files, the rest not run yet\*\* \| {2}\| 5 \| 1 \| 3 \| 0 \| 1 \| 0 \| 75\.0 % \|$/,
    );
    expect(table.find((line) => line.startsWith('| **payment:'))).toMatch(/\| 4 \| 0 \| 1 \| 1 \| 2 \| 0 \| 50\.0 % \|$/);
  });

  test('a file in two parts is refused', () => {
    write('a.json', { 'functions/payment/webhook.ts': ['Killed'] });
    write('b.json', { 'functions/payment/webhook.ts': ['Survived'] });
    expect(() => mutationScoreTable(dir)).toThrow('functions/payment/webhook.ts is in two parts');
  });
});
