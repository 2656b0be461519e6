import { AsyncLocalStorage } from 'node:async_hooks';
import type * as OtelApi from '@opentelemetry/api';
import { SYSTEM_CLOCK } from '../platform';
import { config } from '../config';
import { setLogExport } from '../logging';
import { vendored } from '../vendor';
import { subscribeHttpClients } from './http-dependencies';
import type { Runtime } from './otel';

/**
 * The process's telemetry once started: the runtime (loaded on demand), the invocations running
 * before it loaded, and what they recorded meanwhile.
 */
interface Telemetry {
  /** The runtime once loaded, or undefined when it could not load. */
  loaded: Promise<Runtime | undefined>;
  /** Loads the runtime now and replays what waited for it (idempotent; nothing once stopped). */
  load(): void;
  /** Invocations under the Functions host that began before the runtime loaded and are still running. */
  early: number;
  /** Records made by those invocations before the runtime loaded, replayed by it (at most MAX_PENDING). */
  pending: ((rt: Runtime) => void)[];
  /** Whether the load was tried (it never is twice). */
  tried: boolean;
  /** Set by stopTelemetry: nothing loads any more. */
  stopped: boolean;
}

let ready: Telemetry | undefined;
let runtime: Runtime | undefined;
const unsubscribes: (() => void)[] = [];

/** The Functions host's operation an early invocation belongs to (its traceparent), for the records it makes before the runtime loads. */
interface HostOperation {
  traceParent: string;
  traceState: string;
}
const EARLY = new AsyncLocalStorage<HostOperation>();
/** Records kept for the runtime at most (an instance whose runtime never loads must not grow without end). */
const MAX_PENDING = 1_000;
/** The runtime loads by then (after start) when no invocation loaded it sooner, or while early invocations keep overlapping. */
const MAX_DEFER_MS = 2_000;

/**
 * Starts telemetry when a connection string is configured (idempotent). Never throws: a telemetry
 * fault must not stop the app.
 *
 * The OpenTelemetry SDK (about 7 ms) does not load before an instance's first answer: under the
 * Functions host, invocations that arrive before it has loaded run without waiting for it, and it
 * loads once they have answered (or MAX_DEFER_MS after start when no invocation came). What they
 * record meanwhile (SQL dependencies, log lines) is kept and recorded when the SDK loads, under the
 * host's operation; their outgoing HTTP calls are not recorded (see `runEarly`). Without a host
 * (the dev host, tests) an invocation loads the SDK and waits for it, as it records the request
 * itself.
 */
export function startTelemetry(): void {
  if (ready) return;
  const connectionString = config().APPLICATIONINSIGHTS_CONNECTION_STRING;
  if (!connectionString) return;
  let resolve!: (rt: Runtime | undefined) => void;
  const telemetry: Telemetry = {
    loaded: new Promise((r) => (resolve = r)),
    early: 0,
    pending: [],
    tried: false,
    stopped: false,
    load() {
      if (this.stopped || this.tried) return;
      this.tried = true;
      try {
        runtime = load(connectionString);
        for (const record of this.pending.splice(0)) replay(runtime, record);
      } catch (error) {
        this.pending.length = 0;
        process.stderr.write(
          `${JSON.stringify({ level: 'error', timestamp: SYSTEM_CLOCK.now().toISOString(), component: 'telemetry', error: (error as Error).message, msg: 'telemetry did not start; continuing without it' })}\n`,
        );
      }
      resolve(runtime);
    },
  };
  ready = telemetry;
  setLogExport((line) => {
    const early = EARLY.getStore();
    if (runtime) exportLogLine(runtime, line, early);
    // A line from outside an invocation (start-up) is recorded outside any operation, as it would have been.
    else keep(telemetry, (rt) => exportLogLine(rt, line, early));
  });
  // Not sooner: under the Functions host, the worker goes on with its start-up messages, and the
  // first invocation, the one a cold start waits for, would find the SDK loading.
  setTimeout(() => telemetry.load(), MAX_DEFER_MS).unref();
}

