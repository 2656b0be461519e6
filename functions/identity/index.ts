import type { ServiceDefinition } from '../../shared/functions';
import { healthFunction } from '../../shared/health';
import { startBootstrapAdmin, type BackgroundTask } from './bootstrap';
import { resetVerifiedTokens } from './guards';
import { describeMailer } from './mailer';
import { resetRoleCache } from './roles';
import { authFunctions } from './routes/auth';
import { planFunctions } from './routes/plan';
import { adminFunctions } from './routes/admin';
import { cleanupFunction } from './cleanup';

let bootstrap: BackgroundTask | undefined;

export const identity: ServiceDefinition = {
  name: 'identity',
  functions: [healthFunction('identity'), ...authFunctions, ...planFunctions, ...adminFunctions, cleanupFunction],
  /**
   * Cannot fail on SQL: the bootstrap admin is tried once (so it is in place before the first
   * request when SQL answers), then retried in the background until it succeeds.
   */
  async start() {
    resetRoleCache();
    resetVerifiedTokens();
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
