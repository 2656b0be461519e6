/**
 * Application Insights through OpenTelemetry and the Azure Monitor exporter, on when
 * APPLICATIONINSIGHTS_CONNECTION_STRING is set, nothing at all otherwise.
 *
 * Why not the `applicationinsights` SDK: loading it takes about 1.2 s (2,900 modules), most of a
 * cold start. This module loads nothing until `startTelemetry()`, and even then the OpenTelemetry
 * SDK loads on the next turn of the event loop, so the entry point stays light (an invocation that
 * arrives first waits for it, so none goes unrecorded), and the Azure Monitor exporter loads with
 * the first batch sent, seconds later, off the first request's path.
 *
 * What is recorded, all in one operation per invocation (W3C trace context):
 * - requests: one per invocation. Under the Functions host the host records the request itself and
 *   passes its trace context to the invocation; our records are then its children. Without a host
 *   (the dev host, tests) the wrapper records the request, continuing the caller's `traceparent`;
 * - dependencies: SQL statements (from Kysely's query log, shared/sql/db.ts), and every outgoing
 *   HTTP call, read from Node's diagnostics channels: undici's (fetch, undici.request: identity,
 *   visual, OpenAI), which also carry our `traceparent` to the service called, and node:http's
 *   (Storage, Stripe). URLs are recorded without their query string (SAS signatures live there);
 * - traces: every structured log line (shared/logging.ts), after redaction, its fields as
 *   customDimensions.
 */
import dc from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { HttpRequest, HttpResponseInit, InvocationContext, Timer } from '@azure/functions';
import type * as OtelApi from '@opentelemetry/api';
import type { Logger as OtelLogger } from '@opentelemetry/api-logs';
import { config } from './config';
import type { FunctionDefinition } from './functions';
import { setLogExport } from './logging';
import { withoutQuery } from './text';
import { vendored } from './vendor';

interface Runtime {
  api: typeof OtelApi;
  tracer: OtelApi.Tracer;
  logger: OtelLogger;
  isSuppressed(context: OtelApi.Context): boolean;
  ingestionHost: string;
  shutdown(): Promise<void>;
}

let ready: Promise<Runtime | undefined> | undefined;
let runtime: Runtime | undefined;
const unsubscribes: (() => void)[] = [];

/** Starts telemetry when a connection string is configured (idempotent). Never throws: a telemetry fault must not stop the app. */
export function startTelemetry(): void {
  if (ready) return;
  const connectionString = config().APPLICATIONINSIGHTS_CONNECTION_STRING;
  if (!connectionString) return;
  ready = new Promise((resolve) =>
    setImmediate(() => {
      try {
        runtime = load(connectionString);
      } catch (error) {
        process.stderr.write(
          `${JSON.stringify({ level: 'error', timestamp: new Date().toISOString(), component: 'telemetry', error: (error as Error).message, msg: 'telemetry did not start; continuing without it' })}\n`,
        );
      }
      resolve(runtime);
    }),
  );
}

/** Resolves once telemetry is running (or known to be off). */
export async function telemetryReady(): Promise<boolean> {
  return Boolean(await ready);
}

export function telemetryWanted(): boolean {
  return ready !== undefined;
}

/** Sends what is buffered and stops (appTerminate, dev host shutdown); a later startTelemetry() starts afresh. */
export async function stopTelemetry(): Promise<void> {
  const current = await ready;
  ready = undefined;
  runtime = undefined;
  setLogExport(undefined);
  unsubscribes.splice(0).forEach((unsubscribe) => unsubscribe());
  if (!current) return;
  await current.shutdown();
  current.api.trace.disable();
  current.api.context.disable();
  current.api.propagation.disable();
}

