import type { ServiceDefinition } from '../../shared/functions';
import { healthFunction } from '../../shared/health';
import { bootstrapAdmin } from './bootstrap';
import { describeMailer } from './mailer';
import { resetRoleCache } from './roles';
import { authFunctions } from './routes/auth';
import { planFunctions } from './routes/plan';

export const identity: ServiceDefinition = {
  name: 'identity',
  functions: [healthFunction('identity'), ...authFunctions, ...planFunctions],
  async start() {
    resetRoleCache();
    await bootstrapAdmin();
  },
  describe: () => [describeMailer()],
};
