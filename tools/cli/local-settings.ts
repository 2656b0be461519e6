import fs from 'node:fs';
import path from 'node:path';

/** For CLIs run from the project root: settings from local.settings.json fill what the environment leaves unset, as `func` does. */
export function loadLocalSettingsIntoEnv(file = path.resolve('local.settings.json')): void {
  if (!fs.existsSync(file)) return;
  const values = (JSON.parse(fs.readFileSync(file, 'utf8')).Values ?? {}) as Record<string, string>;
  for (const [key, value] of Object.entries(values)) if (process.env[key] === undefined) process.env[key] = value;
}
