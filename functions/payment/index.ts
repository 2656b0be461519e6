import type { ServiceDefinition } from '../../shared/functions';
import { healthFunction } from '../../shared/health';

export const payment: ServiceDefinition = {
  name: 'payment',
  functions: [healthFunction('payment')],
};
