import type { Platform } from '../shared/platform';
import type { HttpResponseInit } from '@azure/functions';
import { unresolvedSettings, type ServiceName } from '../shared/config';
import { Code } from '../shared/http/errors';
import type { FunctionDefinition, HttpFunction, QueueFunction, ServiceDefinition, TimerFunction } from '../shared/functions';
import { createLogger } from '../shared/logging';
import FUNCTION_INDEX from './function-index.json';
import { SETTINGS } from './settings';

/**
 * Each service's module, required only when that service is asked for: a Function App loads the
 * modules of the services it serves and of no other (canvas, pdfkit, stripe, openai...).
 */
const LOADERS: Record<ServiceName, () => ServiceDefinition> = {
  identity: () => (require('./identity') as typeof import('./identity')).identity,
  payment: () => (require('./payment') as typeof import('./payment')).payment,
  orchestrator: () => (require('./orchestrator') as typeof import('./orchestrator')).orchestrator,
  visual: () => (require('./visual') as typeof import('./visual')).visual,
};
const SERVICE_ORDER = Object.keys(LOADERS) as ServiceName[];

/**
 * Each service's health function alone: its module and what its checks use, not the service's
 * routes. A cold instance's first call is most often a health probe (the platform's, a load
 * balancer's, a deployment's warm-up): it is answered from this, and the service loads right after.
 */
const HEALTH_LOADERS: Record<ServiceName, () => FunctionDefinition> = {
  identity: () => (require('./identity/health') as typeof import('./identity/health')).HEALTH,
  payment: () => (require('./payment/health') as typeof import('./payment/health')).HEALTH,
  orchestrator: () => (require('./orchestrator/health-route') as typeof import('./orchestrator/health-route')).HEALTH,
  visual: () => (require('./visual/health') as typeof import('./visual/health')).HEALTH,
};
/** How long after a health call answered from HEALTH_LOADERS the service itself loads (unless a call needs it sooner). */
export const LOAD_AFTER_HEALTH_MS = 200;

export function loadService(name: ServiceName): ServiceDefinition {
  return LOADERS[name]();
}

/** The named services' definitions, loaded now, in registry order. */
export function selectServices(names: readonly ServiceName[]): ServiceDefinition[] {
  return SERVICE_ORDER.filter((name) => names.includes(name)).map(loadService);
}

/** Every service (docs, the function index, infra checks). */
export const allServices = (): ServiceDefinition[] => selectServices(SERVICE_ORDER);

export function functionsOf(services: readonly ServiceDefinition[]): FunctionDefinition[] {
  return services.flatMap((s) => s.functions);
}

/**
 * What the Functions host must know of a function to register it, without its code. Written to
 * function-index.json by `npm run docs:generate` from the loaded services; a test holds the two
 * equal, and a service loaded at run time is checked against it too.
 */
export type IndexedFunction =
  | { kind: 'http'; name: string; route: string; methods: HttpFunction['methods'] }
  | { kind: 'timer'; name: string; schedule: string; runOnStartup?: boolean }
  | { kind: 'queue'; name: string; queueName: string };

export function indexEntry(fn: FunctionDefinition): IndexedFunction {
  switch (fn.kind) {
    case 'http':
      return { kind: 'http', name: fn.name, route: fn.route, methods: fn.methods };
    case 'timer':
      return { kind: 'timer', name: fn.name, schedule: fn.schedule, ...(fn.runOnStartup ? { runOnStartup: true } : {}) };
    case 'queue':
      return { kind: 'queue', name: fn.name, queueName: fn.queueName };
  }
}

const INDEX = FUNCTION_INDEX as Record<ServiceName, IndexedFunction[]>;

/** A service as a host serves it: its functions, and what to do when the host starts and stops. */
export interface ServedService {
  name: ServiceName;
  functions: FunctionDefinition[];
  /** Set when the service is stopped by its configuration: why, one line per setting. */
  stopped?: string[];
  start(platform: Platform): Promise<void>;
  stop(platform: Platform): Promise<void>;
  /** Lines for the dev host's banner, read from the platform the host serves. */
  describe(platform: Platform): string[];
}

/**
 * What every route of a service stopped by its configuration answers (an unresolved Key Vault
 * reference): 503 and the settings to fix. On its health route the body is the health body, so
 * probes and dashboards read the reason where they look.
 */
function stoppedServiceResponse(service: ServiceName, problems: string[], now: Date, health = false): HttpResponseInit {
  const timestamp = now.toISOString();
  const body = health
    ? { service, status: 'stopped', timestamp, problems, dependencies: {} }
    : {
        error: 'Service unavailable',
        message: `The ${service} service is stopped by its configuration: ${problems.join(' ')}`,
        code: Code.SERVICE_MISCONFIGURED,
        problems,
        timestamp,
      };
  return { status: 503, jsonBody: body, headers: { 'Cache-Control': 'no-store', 'Retry-After': '60' } };
}

/**
 * A service whose secret is an unresolved Key Vault reference does not run: its HTTP routes
 * answer 503 naming the setting (its health route included), and its timers and queue triggers are
 * not registered, so queued work waits instead of failing. The other services are unaffected.
 */
