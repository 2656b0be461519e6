import fs from 'node:fs';
import path from 'node:path';

/** local.settings.json as Core Tools reads it. */
export interface LocalSettings {
  IsEncrypted: boolean;
  Values: Record<string, string>;
}

/** The Values of a local.settings.json, or undefined when there is none (this never creates one). */
export function readLocalSettings(file = path.resolve('local.settings.json')): Record<string, string> | undefined {
  if (!fs.existsSync(file)) return undefined;
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LocalSettings>;
  return parsed.Values ?? {};
}

/**
 * The one way every local entry point (dev host, CLIs, the demo, the Core Tools emulation) takes
 * local.settings.json: its Values fill what the environment leaves unset, as Core Tools does, and
 * DATA_DIR becomes absolute. Missing file: the environment alone (a tool never creates the file;
 * `npm start` and `npm run func:prepare` do). Answers whether a file was read.
 */
export function applyLocalSettings(file = path.resolve('local.settings.json'), env: NodeJS.ProcessEnv = process.env): { found: boolean; file: string } {
  const values = readLocalSettings(file);
  for (const [key, value] of Object.entries(values ?? {})) if (env[key] === undefined) env[key] = value;
  env.DATA_DIR = path.resolve(env.DATA_DIR || '.data');
  return { found: values !== undefined, file };
}