function load(connectionString: string): Runtime {
  const api = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = vendored('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator, isTracingSuppressed, ExportResultCode } = vendored('@opentelemetry/core');
  const { BasicTracerProvider, BatchSpanProcessor } = vendored('@opentelemetry/sdk-trace-base');
  const { LoggerProvider, BatchLogRecordProcessor } = vendored('@opentelemetry/sdk-logs');
  const { resourceFromAttributes } = vendored('@opentelemetry/resources');
  const exporters = () => require('@azure/monitor-opentelemetry-exporter') as typeof import('@azure/monitor-opentelemetry-exporter');

  const cfg = config();
  // The cloud role in Application Insights: the Function App's name in Azure.
  const resource = resourceFromAttributes({ 'service.name': cfg.WEBSITE_SITE_NAME ?? 'report-platform' });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: [
      new BatchSpanProcessor(loadedOnFirstExport(() => new (exporters().AzureMonitorTraceExporter)({ connectionString }), ExportResultCode.FAILED)),
    ],
  });
  api.trace.setGlobalTracerProvider(tracerProvider);
  const loggerProvider = new LoggerProvider({
    resource,
    processors: [
      new BatchLogRecordProcessor(loadedOnFirstExport(() => new (exporters().AzureMonitorLogExporter)({ connectionString }), ExportResultCode.FAILED)),
    ],
  });

  const ingestion = /IngestionEndpoint=([^;]+)/i.exec(connectionString)?.[1];
  const rt: Runtime = {
    api,
    tracer: api.trace.getTracer('report-platform'),
    logger: loggerProvider.getLogger('report-platform'),
    isSuppressed: isTracingSuppressed,
    ingestionHost: ingestion ? new URL(ingestion).host : '',
    async shutdown() {
      await Promise.allSettled([tracerProvider.forceFlush(), loggerProvider.forceFlush()]);
      await Promise.allSettled([tracerProvider.shutdown(), loggerProvider.shutdown()]);
    },
  };
  subscribeHttpClients(rt);
  setLogExport((line) => exportLogLine(rt, line));
  return rt;
}

/** What the batch processors ask of an exporter (spans and log records alike). */
interface Exporter<T> {
  export(items: T[], done: (result: { code: number; error?: Error }) => void): void;
  shutdown(): Promise<void>;
  forceFlush?(): Promise<void>;
}

/**
 * The Azure Monitor exporter (about 450 modules with its HTTP pipeline and metrics) loads when the
 * first batch leaves, seconds after the first invocation, instead of delaying that invocation:
 * records are kept by the batch processor meanwhile, so none is lost. An exporter that cannot be
 * made fails that batch (and the next one tries again), never the app.
 */
function loadedOnFirstExport<T>(make: () => Exporter<T>, failed: number): Required<Exporter<T>> {
  let real: Exporter<T> | undefined;
  return {
    export(items, done) {
      try {
        real ??= make();
      } catch (error) {
        done({ code: failed, error: error as Error });
        return;
      }
      real.export(items, done);
    },
    shutdown: async () => real?.shutdown(),
    forceFlush: async () => real?.forceFlush?.(),
  };
}

// ---- traces from log lines -------------------------------------------------------------------

const SEVERITY: Record<string, number> = { debug: 5, info: 9, warn: 13, error: 17 };

/** One JSON log line (already redacted) as a log record of the active operation: the message as body, the fields as attributes. */
function exportLogLine(rt: Runtime, line: string): void {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(line);
  } catch {
    return;
  }
  const { msg, level, timestamp, ...fields } = parsed;
  const attributes: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(fields)) {
    attributes[key] = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : JSON.stringify(value);
  }
  rt.logger.emit({
    body: String(msg ?? ''),
    severityNumber: SEVERITY[String(level)] ?? 9,
    severityText: String(level ?? 'info'),
    timestamp: timestamp ? new Date(String(timestamp)) : new Date(),
    attributes,
    context: rt.api.context.active(),
  });
}

// ---- dependencies: outgoing HTTP ---------------------------------------------------------------

/** A dependency span under the active operation, or none outside one (exports, background timers) or to the ingestion endpoint. */
function startDependency(rt: Runtime, method: string, url: URL): OtelApi.Span | undefined {
  const active = rt.api.context.active();
  if (rt.isSuppressed(active) || !rt.api.trace.getSpanContext(active) || url.host === rt.ingestionHost) return undefined;
  return rt.tracer.startSpan(
    `${method} ${url.pathname}`,
    {
      kind: rt.api.SpanKind.CLIENT,
      attributes: {
        'http.method': method,
        'http.url': withoutQuery(url.toString()),
        'server.address': url.hostname,
        ...(url.port ? { 'server.port': Number(url.port) } : {}),
      },
    },
    active,
  );
}