function stoppedService(name: ServiceName, problems: string[], entries: IndexedFunction[], platform: Platform): ServedService {
  const log = createLogger({ service: name });
  const functions: FunctionDefinition[] = entries
    .filter((entry): entry is Extract<IndexedFunction, { kind: 'http' }> => entry.kind === 'http')
    .map((entry) => ({
      ...entry,
      handler: async () => stoppedServiceResponse(name, problems, platform.clock.now(), entry.name === `${name}-health`),
      // It reads no body.
      maxBodyBytes: () => 0,
    }));
  return {
    name,
    functions,
    stopped: problems,
    async start() {
      for (const problem of problems) log.error(`${name} service stopped: ${problem}`, { category: 'configuration' });
    },
    async stop() {},
    describe: () => [`${name.padEnd(12)} STOPPED: ${problems.join('; ')}`],
  };
}

/**
 * The one service loaded on first use: the first invocation of any of its functions requires its
 * module and awaits its `start`; later ones find it ready. A failed start is retried by the next
 * invocation.
 */
function lazyService(name: ServiceName, entries: IndexedFunction[], platform: Platform): ServedService {
  let started: Promise<ServiceDefinition> | undefined;
  let definition: ServiceDefinition | undefined;
  const load = () => {
    started ??= (async () => {
      definition = loadService(name);
      const loaded = JSON.stringify(definition.functions.map(indexEntry));
      if (loaded !== JSON.stringify(entries)) {
        createLogger({ service: name }).error('function-index.json does not match the service: run npm run docs:generate, then rebuild', {
          category: 'configuration',
        });
      }
      await definition.start?.(platform);
      return definition;
    })().catch((error) => {
      started = undefined;
      throw error;
    });
    return started;
  };
  const real = async <K extends FunctionDefinition['kind']>(fnName: string, kind: K) => {
    const fn = (await load()).functions.find((f) => f.name === fnName && f.kind === kind);
    if (!fn) throw new Error(`${fnName} is in function-index.json but not in the ${name} service (npm run docs:generate)`);
    return fn as Extract<FunctionDefinition, { kind: K }>;
  };
  const functions = entries.map((entry): FunctionDefinition => {
    switch (entry.kind) {
      case 'http': {
        const handler: HttpFunction['handler'] = async (request, context) => (await real(entry.name, 'http')).handler(request, context);
        if (entry.name !== `${name}-health`) return { ...entry, handler };
        // Before the service is loaded, its health alone answers; the service loads (and starts)
        // soon after, off the probe's path, or with the first call that needs it.
        const healthFirst: HttpFunction['handler'] = async (request, context) => {
          if (started) return handler(request, context);
          const health = HEALTH_LOADERS[name]() as HttpFunction;
          const response = await health.handler(request, context);
          setTimeout(
            () =>
              void load().catch((error: Error) =>
                createLogger({ service: name }).error(`${name} did not start`, { error: error.message, category: 'configuration' }),
              ),
            LOAD_AFTER_HEALTH_MS,
          ).unref();
          return response;
        };
        return { ...entry, handler: healthFirst };
      }
      case 'timer': {
        const handler: TimerFunction['handler'] = async (timer, context) => (await real(entry.name, 'timer')).handler(timer, context);
        return { ...entry, handler };
      }
      case 'queue': {
        const handler: QueueFunction['handler'] = async (message, context) => (await real(entry.name, 'queue')).handler(message, context);
        return { ...entry, handler };
      }
    }
  });
  return {
    name,
    functions,
    async start() {},
    async stop(platform) {
      if (!started) return;
      const service = await started.catch(() => undefined);
      await service?.stop?.(platform);
    },
    describe: (platform) => definition?.describe?.(platform) ?? [],
  };
}

function eagerService(definition: ServiceDefinition): ServedService {
  return {
    name: definition.name,
    functions: definition.functions,
    start: async (platform) => definition.start?.(platform),
    stop: async (platform) => definition.stop?.(platform),
    describe: (platform) => definition.describe?.(platform) ?? [],
  };
}

/**
 * The services a host serves. `lazy` (the Azure Functions entry point): registered from the
 * function index, each loaded on its first invocation, so start-up loads no service code. Eager
 * (the dev host): loaded and started before serving.
 */
export function serveServices(names: readonly ServiceName[], options: { lazy: boolean; platform: Platform }): ServedService[] {
  const env = options.platform.settings;
  const unresolved = unresolvedSettings(SETTINGS, env);
  return SERVICE_ORDER.filter((name) => names.includes(name)).map((name) => {
    const mine = unresolved.filter((u) => u.services.includes(name));
    const problems = mine.filter((u) => u.required).map((u) => u.problem);
    if (problems.length) return stoppedService(name, problems, INDEX[name], options.platform);
    // An optional secret not stored yet: the service runs without it, and says so once at start.
    for (const u of mine)
      createLogger({ service: name }).warn(`${name}: ${u.name} is unset (its Key Vault reference did not resolve); the features that need it answer 503`, {
        category: 'configuration',
      });
    return options.lazy ? lazyService(name, INDEX[name], options.platform) : eagerService(loadService(name));
  });
}
