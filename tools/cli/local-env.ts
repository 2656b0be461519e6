import path from 'node:path';
import { loadLocalSettings } from '../../devhost/settings';
import { reloadConfig, type Config } from '../../shared/config';

/** Reads local.settings.json as the dev host does (the environment wins), so a CLI sees the same settings. */
export async function loadLocalEnv(): Promise<Config> {
  const root = path.resolve(__dirname, '..', '..', '..');
  const { values } = await loadLocalSettings(path.resolve('local.settings.json'), path.join(root, 'local.settings.sample.json'));
  for (const [key, value] of Object.entries(values)) if (process.env[key] === undefined) process.env[key] = value;
  process.env.DATA_DIR = path.resolve(process.env.DATA_DIR || '.data');
  return reloadConfig();
}
