import type { ServiceDefinition } from '../../shared/functions';
import { contractRoutes } from '../../shared/http/contract';
import { startBootstrapAdmin, type BackgroundTask } from './bootstrap';
import { cleanupFunction } from './cleanup';
import { describeMailer } from './mailer';
import { ROUTES, DESCRIPTION } from './routes';

let bootstrap: BackgroundTask | undefined;

export const identity: ServiceDefinition = {
  name: 'identity',
  functions: [...ROUTES, ...contractRoutes('identity', DESCRIPTION, () => ROUTES), cleanupFunction],
  /**
   * Cannot fail on SQL: the bootstrap admin is tried once (so it is in place before the first
   * request when SQL answers), then retried in the background until it succeeds.
   */
  async start() {
    bootstrap = startBootstrapAdmin();
    await bootstrap.firstAttempt;
  },
  async stop() {
    bootstrap?.stop();
    await bootstrap?.done;
    bootstrap = undefined;
  },
  describe: () => [describeMailer()],
};
