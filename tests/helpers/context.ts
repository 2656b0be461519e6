import type { ContextFactory, ServiceContext } from '../../shared/context';
import { createLogger } from '../../shared/logging';
import { currentPlatform, type Platform } from '../../shared/platform';
import { appConfig, type AppConfig } from '../../functions/settings';

/**
 * A service's context as a test hands it to the service's domain functions: built from the test
 * host's platform (its settings, clock, database and storage), with a logger of its own.
 */
export const contextOf = <C extends ServiceContext>(factory: ContextFactory<C>, host: { platform: Platform }): C =>
  factory(host.platform, createLogger({ component: 'test' }));

/**
 * The app's configuration (every service's settings) of the platform in force: the test host
 * started last, or the platform a test entered with runInPlatform.
 */
export const appSettings = (): AppConfig => appConfig(currentPlatform());
