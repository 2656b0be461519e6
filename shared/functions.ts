import type { HttpHandler, HttpMethod, InvocationContext, Timer } from '@azure/functions';
import type { ServiceName } from './config';
import type { ContextFactory, ServiceContext } from './context';
import { createLogger } from './logging';
import { currentPlatform, runInPlatform, type Platform } from './platform';

/** One function of a service, in a form both the Azure Functions entry point and the dev host register. */
export type FunctionDefinition = HttpFunction | TimerFunction | QueueFunction;

export interface HttpFunction {
  kind: 'http';
  name: string;
  /** ASP.NET route template, including the service's base segment (`identity/auth/login`). */
  route: string;
  methods: HttpMethod[];
  handler: HttpHandler;
  /**
   * The largest body this function reads, in bytes (its route's limit). A host that can stop reading
   * there (the dev host) never buffers more; Azure's host buffers up to its own limit, and the
   * route refuses from the declared or received length.
   */
  maxBodyBytes?: () => number;
}

export interface TimerFunction {
  kind: 'timer';
  name: string;
  /** Six-field NCRONTAB: second minute hour day month day-of-week, or `%SETTING%`. */
  schedule: string;
  runOnStartup?: boolean;
  handler: (timer: Timer, context: InvocationContext) => Promise<void>;
}

/**
 * A service's timer helper: `timer(id, schedule, run)` declares `<service>-<id>` on its schedule,
 * and `run` gets the service's context, whose logger names the function and the invocation.
 */
export function timers<C extends ServiceContext>(service: ServiceName, context: ContextFactory<C>) {
  return (id: string, schedule: string, run: (ctx: C) => Promise<void>): TimerFunction => {
    const name = `${service}-${id}`;
    return {
      kind: 'timer',
      name,
      schedule,
      handler: (_timer, invocation) => run(context(currentPlatform(), createLogger({ service, function: name, invocationId: invocation.invocationId }))),
    };
  };
}

export interface QueueFunction {
  kind: 'queue';
  name: string;
  /** The queue, or `%SETTING%` to read it from an app setting. */
  queueName: string;
  /** JSON messages arrive parsed, as the Functions host delivers them. */
  handler: (message: unknown, context: InvocationContext) => Promise<void>;
}

/** A service's queue-trigger helper: `queue(id, queueName, run)`, `run` given the message and the service's context. */
export function queues<C extends ServiceContext>(service: ServiceName, context: ContextFactory<C>) {
  return (id: string, queueName: string, run: (message: unknown, ctx: C) => Promise<void>): QueueFunction => {
    const name = `${service}-${id}`;
    return {
      kind: 'queue',
      name,
      queueName,
      handler: (message, invocation) =>
        run(message, context(currentPlatform(), createLogger({ service, function: name, invocationId: invocation.invocationId }))),
    };
  };
}

export interface ServiceDefinition {
  name: ServiceName;
  functions: FunctionDefinition[];
  /** Work to do once per platform before serving (migrations run separately). */
  start?: (platform: Platform) => Promise<void>;
  /**
   * Release what `start` or the handlers made on the platform early (worker pools, pending log
   * batches, in the order the service needs); whatever is left is released when the platform closes.
   */
  stop?: (platform: Platform) => Promise<void>;
  /** Lines for the dev host's start-up banner (where this service keeps local data, offline modes), read from the platform it serves. */
  describe?: (platform: Platform) => string[];
}

/**
 * A trigger property written `%NAME%` (a timer schedule, a queue name) is read from the app
 * setting NAME, as the Functions host binds it; anything else is taken literally.
 */
export function resolveAppSetting(expression: string, env: NodeJS.ProcessEnv = process.env): string {
  const m = /^%([A-Za-z0-9_]+)%$/.exec(expression.trim());
  if (!m) return expression;
  const value = env[m[1]];
  if (!value) throw new Error(`${expression}: app setting ${m[1]} is not set`);
  return value;
}

/**
 * How an HTTP function is registered (by the Functions entry point and the dev host alike): with
 * OPTIONS added, so a CORS preflight reaches the handler's wrapper, which answers it. A plain
 * OPTIONS to a route that does not take OPTIONS itself is answered with the methods it allows.
 */
export function httpRegistration(fn: HttpFunction): { methods: HttpMethod[]; handler: HttpHandler } {
  if (fn.methods.includes('OPTIONS')) return { methods: fn.methods, handler: fn.handler };
  const allow = [...fn.methods, 'OPTIONS'].join(', ');
  return {
    methods: [...fn.methods, 'OPTIONS'],
    handler: async (request, context) =>
      request.method === 'OPTIONS' && !request.headers.get('access-control-request-method')
        ? { status: 204, headers: { Allow: allow } }
        : fn.handler(request, context),
  };
}

/**
 * A function as every host runs it: each invocation (and whatever it starts) in `platform`'s scope,
 * so the service's context is built from that platform. The Functions entry point and the dev host
 * register every function through this one wrapper, and the tests run through the dev host, so
 * Azure runs the path the tests run.
 */
export function inPlatform(platform: Platform, fn: FunctionDefinition): FunctionDefinition {
  switch (fn.kind) {
    case 'http': {
      const handler: HttpHandler = (request, context) => runInPlatform(platform, () => fn.handler(request, context));
      const maxBodyBytes = fn.maxBodyBytes;
      return { ...fn, handler, ...(maxBodyBytes ? { maxBodyBytes: () => runInPlatform(platform, maxBodyBytes) } : {}) };
    }
    case 'timer': {
      const handler: TimerFunction['handler'] = (timer, context) => runInPlatform(platform, () => fn.handler(timer, context));
      return { ...fn, handler };
    }
    case 'queue': {
      const handler: QueueFunction['handler'] = (message, context) => runInPlatform(platform, () => fn.handler(message, context));
      return { ...fn, handler };
    }
  }
}
