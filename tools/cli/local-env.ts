import { useProcessSettings, type Config, type ServiceName } from '../../shared/config';
import { SETTINGS } from '../../functions/settings';
import { applyLocalSettings } from '../../shared/config/local-settings';
import { MIGRATIONS } from '../../functions/migrations';

/**
 * A CLI's settings: local.settings.json under the environment, read as every local entry point
 * reads it (never created here); only the settings of `services` must be present.
 */
export function loadLocalEnv(services: ServiceName[]): Config {
  applyLocalSettings();
  return useProcessSettings(process.env, { settings: SETTINGS, requireFor: services, migrations: () => MIGRATIONS });
}
