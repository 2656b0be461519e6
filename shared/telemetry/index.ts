/**
 * Application Insights through OpenTelemetry and the Azure Monitor exporter, on when
 * APPLICATIONINSIGHTS_CONNECTION_STRING is set, nothing at all otherwise.
 *
 * Why not the `applicationinsights` SDK: loading it takes about 1.2 s (2,900 modules), most of a
 * cold start. This module loads nothing until `startTelemetry()`, and even then the OpenTelemetry
 * SDK loads after the instance's first answer under the Functions host (the invocations before it
 * keep their SQL dependencies and log lines for it, not their outgoing HTTP calls: runtime.ts
 * `runEarly`), or with the first invocation without a host, which waits for it; the Azure Monitor
 * exporter loads with the first batch sent, seconds later, off the first request's path.
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
export { sqlDependencyLogger, startTelemetry, stopTelemetry, telemetryReady, telemetryWanted, type QueryLogEvent } from './runtime';
export { instrument } from './requests';
