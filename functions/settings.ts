import { parseConfig, PLATFORM_SETTINGS, type ConfigOf, type ParseOptions } from '../shared/config';
import { MAIL_SETTINGS } from '../shared/mail/settings';
import type { Platform } from '../shared/platform';
import { IDENTITY_SETTINGS } from './identity/settings';
import { ORCHESTRATOR_SETTINGS } from './orchestrator/settings';
import { PAYMENT_SETTINGS } from './payment/settings';
import { VISUAL_SETTINGS } from './visual/settings';

/**
 * Every setting the app reads: the platform's and each service's own, composed here as the
 * migration history is in migrations.ts. The hosts hand it to their platform (functions/index.ts,
 * the dev host, the commands), so a required setting of a served service is checked at start;
 * the README's configuration table, the local settings file and the Bicep parity test read it too.
 */
export const SETTINGS = { ...PLATFORM_SETTINGS, ...MAIL_SETTINGS, ...IDENTITY_SETTINGS, ...PAYMENT_SETTINGS, ...ORCHESTRATOR_SETTINGS, ...VISUAL_SETTINGS };

export type AppConfig = ConfigOf<typeof SETTINGS>;

/**
 * A platform's configuration as the app's whole (a command's, a test host's): refused for a
 * platform that was not given SETTINGS, whose service settings were never parsed.
 */
export const appConfig = (platform: Platform): AppConfig => platform.settingsOf(SETTINGS, 'app');

/** The app's configuration parsed from `env` (a command's or a test's, without a platform). */
export const parseAppConfig = (env: NodeJS.ProcessEnv, options: ParseOptions = {}): AppConfig => parseConfig(env, { ...options, settings: SETTINGS });
