import type { ContextFactory, ServiceContext } from '../../shared/context';
import { createLogger } from '../../shared/logging';
import type { Platform } from '../../shared/platform';

/**
 * A service's context as a test hands it to the service's domain functions: built from the test
 * host's platform (its settings, clock, database and storage), with a logger of its own.
 */
export const contextOf = <C extends ServiceContext>(factory: ContextFactory<C>, host: { platform: Platform }): C =>
  factory(host.platform, createLogger({ component: 'test' }));
