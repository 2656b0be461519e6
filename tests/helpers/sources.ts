import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../devhost/paths';

/** Build output, installed packages and local data: never our sources. */
const NOT_SOURCES = new Set(['node_modules', 'dist', 'test-output', 'coverage']);

/** Our TypeScript files (.ts, .tsx; no declarations) under the given folders, relative to the project root. */
export function typescriptSources(dirs: string[]): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      if (NOT_SOURCES.has(entry.name) || entry.name.startsWith('.')) return [];
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) return walk(rel);
      return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [rel] : [];
    });
  return dirs.flatMap(walk);
}
