import type { Config, ServiceName } from './config';
import type { ContextFactory, ServiceContext } from './context';
import { opsFor, PUBLIC, routes, type RoutedFunction } from './http/route';
import { HEALTH, HEALTH_QUERY } from './http/schemas';
import { currentTime, type Platform } from './platform';
import { pingSqlite } from './sql/db';
import type { AnyKysely } from './sql/dialect';
import type { Storage } from './storage';

// The database and the storage clients are handed in as the service's context's getters, made on
// first use: a service whose health does not check one never opens it.

export interface DependencyCheck {
  ok: boolean;
  latencyMs: number;
  detail?: string;
  error?: string;
  /** A failure that leaves the rest of the service working (a missing optional secret): health answers 200 `degraded`, naming it. */
  optional?: boolean;
}

/** A service's checks by dependency name, each started only when the health route runs it. */
export type HealthChecks = Record<string, () => Promise<DependencyCheck>>;

/** An optional dependency: its failure degrades the service instead of making it unhealthy. */
export const optional = (run: () => Promise<DependencyCheck>) => async (): Promise<DependencyCheck> => ({ ...(await run()), optional: true });

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

/**
 * The database answers. On SQLite the platform's connection runs `select 1` alone, without the
 * query builder (a cold start's first health call would load it for nothing); on Azure SQL the
 * context's pool does (tedious, which the query needs anyway, costs far more than Kysely).
 */
export const checkSql = (ctx: { readonly db: AnyKysely; readonly platform: Platform; readonly config: Config }) =>
  check(async () => {
    if (!ctx.config.SQL_SERVER) {
      await pingSqlite(ctx.platform);
      return 'SQLite';
    }
    const { sql } = require('./sql/dialect') as typeof import('./sql/dialect');
    await sql`select 1 as ok`.execute(ctx.db);
    return `Azure SQL ${ctx.config.SQL_SERVER}`;
  });

/**
 * The storage account answers for the container the service uses, with one request, no SDK (a cold
 * start's health loads none) and the service's own rights (shared/storage-rest.ts probeContainer).
 */
export const checkStorage = (storage: Storage, container: string) => check(() => storage.probeContainer(container));

/**
 * The health body every service answers: 200 `healthy` when every dependency answered, 200
 * `degraded` with the `problems` when only optional ones failed (the service works, in part), 503
 * `unhealthy` otherwise. `skip` leaves dependencies out: the availability tests skip `sql`, so a
 * probe every few minutes does not keep a serverless database from pausing.
 */
export async function healthReport(service: string, checks: HealthChecks, skip: readonly string[] = []) {
  const names = Object.keys(checks).filter((name) => !skip.includes(name));
  // Every check runs at once, the SQL check started last: opening the database is work on this
  // thread (SQLite's native module and file, or tedious loading for Azure SQL) that the other
  // checks' requests, sent first, overlap instead of waiting behind it (a cold start's first probe).
  const started = new Map([...names.filter((name) => name !== 'sql'), ...names.filter((name) => name === 'sql')].map((name) => [name, checks[name]()]));
  const results = await Promise.all(names.map((name) => started.get(name)!));
  const dependencies = Object.fromEntries(names.map((name, i) => [name, results[i]]));
  const failed = names.filter((_, i) => !results[i].ok);
  const unhealthy = failed.some((name) => !dependencies[name].optional);
  const status = unhealthy ? 'unhealthy' : failed.length ? 'degraded' : 'healthy';
  return {
    status: unhealthy ? 503 : 200,
    jsonBody: {
      service,
      status,
      timestamp: currentTime().toISOString(),
      ...(failed.length ? { problems: failed.map((name) => `${name}: ${dependencies[name].error}`) } : {}),
      dependencies,
    },
  };
}

/**
 * The `GET <service>/health` function over the checks the service names: the dependencies its own
 * code uses, and no others (identity does not touch Storage, visual does not touch SQL). A probe
 * then tells what would break the service, and the first request after a cold start loads no
 * client the service never needs. The checks are given what the probe skips, so a check that asks
 * another service's health asks it to skip the same (a probe skipping SQL wakes no database).
 */
export function healthFunction<C extends ServiceContext>(
  service: ServiceName,
  context: ContextFactory<C>,
  checks: (ctx: C, skip: readonly string[]) => HealthChecks,
): RoutedFunction {
  const health = opsFor<C>()<undefined, unknown, { skip?: 'sql' }>(
    'Health of this service and its dependencies: 200 when every one answered (degraded when only optional ones failed), 503 otherwise',
    async ({ query, ctx }) => {
      const skip = query.skip ? [query.skip] : [];
      return healthReport(service, checks(ctx, skip), skip);
    },
  );
  return routes(service, context)('health', 'GET', 'health', PUBLIC, { query: HEALTH_QUERY, 200: HEALTH, 503: HEALTH }, health);
}
