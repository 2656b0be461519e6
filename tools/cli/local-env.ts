import { reloadConfig, type Config } from '../../shared/config';
import { applyLocalSettings } from '../../shared/config/local-settings';

/** A CLI's settings: local.settings.json under the environment, read as every local entry point reads it (never created here). */
export function loadLocalEnv(): Config {
  applyLocalSettings();
  return reloadConfig();
}
