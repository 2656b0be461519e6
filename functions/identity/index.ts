import type { ServiceDefinition } from '../../shared/functions';
import { contractRoutes } from '../../shared/http/contract';
import { createLogger } from '../../shared/logging';
import { member } from '../../shared/platform';
import { bootstrapAdmin, startBootstrapAdmin, type BackgroundTask } from './bootstrap';
import { identityContext } from './context';
import { mailerOn } from '../../shared/mail/mailer';
import { DESCRIPTION, ROUTES } from './routes';
import { TIMERS } from './timers';

/**
 * The bootstrap admin's background retries: the platform's, so stopping it (or the platform closing)
 * cancels them. Each try is handed identity's context on that platform, and the platform's jitter.
 */
const BOOTSTRAP = member(
  'identity bootstrap admin',
  (platform) => startBootstrapAdmin(() => bootstrapAdmin(identityContext(platform, createLogger({ service: 'identity' }))), platform.random),
  async (task: BackgroundTask) => {
    task.stop();
    await task.done;
  },
);

export const identity: ServiceDefinition = {
  name: 'identity',
  functions: [...ROUTES, ...contractRoutes('identity', DESCRIPTION, () => ROUTES), ...TIMERS],
  /**
   * Cannot fail on SQL: the bootstrap admin is tried once (so it is in place before the first
   * request when SQL answers), then retried in the background until it succeeds.
   */
  async start(platform) {
    await platform.get(BOOTSTRAP).firstAttempt;
  },
  stop: (platform) => platform.release(BOOTSTRAP),
  describe: (platform) => [mailerOn(platform).describe()],
};
