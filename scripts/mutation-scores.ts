/**
 * The mutation scores table of docs/testing.md, from the results the mutation runs keep
 * (tests/mutation/<part>.json, committed; stryker.focus.mjs has the parts). Generated, so the page
 * cannot claim a score the kept results do not hold. `incremental.json` is left out: it holds what
 * a whole run (npm run mutation) last finished, and the parts are the newer results here.
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

/** Stryker's mutation score: the mutants found (killed or timed out) among those tested or not reached. */
export function score(s: Pick<FileScore, 'killed' | 'timedOut' | 'survived' | 'notReached'>): number | undefined {
  const valid = s.killed + s.timedOut + s.survived + s.notReached;
  return valid ? ((s.killed + s.timedOut) / valid) * 100 : undefined;
}

const percent = (value: number | undefined) => (value === undefined ? '—' : `${value.toFixed(1)} %`);

function row(label: string, s: Omit<FileScore, 'file' | 'part'>, part: string): string {
  return `| ${label} | ${part} | ${s.mutants} | ${s.leftOut} | ${s.killed} | ${s.timedOut} | ${s.survived} | ${s.notReached} | ${percent(score(s))} |`;
}

function total(scores: FileScore[]): Omit<FileScore, 'file' | 'part'> {
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
/** The services mutation testing covers (stryker.config.mjs mutates their sources). */
const SERVICES = ['identity', 'payment'];

function sourcesOf(service: string): string[] {
  const directory = path.join(ROOT, 'functions', service);
  return (fs.readdirSync(directory, { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `functions/${service}/${name.split(path.sep).join('/')}`);
}

/**
 * Per file and per service, from the parts' results; a source file no part has tested yet is listed
 * as such, so a service's total never reads as complete while it is not. A file in two parts'
 * results is a mistake in the parts.
 */
export function mutationScoreTable(directory = path.join(ROOT, 'tests', 'mutation')): string {
  const scores = fs
    .readdirSync(directory)
    .filter((name) => name.endsWith('.json') && name !== 'incremental.json')
    .sort()
    .flatMap((name) => fileScores(name.replace(/\.json$/, ''), JSON.parse(fs.readFileSync(path.join(directory, name), 'utf8')) as MutationReport));
  const byFile = new Map<string, FileScore>();
  for (const s of scores) {
    if (byFile.has(s.file)) throw new Error(`${s.file} is in two parts' results`);
    byFile.set(s.file, s);
  }
  const lines = ['| File | Part | Mutants | Left out | Killed | Timed out | Survived | Not reached | Score |', '|---|---|---|---|---|---|---|---|---|'];
  for (const service of SERVICES) {
    const files = sourcesOf(service).sort();
    const tested = files.flatMap((file) => byFile.get(file) ?? []);
    for (const file of files) {
      const s = byFile.get(file);
      const label = `\`${file.replace('functions/', '')}\``;
      lines.push(s ? row(label, s, s.part) : `| ${label} | not run yet | | | | | | | |`);
    }
    const missing = files.length - tested.length;
    lines.push(row(`**${service}: ${tested.length} of ${files.length} files${missing ? ', the rest not run yet' : ''}**`, total(tested), ''));
  }
  return lines.join('\n');
}
