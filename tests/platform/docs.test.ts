import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../devhost/host';
import { withSettingsTable } from '../../shared/config/table';

test("the README's configuration table lists exactly the settings the code reads (npm run docs:settings)", () => {
  const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  expect(readme).toBe(withSettingsTable(readme));
});

test('the README shows the two commands that set everything up', () => {
  const readme = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  expect(readme).toContain('npm ci && npm start');
  expect(readme).toContain('npm ci && npm test');
});
