import { SERVICE_NAMES, type Deploy, type ServiceName, type Setting } from './setting-kinds';
import { PLATFORM_SETTINGS } from './platform-settings';

export { SERVICE_NAMES, PLATFORM_SETTINGS };
export type { Deploy, ServiceName, Setting };

/** A list of settings by name: the platform's (here), or a service's own (functions/<service>/settings.ts). */
export type SettingTable = Record<string, Setting<unknown>>;

/** The parsed values of a table's settings. */
export type ConfigOf<T extends SettingTable> = { readonly [K in keyof T]: ReturnType<T[K]['parse']> };

/**
 * The settings the platform and shared code read (hosting, SQL, Storage, tokens, and the few
 * service settings shared code reads on a service's behalf). Each service owns its other settings
 * in functions/<service>/settings.ts; functions/settings.ts composes the whole list, as
 * functions/migrations.ts composes the migration history, and hands it to the platform.
 */
export type Config = ConfigOf<typeof PLATFORM_SETTINGS>;
