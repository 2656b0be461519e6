/**
 * The house drawn from its imports: every relative import between the TypeScript files of
 * functions/, shared/, devhost/, scripts/ and tools/ (type-only imports too: a type is a
 * dependency of the reader). `npm run docs:generate` draws the areas and their arrows into
 * docs/architecture.md; tests/platform/imports.test.ts holds the rules (no import circle, nothing
 * in shared/ importing functions/) and the drawing current.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(__dirname, '..', '..');
const FOLDERS = ['functions', 'shared', 'devhost', 'scripts', 'tools'];

export type ImportGraph = Map<string, string[]>;

export function* sources(dir: string): Generator<string> {
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(rel);
    else if (/\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield rel;
  }
}

/** File -> the files it imports (relative imports that name a file of the graph). */
export function importGraph(): ImportGraph {
  const files = FOLDERS.flatMap((folder) => [...sources(folder)]);
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    const targets = importedFiles
      .filter((imported) => imported.fileName.startsWith('.'))
      .map((imported) => path.posix.normalize(path.posix.join(path.posix.dirname(file), imported.fileName)))
      .map((target) => [`${target}.ts`, `${target}/index.ts`].find((candidate) => known.has(candidate)))
      .filter((target): target is string => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The import circles: strongly connected groups of more than one file, or a file importing itself (Tarjan). */
export function importCircles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || graph.get(file)!.includes(file)) circles.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

/**
 * The area a file belongs to in the drawing: each service, the functions root (entry point,
 * registry, migration history), each folder of shared/ (its root files together), and the three
 * developer folders whole.
 */
export function areaOf(file: string): string {
  const [top, second] = file.split('/');
  if (top === 'functions') return file.split('/').length > 2 ? `functions/${second}` : 'functions';
  if (top === 'shared') return file.split('/').length > 2 ? `shared/${second}` : 'shared';
  return top;
}

/** The areas and their arrows as a Mermaid flowchart (left to right: what imports, then what is imported). */
export function importDiagram(graph: ImportGraph = importGraph()): string {
  const arrows = new Set<string>();
  const areas = new Set<string>();
  for (const [file, targets] of graph) {
    areas.add(areaOf(file));
    for (const target of targets) if (areaOf(target) !== areaOf(file)) arrows.add(`${areaOf(file)} --> ${areaOf(target)}`);
  }
  const id = (area: string) => area.replace(/[/-]/g, '_');
  const groups: [string, string[]][] = [
    ['developer tooling (not deployed)', ['devhost', 'scripts', 'tools']],
    ['functions (deployed)', [...areas].filter((a) => a.startsWith('functions')).sort()],
    ['shared (deployed)', [...areas].filter((a) => a.startsWith('shared')).sort()],
  ];
  const lines = ['```mermaid', 'flowchart LR'];
  groups.forEach(([title, members], i) => {
    lines.push(`  subgraph g${i}["${title}"]`, ...members.map((area) => `    ${id(area)}["${area}"]`), '  end');
  });
  lines.push(...[...arrows].sort().map((arrow) => `  ${arrow.split(' --> ').map(id).join(' --> ')}`), '```');
  return lines.join('\n');
}
