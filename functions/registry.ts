import type { ServiceName } from '../shared/config';
import type { FunctionDefinition, ServiceDefinition } from '../shared/functions';
import { identity } from './identity';
import { orchestrator } from './orchestrator';
import { payment } from './payment';
import { visual } from './visual';

/** The one registry of services; each lists its functions (the route table is the union of their HTTP routes). */
export const SERVICES: readonly ServiceDefinition[] = [identity, payment, orchestrator, visual];

export function selectServices(names: readonly ServiceName[]): ServiceDefinition[] {
  return SERVICES.filter((s) => names.includes(s.name));
}

export function functionsOf(services: readonly ServiceDefinition[]): FunctionDefinition[] {
  return services.flatMap((s) => s.functions);
}
