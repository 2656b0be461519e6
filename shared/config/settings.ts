import { SERVICE_NAMES, type Deploy, type ServiceName, type Setting } from './setting-kinds';
import { IDENTITY_SETTINGS } from './settings/identity';
import { ORCHESTRATOR_SETTINGS } from './settings/orchestrator';
import { PAYMENT_SETTINGS } from './settings/payment';
import { PLATFORM_SETTINGS } from './settings/platform';
import { VISUAL_SETTINGS } from './settings/visual';

export { SERVICE_NAMES };
export type { Deploy, ServiceName, Setting };

/**
 * Every setting any service reads, grouped by who reads them (settings/<group>.ts). The README's
 * configuration table and the Bicep parity test are checked against this list.
 */
export const SETTINGS = { ...PLATFORM_SETTINGS, ...IDENTITY_SETTINGS, ...PAYMENT_SETTINGS, ...ORCHESTRATOR_SETTINGS, ...VISUAL_SETTINGS };

export type SettingName = keyof typeof SETTINGS;
export type Config = { readonly [K in SettingName]: ReturnType<(typeof SETTINGS)[K]['parse']> };
