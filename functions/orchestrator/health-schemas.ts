import { dateTime, obj, oneOfValues, query, str } from '../../shared/http/schemas';

/**
 * The health route's query and answer (also exported by ./schemas with the others): apart from the
 * service's other schemas, whose module loads the admin views, time windows, industries and error
 * patterns they name, which a cold instance's first health call (functions/orchestrator/health-route.ts) does not need.
 */
export const HEALTH_QUERY = query({
  schema: oneOfValues(['check'], { description: 'check: compare the log table with what the workflow logger writes (admin)' }),
  skip: oneOfValues(['sql'], { description: 'sql: leave out the SQL check, so the probe does not wake a paused serverless database' }),
});
export const HEALTH_OR_SCHEMA = obj({ service: str(), timestamp: dateTime() });
