import type { ServiceDefinition } from '../../shared/functions';
import { healthFunction } from '../../shared/health';
import { adminFunctions } from './admin';

export const orchestrator: ServiceDefinition = {
  name: 'orchestrator',
  functions: [healthFunction('orchestrator'), ...adminFunctions],
};
