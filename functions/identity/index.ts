import type { ServiceDefinition } from '../../shared/functions';
import { healthFunction } from '../../shared/health';
import { bootstrapAdmin } from './bootstrap';
import { resetVerifiedTokens } from './guards';
import { describeMailer } from './mailer';
import { resetRoleCache } from './roles';
import { authFunctions } from './routes/auth';
import { planFunctions } from './routes/plan';
import { adminFunctions } from './routes/admin';
import { cleanupFunction } from './cleanup';

export const identity: ServiceDefinition = {
  name: 'identity',
  functions: [healthFunction('identity'), ...authFunctions, ...planFunctions, ...adminFunctions, cleanupFunction],
  async start() {
    resetRoleCache();
    resetVerifiedTokens();
    await bootstrapAdmin();
  },
  describe: () => [describeMailer()],
};
