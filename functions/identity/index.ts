import type { ServiceDefinition } from '../../shared/functions';
import { contractRoutes } from '../../shared/http/contract';
import { member } from '../../shared/platform';
import { startBootstrapAdmin, type BackgroundTask } from './bootstrap';
import { TIMERS } from './timers';
import { describeMailer } from './mailer';
import { ROUTES, DESCRIPTION } from './routes';

/** The bootstrap admin's background retries: the platform's, so stopping it (or the platform closing) cancels them. */
const BOOTSTRAP = member(
  'identity bootstrap admin',
  () => startBootstrapAdmin(),
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
  describe: () => [describeMailer()],
};
