import { config, type ServiceName } from './config';
import { op, PUBLIC, routes, type RoutedFunction } from './http/route';
import { HEALTH } from './http/schemas';

// SQL and Storage load with the first check that uses them: a service whose health does not check
// one never loads its client.
const sqlModule = () => require('./sql/db') as typeof import('./sql/db');
const storageModule = () => require('./storage') as typeof import('./storage');

export interface DependencyCheck {
  ok: boolean;
  latencyMs: number;
  detail?: string;
  error?: string;
}

/** Runs a check with a deadline; a failure or timeout is reported, never thrown. */
export async function check(run: () => Promise<string | void>, timeoutMs = 3000): Promise<DependencyCheck> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const detail = await Promise.race([
      run(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { ok: true, latencyMs: Math.round(performance.now() - started), ...(detail ? { detail } : {}) };
  } catch (error) {
    return { ok: false, latencyMs: Math.round(performance.now() - started), error: (error as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

export const checkSql = () =>
  check(async () => {
    const { sql } = require('./sql/dialect') as typeof import('./sql/dialect');
    await sql`select 1 as ok`.execute(sqlModule().db());
    return config().SQL_SERVER ? `Azure SQL ${config().SQL_SERVER}` : 'SQLite';
  });

export const checkStorage = () =>
  check(async () => {
    const client = storageModule().blobServiceClient();
    await client.getProperties();
    return client.accountName;
  });

/**
 * The health body every service answers: 200 when every dependency answered, 503 when a required
 * one did not. `optional` checks are dependencies the service keeps serving without (another
 * service, an external API): one failing makes the answer `degraded`, still 200 (so the platform's
 * health probe does not recycle instances over someone else's outage), with `reason` naming each
 * failing one and why.
 */
export async function healthReport(service: string, checks: Record<string, Promise<DependencyCheck>>, optional: Record<string, Promise<DependencyCheck>> = {}) {
  const all = { ...checks, ...optional };
  const names = Object.keys(all);
  const results = await Promise.all(Object.values(all));
  const dependencies = Object.fromEntries(names.map((name, i) => [name, results[i]]));
  const failing = names.filter((name) => !dependencies[name].ok);
  const healthy = failing.every((name) => name in optional);
  const status = !healthy ? 'unhealthy' : failing.length ? 'degraded' : 'healthy';
  const reason = failing.length ? failing.map((name) => `${name}: ${dependencies[name].error ?? 'failing'}`).join('; ') : undefined;
  return {
    status: healthy ? 200 : 503,
    jsonBody: { service, status, ...(reason ? { reason } : {}), timestamp: new Date().toISOString(), dependencies },
  };
}

/**
 * The `GET <service>/health` function over the checks the service names: the dependencies its own
 * code uses, and no others (identity does not touch Storage, visual does not touch SQL). A probe
 * then tells what would break the service, and the first request after a cold start loads no
 * client the service never needs.
 */
export function healthFunction(service: ServiceName, checks: () => Record<string, Promise<DependencyCheck>>): RoutedFunction {
  const health = op('Health of this service and its dependencies: 200 when every one answered, 503 otherwise', async () => healthReport(service, checks()));
  return routes(service)('health', 'GET', 'health', PUBLIC, { 200: HEALTH, 503: HEALTH }, health);
}
