import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../devhost/host';
import { replaceGeneratedBlock } from '../../scripts/markdown';
import { GENERATED, GENERATED_FILES } from '../../scripts/docs-tables';

test.each(GENERATED.map((g) => [g.file, g.block, g] as const))(
  '%s: the generated %s table matches the code (npm run docs:generate)',
  (file, block, generated) => {
    const text = fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
    expect(text).toBe(replaceGeneratedBlock(text, block, generated.content()));
  },
);

test.each(GENERATED_FILES.map((g) => [g.file, g] as const))('%s matches the code (npm run docs:generate)', (file, generated) => {
  expect(fs.readFileSync(path.join(PROJECT_ROOT, file), 'utf8')).toBe(generated.content());
});

test('the README shows the two commands that set everything up', () => {
  const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  expect(readme).toContain('npm ci && npm start');
  expect(readme).toContain('npm ci && npm test');
});
