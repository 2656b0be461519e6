import type * as OtelApi from '@opentelemetry/api';
import type { Logger as OtelLogger } from '@opentelemetry/api-logs';

/** The loaded OpenTelemetry pieces every recorder uses (shared/telemetry/runtime.ts loads them). */
export interface Runtime {
  api: typeof OtelApi;
  tracer: OtelApi.Tracer;
  logger: OtelLogger;
  isSuppressed(context: OtelApi.Context): boolean;
  ingestionHost: string;
  shutdown(): Promise<void>;
}