/** One kept record, recorded now: one that cannot be made is lost alone, never the runtime. */
function replay(rt: Runtime, record: (rt: Runtime) => void): void {
  try {
    record(rt);
  } catch {
    // dropped
  }
}

function keep(telemetry: Telemetry, record: (rt: Runtime) => void): void {
  if (telemetry.pending.length < MAX_PENDING) telemetry.pending.push(record);
}

/**
 * Runs an invocation of the Functions host's operation `operation` that arrived before the runtime
 * loaded, without waiting for it: the runtime loads once the last such invocation has answered (or
 * after MAX_DEFER_MS). The host records the request itself; its SQL dependencies and log lines are
 * recorded as the operation's children when the runtime loads. Its outgoing HTTP calls are not
 * recorded, and its calls through undici carry no traceparent (the diagnostics channels are read
 * by the runtime): the price of not loading the SDK before a cold instance's first answer.
 */
export async function runEarly<T>(operation: HostOperation, run: () => Promise<T>): Promise<T> {
  const telemetry = ready;
  if (!telemetry) return run();
  telemetry.early++;
  try {
    return await EARLY.run(operation, run);
  } finally {
    if (--telemetry.early === 0) setImmediate(() => telemetry.load());
  }
}

/** Whether the runtime's load was tried (it is loaded, or known not to load): invocations need not run early. */
export function telemetryLoaded(): boolean {
  return ready?.tried ?? true;
}

/** The context of the host's operation: its span as the parent of what an invocation records. */
export function hostContext(rt: Runtime, operation: HostOperation): OtelApi.Context {
  const { api } = rt;
  const extracted = api.propagation.extract(api.ROOT_CONTEXT, { traceparent: operation.traceParent, tracestate: operation.traceState });
  const spanContext = api.trace.getSpanContext(extracted);
  return spanContext ? api.trace.setSpan(extracted, api.trace.wrapSpanContext(spanContext)) : extracted;
}

/** Resolves once telemetry is running (or known to be off), loading it now if it is not yet. */
export async function telemetryReady(): Promise<boolean> {
  return Boolean(await telemetryRuntime());
}

export function telemetryWanted(): boolean {
  return ready !== undefined;
}

/** Sends what is buffered and stops (appTerminate, dev host shutdown); a later startTelemetry() starts afresh. */
export async function stopTelemetry(): Promise<void> {
  const telemetry = ready;
  ready = undefined;
  // What early invocations recorded is sent too.
  telemetry?.load();
  if (telemetry) telemetry.stopped = true;
  const current = await telemetry?.loaded;
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
  const api = vendored('@opentelemetry/api');
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
  unsubscribes.push(...subscribeHttpClients(rt));
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

/** One JSON log line (already redacted) as a log record of the active operation (or the early invocation's): the message as body, the fields as attributes. */
function exportLogLine(rt: Runtime, line: string, early?: HostOperation): void {
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
    timestamp: timestamp ? new Date(String(timestamp)) : SYSTEM_CLOCK.now(),
    attributes,
    context: early ? hostContext(rt, early) : rt.api.context.active(),
  });
}

/** The running telemetry, loaded now if it is not yet; undefined while it is off (the recorders then pass through). */
export function telemetryRuntime(): Promise<Runtime | undefined> | undefined {
  ready?.load();
  return ready?.loaded;
}

// ---- dependencies: SQL ---------------------------------------------------------------------------

/** One statement as the SQL dependency hears of it: Kysely's log event, or the SQLite health ping's. */
export interface QueryLogEvent {
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
    const end = SYSTEM_CLOCK.now().getTime();
    const early = EARLY.getStore();
    if (runtime) recordSql(runtime, event, end, early);
    else if (early && ready) keep(ready, (rt) => recordSql(rt, event, end, early));
  };
  function recordSql(rt: Runtime, event: QueryLogEvent, end: number, early: HostOperation | undefined): void {
    const active = early ? hostContext(rt, early) : rt.api.context.active();
    if (rt.isSuppressed(active) || !rt.api.trace.getSpanContext(active)) return;
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
  }
}