function endDependency(rt: Runtime, span: OtelApi.Span, status: number | undefined, error?: unknown): void {
  if (status !== undefined) span.setAttribute('http.status_code', status);
  if (error || (status ?? 0) >= 400)
    span.setStatus({ code: rt.api.SpanStatusCode.ERROR, message: error ? String((error as Error).message ?? error) : undefined });
  span.end();
}

interface UndiciRequest {
  origin: string;
  path: string;
  method: string;
  addHeader(name: string, value: string): unknown;
}

function subscribeHttpClients(rt: Runtime): void {
  const spans = new WeakMap<object, { span: OtelApi.Span; status?: number }>();
  // Each channel publishes its own message shape; the listener states the one it reads.
  const on = <M>(name: string, read: (message: M) => void) => {
    const listener = (message: unknown) => read(message as M);
    dc.subscribe(name, listener);
    unsubscribes.push(() => dc.unsubscribe(name, listener));
  };

  // undici (fetch and the undici package): the span starts where the request is made, and its
  // traceparent goes out with it so the service called continues this operation.
  on('undici:request:create', ({ request }: { request: UndiciRequest }) => {
    const span = startDependency(rt, request.method, new URL(request.path, request.origin));
    if (!span) return;
    spans.set(request, { span });
    const carrier: Record<string, string> = {};
    rt.api.propagation.inject(rt.api.trace.setSpan(rt.api.context.active(), span), carrier);
    for (const [name, value] of Object.entries(carrier)) request.addHeader(name, value);
  });
  on('undici:request:headers', ({ request, response }: { request: object; response: { statusCode: number } }) => {
    const entry = spans.get(request);
    if (entry) entry.status = response.statusCode;
  });
  on('undici:request:trailers', ({ request }: { request: object }) => {
    const entry = spans.get(request);
    if (entry) endDependency(rt, entry.span, entry.status);
    spans.delete(request);
  });
  on('undici:request:error', ({ request, error }: { request: object; error: unknown }) => {
    const entry = spans.get(request);
    if (entry) endDependency(rt, entry.span, entry.status, error);
    spans.delete(request);
  });

  // node:http and node:https (the Azure SDKs, Stripe).
  on('http.client.request.start', ({ request }: { request: ClientRequest }) => {
    const protocol = (request as ClientRequest & { protocol?: string }).protocol ?? 'http:';
    const url = new URL(`${protocol}//${request.host}${request.path}`);
    const span = startDependency(rt, request.method, url);
    if (!span) return;
    let done = false;
    const finish = (status?: number, error?: unknown) => {
      if (done) return;
      done = true;
      endDependency(rt, span, status, error);
    };
    request.once('response', (response: IncomingMessage) => {
      response.once('end', () => finish(response.statusCode));
      response.once('close', () => finish(response.statusCode));
    });
    request.once('error', (error) => finish(undefined, error));
    request.once('close', () => setImmediate(() => finish(undefined, done ? undefined : new Error('closed without a response'))));
  });
}

// ---- dependencies: SQL ---------------------------------------------------------------------------

interface QueryLogEvent {
  level: 'query' | 'error';
  query: { sql: string };
  queryDurationMillis: number;
  error?: unknown;
}

/**
 * Kysely's `log` option for the database: each statement (its SQL text with placeholders, never
 * the parameter values) becomes a dependency of the invocation that ran it. Undefined when
 * telemetry is off, so Kysely does not time queries at all.
 */
export function sqlDependencyLogger(system: 'sqlite' | 'mssql', target: string, database: string): ((event: QueryLogEvent) => void) | undefined {
  if (!telemetryWanted()) return undefined;
  return (event) => {
    const rt = runtime;
    if (!rt) return;
    const active = rt.api.context.active();
    if (rt.isSuppressed(active) || !rt.api.trace.getSpanContext(active)) return;
    const end = Date.now();
    const operation = /^\s*(\w+)/.exec(event.query.sql)?.[1]?.toUpperCase() ?? 'SQL';
    const span = rt.tracer.startSpan(
      `${operation} ${database}`,
      {
        kind: rt.api.SpanKind.CLIENT,
        startTime: end - event.queryDurationMillis,
        attributes: {
          'db.system': system,
          'db.name': database,
          'db.statement': event.query.sql.slice(0, 4000),
          'db.operation': operation,
          'server.address': target,
        },
      },
      active,
    );
    if (event.level === 'error') span.setStatus({ code: rt.api.SpanStatusCode.ERROR, message: String((event.error as Error)?.message ?? event.error) });
    span.end(end);
  };
}

