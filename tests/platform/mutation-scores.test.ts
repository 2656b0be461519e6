import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_PART, fileScores, mutationScoreTable, recordPart, score, summaryText, withPart, type MutationReport } from '../../scripts/mutation-scores';

const ROOT = path.resolve(__dirname, '..', '..', '..');

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

describe('the summary (tests/mutation/scores.json)', () => {
  test("a part's new results replace its own rows (a file it no longer mutates goes) and keep the other parts'", () => {
    let summary = withPart({}, 'guards', report({ 'functions/identity/guards.ts': ['Killed', 'Survived'] }));
    summary = withPart(summary, 'sync', report({ 'functions/payment/plan-sync.ts': ['Survived'], 'functions/payment/webhook.ts': ['Killed'] }));
    summary = withPart(summary, 'sync', report({ 'functions/payment/plan-sync.ts': ['Killed', 'Killed'] }));
    expect(summary).toEqual({
      'functions/identity/guards.ts': { part: 'guards', mutants: 2, leftOut: 0, killed: 1, timedOut: 0, survived: 1, notReached: 0 },
      'functions/payment/plan-sync.ts': { part: 'sync', mutants: 2, leftOut: 0, killed: 2, timedOut: 0, survived: 0, notReached: 0 },
    });
  });

  test('a file in two parts is refused', () => {
    const summary = withPart({}, 'a', report({ 'functions/payment/webhook.ts': ['Killed'] }));
    expect(() => withPart(summary, 'b', report({ 'functions/payment/webhook.ts': ['Survived'] }))).toThrow(
      "functions/payment/webhook.ts is in two parts' results (a and b)",
    );
  });

  describe('recorded after a run, from the cache', () => {
    let dir: string;
    beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mutation-'))));
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
    const files = () => ({ cache: path.join(dir, 'cache'), summaryFile: path.join(dir, 'scores.json') });

    test("the part's cached results go into the summary file, which the table reads", () => {
      fs.mkdirSync(files().cache);
      fs.writeFileSync(path.join(files().cache, 'guards.json'), JSON.stringify(report({ 'functions/identity/guards.ts': ['Killed', 'Timeout', 'Survived'] })));
      fs.writeFileSync(files().summaryFile, JSON.stringify(withPart({}, 'sync', report({ 'functions/payment/plan-sync.ts': ['Killed'] }))));
      const recorded = recordPart('guards', files());
      expect(JSON.parse(fs.readFileSync(files().summaryFile, 'utf8'))).toEqual(recorded);
      expect(Object.keys(recorded)).toEqual(['functions/identity/guards.ts', 'functions/payment/plan-sync.ts']);
      expect(mutationScoreTable(recorded).split('\n')).toContain('| `identity/guards.ts` | guards | 3 | 0 | 1 | 1 | 1 | 0 | 66.7 % |');
    });

    test('a part not run here (no cached results) is named, and the summary left as it was', () => {
      fs.writeFileSync(files().summaryFile, '{}\n');
      expect(() => recordPart('identity-login', files())).toThrow(/identity-login\.json is missing: run the part first \(STRYKER_PART=identity-login/);
      expect(fs.readFileSync(files().summaryFile, 'utf8')).toBe('{}\n');
    });
  });

  test("records the part npm run mutation:focus runs when STRYKER_PART is unset (stryker.focus.mjs's default)", () => {
    expect(fs.readFileSync(path.join(ROOT, 'stryker.focus.mjs'), 'utf8')).toContain(`const name = process.env.STRYKER_PART ?? '${DEFAULT_PART}';`);
  });
});

test('the table of docs/testing.md lists every source file, says which no part has run, and totals only what ran', () => {
  let summary = withPart({}, 'guards', report({ 'functions/identity/guards.ts': ['Killed', 'Killed', 'Killed', 'Survived', 'Ignored'] }));
  summary = withPart(summary, 'sync', report({ 'functions/payment/plan-sync.ts': ['Killed', 'Timeout', 'Survived', 'Survived'] }));
  const table = mutationScoreTable(summary).split('\n');
  expect(table).toContain('| `identity/guards.ts` | guards | 5 | 1 | 3 | 0 | 1 | 0 | 75.0 % |');
  expect(table).toContain('| `payment/plan-sync.ts` | sync | 4 | 0 | 1 | 1 | 2 | 0 | 50.0 % |');
  expect(table).toContain('| `identity/login.ts` | not run yet | | | | | | | |');
  expect(table.find((line) => line.startsWith('| **identity:'))).toMatch(
    /^\| \*\*identity: 1 of \d+ files, the rest not run yet\*\* \| {2}\| 5 \| 1 \| 3 \| 0 \| 1 \| 0 \| 75\.0 % \|$/,
  );
  expect(table.find((line) => line.startsWith('| **payment:'))).toMatch(/\| 4 \| 0 \| 1 \| 1 \| 2 \| 0 \| 50\.0 % \|$/);
});

test('the committed summary is laid out as the script writes it (one key per line, files in order), so a rerun changes only its rows', () => {
  const text = fs.readFileSync(path.join(ROOT, 'tests', 'mutation', 'scores.json'), 'utf8');
  const summary = JSON.parse(text);
  expect(text).toBe(summaryText(summary));
  expect(Object.keys(summary)).toEqual(Object.keys(summary).sort());
});
