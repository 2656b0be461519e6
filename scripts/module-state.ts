// Finds module-level mutable state in the deployed code (functions/ and shared/): a top-level `let`
// or `var`, or a top-level collection (Map, Set, WeakMap, WeakSet, array) not declared read-only.
// State belongs on the platform (shared/platform.ts, `member`); tests/platform/module-state.test.ts
// allows only the exceptions docs/architecture.md lists.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT, sources } from './import-graph';

export interface ModuleState {
  file: string;
  name: string;
  line: number;
}

const COLLECTIONS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'Array']);

/** A `new Map(...)`-like or `[...]` initialiser whose declared type is not Readonly*. */
function mutableCollection(declaration: ts.VariableDeclaration): boolean {
  const init = declaration.initializer;
  if (!init) return false;
  const isCollection =
    (ts.isNewExpression(init) && ts.isIdentifier(init.expression) && COLLECTIONS.has(init.expression.text)) || ts.isArrayLiteralExpression(init);
  if (!isCollection) return false;
  const type = declaration.type?.getText() ?? '';
  // An array literal is data (a table, a list of names) unless someone writes to it: only the
  // collections built empty, to be filled later, count for arrays.
  if (ts.isArrayLiteralExpression(init)) return init.elements.length === 0 && !/^readonly |^Readonly/.test(type);
  return !/^Readonly|^readonly /.test(type);
}

export function moduleState(folders: readonly string[] = ['functions', 'shared']): ModuleState[] {
  const found: ModuleState[] = [];
  for (const file of folders.flatMap((folder) => [...sources(folder)])) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    for (const statement of source.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      const list = statement.declarationList;
      const mutableBinding = !(list.flags & ts.NodeFlags.Const);
      for (const declaration of list.declarations) {
        if (mutableBinding || mutableCollection(declaration)) {
          const line = source.getLineAndCharacterOfPosition(declaration.getStart()).line + 1;
          found.push({ file, name: declaration.name.getText(), line });
        }
      }
    }
  }
  return found;
}
