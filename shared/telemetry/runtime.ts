import { SYSTEM_CLOCK } from '../platform';
import { config } from '../config';
import { setLogExport } from '../logging';
import { vendored } from '../vendor';
import { subscribeHttpClients } from './http-dependencies';
import type { Runtime } from './otel';

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
          `${JSON.stringify({ level: 'error', timestamp: SYSTEM_CLOCK.now().toISOString(), component: 'telemetry', error: (error as Error).message, msg: 'telemetry did not start; continuing without it' })}\n`,
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
    timestamp: timestamp ? new Date(String(timestamp)) : SYSTEM_CLOCK.now(),
    attributes,
    context: rt.api.context.active(),
  });
}

/** The running telemetry, once loaded; undefined while it is off (the recorders then pass through). */
export function telemetryRuntime(): Promise<Runtime | undefined> | undefined {
  return ready;
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
    const end = SYSTEM_CLOCK.now().getTime();
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
