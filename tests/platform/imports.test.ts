import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../devhost/paths';
import { areaOf, importCircles, importGraph, type ImportGraph } from '../../scripts/import-graph';

const graph = importGraph();

test('no import circle anywhere in functions/, shared/, devhost/, scripts/ or tools/', () => {
  expect(importCircles(graph)).toEqual([]);
});

test('shared/ never imports functions/ (the services build on shared code, never the reverse)', () => {
  const backwards = [...graph].flatMap(([file, targets]) =>
    file.startsWith('shared/') ? targets.filter((t) => t.startsWith('functions/')).map((t) => `${file} -> ${t}`) : [],
  );
  expect(backwards).toEqual([]);
});

test('no service imports another service: what they share lives in shared/, what composes them in functions/', () => {
  const crossing = [...graph].flatMap(([file, targets]) =>
    targets
      .filter((t) => areaOf(file).startsWith('functions/') && areaOf(t).startsWith('functions/') && areaOf(t) !== areaOf(file))
      .map((t) => `${file} -> ${t}`),
  );
  expect(crossing).toEqual([]);
});

test('deployed code never imports developer tooling', () => {
  const tooling = [...graph].flatMap(([file, targets]) =>
    /^(functions|shared)\//.test(file) ? targets.filter((t) => /^(devhost|scripts|tools)\//.test(t)).map((t) => `${file} -> ${t}`) : [],
  );
  expect(tooling).toEqual([]);
});

test('deployed code holds no generator: no file under functions/ or shared/ writes a Markdown table; the docs tables and their helpers live in scripts/', () => {
  const sources = (dir: string): string[] =>
    fs
      .readdirSync(path.join(PROJECT_ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(dir, f));
  const generators = ['functions', 'shared'].flatMap(sources).filter((file) => fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8').includes('|---|'));
  expect(generators).toEqual([]);
});

test('the circle finder finds circles: a two-file loop, a self-import, and not a diamond', () => {
  const made: ImportGraph = new Map([
    ['a', ['b']],
    ['b', ['a', 'c']],
    ['c', ['c']],
    ['d', ['e', 'f']],
    ['e', ['g']],
    ['f', ['g']],
    ['g', []],
  ]);
  expect(importCircles(made).sort()).toEqual([['a', 'b'], ['c']]);
});