// ---- requests: function invocations ---------------------------------------------------------------

function statusOf(response: unknown): number {
  const status = (response as { status?: number } | undefined)?.status;
  return typeof status === 'number' ? status : 200;
}

/**
 * Runs an invocation inside its operation. Under the Functions host (`context.traceContext` set)
 * the host has recorded the request: our records become children of its span. Otherwise a request
 * span is recorded here, continuing the caller's trace context when it sent one.
 */
async function inOperation<T>(
  context: InvocationContext,
  describe: () => { name: string; carrier?: Record<string, string>; attributes: OtelApi.Attributes },
  run: () => Promise<T>,
  httpStatus?: (result: T) => number,
): Promise<T> {
  const rt = await ready;
  if (!rt) return run();
  const { api } = rt;
  const host = context.traceContext?.traceParent;
  if (host) {
    const extracted = api.propagation.extract(api.ROOT_CONTEXT, { traceparent: host, tracestate: context.traceContext?.traceState ?? '' });
    const spanContext = api.trace.getSpanContext(extracted);
    const parent = spanContext ? api.trace.setSpan(extracted, api.trace.wrapSpanContext(spanContext)) : extracted;
    return api.context.with(parent, run);
  }
  const { name, carrier, attributes } = describe();
  const parent = carrier ? api.propagation.extract(api.ROOT_CONTEXT, carrier) : api.ROOT_CONTEXT;
  const span = rt.tracer.startSpan(name, { kind: api.SpanKind.SERVER, attributes: { ...attributes, 'faas.execution': context.invocationId } }, parent);
  try {
    const result = await api.context.with(api.trace.setSpan(parent, span), run);
    if (httpStatus) span.setAttribute('http.status_code', httpStatus(result));
    return result;
  } catch (error) {
    // The host answers a function that threw with an empty 500.
    if (httpStatus) span.setAttribute('http.status_code', 500);
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: (error as Error)?.message });
    throw error;
  } finally {
    span.end();
  }
}

/** The function with its invocations recorded (a no-op wrapper cost when telemetry is off). */
export function instrument<T extends FunctionDefinition>(fn: T, service: string): T {
  const common = { 'faas.name': fn.name, 'platform.service': service };
  switch (fn.kind) {
    case 'http': {
      const handler = fn.handler;
      const route = `/${fn.route}`;
      return {
        ...fn,
        handler: (request: HttpRequest, context: InvocationContext) => {
          if (!ready) return handler(request, context);
          return inOperation(
            context,
            () => {
              const url = new URL(request.url);
              const carrier: Record<string, string> = {};
              request.headers.forEach((value, key) => {
                if (key === 'traceparent' || key === 'tracestate') carrier[key] = value;
              });
              return {
                name: `${request.method} ${route}`,
                carrier,
                attributes: {
                  ...common,
                  'http.method': request.method,
                  'http.url': withoutQuery(url.toString()),
                  'http.route': route,
                  'url.path': url.pathname,
                },
              };
            },
            async () => (await handler(request, context)) as HttpResponseInit,
            statusOf,
          );
        },
      };
    }
    case 'timer': {
      const handler = fn.handler;
      return {
        ...fn,
        handler: (timer: Timer, context: InvocationContext) =>
          ready
            ? inOperation(
                context,
                () => ({ name: fn.name, attributes: { ...common, 'faas.trigger': 'timer' } }),
                () => handler(timer, context),
              )
            : handler(timer, context),
      };
    }
    case 'queue': {
      const handler = fn.handler;
      return {
        ...fn,
        handler: (message: unknown, context: InvocationContext) =>
          ready
            ? inOperation(
                context,
                () => ({ name: fn.name, attributes: { ...common, 'faas.trigger': 'pubsub' } }),
                () => handler(message, context),
              )
            : handler(message, context),
      };
    }
  }
}
