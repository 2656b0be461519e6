/** Rewrites the configuration table in README.md from shared/config/settings.ts. */
import fs from 'node:fs';
import path from 'node:path';
import { withSettingsTable } from '../shared/config/table';

const readme = path.resolve(__dirname, '..', '..', 'README.md');
fs.writeFileSync(readme, withSettingsTable(fs.readFileSync(readme, 'utf8')));
process.stdout.write(`updated ${readme}\n`);
