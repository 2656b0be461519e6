import type { ServiceDefinition } from '../../shared/functions';
import { healthFunction } from '../../shared/health';

export const identity: ServiceDefinition = {
  name: 'identity',
  functions: [healthFunction('identity')],
};
