import type { ServiceDefinition } from '../../shared/functions';
import { contractRoutes } from '../../shared/http/contract';
import { mailerOn } from '../../shared/mail/mailer';
import { DESCRIPTION, ROUTES } from './routes';
import { TIMERS } from './timers';

export const identity: ServiceDefinition = {
  name: 'identity',
  functions: [...ROUTES, ...contractRoutes('identity', DESCRIPTION, () => ROUTES), ...TIMERS],
  // No start-up work: nothing at start-up touches SQL (a cold start must not wake a paused
  // serverless database); the bootstrap admin is put in place by the first sign-in request
  // (bootstrap.ts, ensureBootstrapAdmin).
  describe: (platform) => [mailerOn(platform).describe()],
};
