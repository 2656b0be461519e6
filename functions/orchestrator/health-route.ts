import { routes } from '../../shared/http/route';
import { orchestratorContext } from './context';
import { PUBLIC_HEALTH_ADMIN_SCHEMA_CHECK } from './guards';
import { health } from './health';
import * as s from './health-schemas';

/** `GET orchestrator/health`, loadable alone: a cold instance's first health call loads this module, not the service's routes (functions/registry.ts). */
// prettier-ignore
export const HEALTH = routes('orchestrator', orchestratorContext)('health', 'GET', 'health', PUBLIC_HEALTH_ADMIN_SCHEMA_CHECK, { query: s.HEALTH_QUERY, 200: s.HEALTH_OR_SCHEMA, 503: s.HEALTH_OR_SCHEMA }, health);
