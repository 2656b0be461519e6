import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { PROJECT_ROOT } from '../../devhost/paths';
import { typescriptSources } from '../helpers/sources';

/**
 * Every regular expression in the code that serves requests (the services, the shared code, the
 * dev host and the local Stripe server) is checked by recheck, which decides from the expression's
 * automaton, not by timing, whether some input makes it backtrack super-linearly (the kind of
 * pattern that let 60,000 characters hold a request thread for 8 seconds). None may: a pattern
 * that sees only constants today sees user input tomorrow.
 */
const { checkSync } = require('recheck') as typeof import('recheck');

interface Found {
  where: string;
  source: string;
  flags: string;
}

function regexLiterals(file: string): Found[] {
  const text = fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Found[] = [];
  const visit = (node: ts.Node) => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = node.getText(source);
      const end = literal.lastIndexOf('/');
      found.push({
        where: `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`,
        source: literal.slice(1, end),
        flags: literal.slice(end + 1),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `new RegExp(...)` built at run time cannot be checked statically: each is listed here with why its pattern is safe. */
const REVIEWED_DYNAMIC: Record<string, string> = {
  'functions/orchestrator/report/report-fonts.ts':
    'one Unicode script property per pattern, tested on one character; and one anchored character class with a single star',
  'shared/http/openapi.ts': 'a literal path segment built from a service name of the registry, anchored at the end',
  'shared/script-fonts.ts': 'one character class of fixed code-point ranges per script font, without a quantifier: a linear search of the text',
  'tools/outbox.ts': 'test tooling over the local outbox; the address is escaped and the pattern has a single unbounded run',
};

const SERVING = ['functions', 'shared', 'devhost', 'tools'];

test('no regular expression in the serving code backtracks super-linearly', () => {
  const literals = typescriptSources(SERVING).flatMap(regexLiterals);
  expect(literals.length).toBeGreaterThan(100);
  const unsafe = literals
    .map((found) => ({ ...found, result: checkSync(found.source, found.flags, { timeout: 10_000 }) }))
    .filter(({ result }) => result.status !== 'safe')
    .map(
      ({ where, source, flags, result }) => `${where} /${source}/${flags}: ${result.status}${'complexity' in result ? ` (${result.complexity?.summary})` : ''}`,
    );
  expect(unsafe).toEqual([]);
});

test('the check finds a quadratic pattern (the one that held the QuickChart route)', () => {
  const result = checkSync('[A-Za-z_$][\\w$]*\\s*\\(', '');
  expect(result.status).toBe('vulnerable');
});

test('every RegExp built at run time is reviewed', () => {
  const dynamic = typescriptSources(SERVING).filter((file) => /new RegExp\(/.test(fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8')));
  expect(dynamic.sort()).toEqual(Object.keys(REVIEWED_DYNAMIC).sort());
});
