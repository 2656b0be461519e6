/**
 * The mutation scores of docs/testing.md. Stryker's results are a cache, not history: each part
 * (stryker.focus.mjs) keeps them in `.stryker-incremental/<part>.json` (git-ignored; a missing one
 * only makes the part's next run test every mutant again). What the docs table needs, the counts per
 * file, is kept in git in `tests/mutation/scores.json`: when a part's run ends, `npm run
 * mutation:focus` runs this script (`postmutation:focus`), which replaces that part's rows with its
 * new results, then scripts/docs-tables.ts, which writes the table from them. A whole run (`npm run
 * mutation`, `.stryker-incremental/incremental.json`) is not summarised: the parts are the newer
 * results here.
 */
import fs from 'node:fs';
import path from 'node:path';

type Status = 'Killed' | 'Timeout' | 'Survived' | 'NoCoverage' | 'CompileError' | 'RuntimeError' | 'Ignored' | 'Pending';
export interface MutationReport {
  files: Record<string, { mutants: { status: Status }[] }>;
}

export interface FileScore {
  file: string;
  part: string;
  mutants: number;
  /** Left out of the score: static mutants (ignoreStatic) and mutants that do not compile or fail to load. */
  leftOut: number;
  killed: number;
  timedOut: number;
  survived: number;
  notReached: number;
}

/** The committed summary: per source file, the part that ran it and its counts. */
export type MutationSummary = Record<string, Omit<FileScore, 'file'>>;

export function fileScores(part: string, report: MutationReport): FileScore[] {
  return Object.entries(report.files).map(([file, { mutants }]) => {
    const count = (...statuses: Status[]) => mutants.filter((m) => statuses.includes(m.status)).length;
    return {
      file,
      part,
      mutants: mutants.length,
      leftOut: count('Ignored', 'CompileError', 'RuntimeError'),
      killed: count('Killed'),
      timedOut: count('Timeout'),
      survived: count('Survived'),
      notReached: count('NoCoverage'),
    };
  });
}

/**
 * The summary with `part`'s rows replaced by its new results (a file the part no longer mutates
 * goes), the other parts' rows kept. A file another part holds is a mistake in the parts: refused.
 */
export function withPart(summary: MutationSummary, part: string, report: MutationReport): MutationSummary {
  const kept = Object.entries(summary).filter(([, s]) => s.part !== part);
  const held = new Map(kept.map(([file, s]) => [file, s.part]));
  const fresh = fileScores(part, report).map(({ file, ...s }): [string, Omit<FileScore, 'file'>] => {
    if (held.has(file)) throw new Error(`${file} is in two parts' results (${held.get(file)} and ${part})`);
    return [file, s];
  });
  return Object.fromEntries([...kept, ...fresh].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Stryker's mutation score: the mutants found (killed or timed out) among those tested or not reached. */
export function score(s: Pick<FileScore, 'killed' | 'timedOut' | 'survived' | 'notReached'>): number | undefined {
  const valid = s.killed + s.timedOut + s.survived + s.notReached;
  return valid ? ((s.killed + s.timedOut) / valid) * 100 : undefined;
}

const percent = (value: number | undefined) => (value === undefined ? '—' : `${value.toFixed(1)} %`);

function row(label: string, s: Omit<FileScore, 'file' | 'part'>, part: string): string {
  return `| ${label} | ${part} | ${s.mutants} | ${s.leftOut} | ${s.killed} | ${s.timedOut} | ${s.survived} | ${s.notReached} | ${percent(score(s))} |`;
}

function total(scores: Omit<FileScore, 'file' | 'part'>[]): Omit<FileScore, 'file' | 'part'> {
  const sum = (key: 'mutants' | 'leftOut' | 'killed' | 'timedOut' | 'survived' | 'notReached') => scores.reduce((n, s) => n + s[key], 0);
  return {
    mutants: sum('mutants'),
    leftOut: sum('leftOut'),
    killed: sum('killed'),
    timedOut: sum('timedOut'),
    survived: sum('survived'),
    notReached: sum('notReached'),
  };
}

const ROOT = path.resolve(__dirname, '..', '..');
/** Where the parts' Stryker results live (stryker.config.mjs, stryker.focus.mjs): a git-ignored cache. */
export const INCREMENTAL_DIR = path.join(ROOT, '.stryker-incremental');
export const SUMMARY_FILE = path.join(ROOT, 'tests', 'mutation', 'scores.json');
/** The part `npm run mutation:focus` runs when STRYKER_PART is unset (stryker.focus.mjs has the same default). */
export const DEFAULT_PART = 'sync';
/** The services mutation testing covers (stryker.config.mjs mutates their sources). */
const SERVICES = ['identity', 'payment'];

export const readSummary = (file = SUMMARY_FILE): MutationSummary => JSON.parse(fs.readFileSync(file, 'utf8')) as MutationSummary;

/** Written as JSON.stringify lays it out (Prettier leaves it so). */
export const summaryText = (summary: MutationSummary) => `${JSON.stringify(summary, null, 2)}\n`;

function sourcesOf(service: string): string[] {
  const directory = path.join(ROOT, 'functions', service);
  return (fs.readdirSync(directory, { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `functions/${service}/${name.split(path.sep).join('/')}`);
}

/**
 * Per file and per service, from the summary; a source file no part has tested yet is listed as
 * such, so a service's total never reads as complete while it is not.
 */
export function mutationScoreTable(summary: MutationSummary = readSummary()): string {
  const lines = ['| File | Part | Mutants | Left out | Killed | Timed out | Survived | Not reached | Score |', '|---|---|---|---|---|---|---|---|---|'];
  for (const service of SERVICES) {
    const files = sourcesOf(service).sort();
    const tested = files.flatMap((file) => summary[file] ?? []);
    for (const file of files) {
      const s = summary[file];
      const label = `\`${file.replace('functions/', '')}\``;
      lines.push(s ? row(label, s, s.part) : `| ${label} | not run yet | | | | | | | |`);
    }
    const missing = files.length - tested.length;
    lines.push(row(`**${service}: ${tested.length} of ${files.length} files${missing ? ', the rest not run yet' : ''}**`, total(tested), ''));
  }
  return lines.join('\n');
}

/** After a part's run: its results from the cache into the committed summary. */
export function recordPart(part: string, { cache = INCREMENTAL_DIR, summaryFile = SUMMARY_FILE } = {}): MutationSummary {
  const results = path.join(cache, `${part}.json`);
  if (!fs.existsSync(results)) throw new Error(`${results} is missing: run the part first (STRYKER_PART=${part} npm run mutation:focus)`);
  const summary = withPart(fs.existsSync(summaryFile) ? readSummary(summaryFile) : {}, part, JSON.parse(fs.readFileSync(results, 'utf8')) as MutationReport);
  fs.writeFileSync(summaryFile, summaryText(summary));
  return summary;
}

if (require.main === module) {
  const part = process.argv[2] ?? process.env.STRYKER_PART ?? DEFAULT_PART;
  try {
    const summary = recordPart(part);
    const files = Object.values(summary).filter((s) => s.part === part).length;
    process.stdout.write(`${path.relative(ROOT, SUMMARY_FILE)}: part ${part} recorded (${files} files)\n`);
  } catch (error) {
    process.stderr.write(`mutation-scores: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
