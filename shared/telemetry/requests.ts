import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type * as OtelApi from '@opentelemetry/api';
import type { FunctionDefinition } from '../functions';
import { withoutQuery } from '../text';
import { hostContext, runEarly, telemetryLoaded, telemetryRuntime, telemetryWanted } from './runtime';

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
  const host = context.traceContext?.traceParent;
  const operation = host ? { traceParent: host, traceState: context.traceContext?.traceState ?? '' } : undefined;
  // Under the host, an invocation never waits for the SDK to load (shared/telemetry/runtime.ts runEarly).
  if (operation && !telemetryLoaded()) return runEarly(operation, run);
  const rt = await telemetryRuntime();
  if (!rt) return run();
  const { api } = rt;
  if (operation) return api.context.with(hostContext(rt, operation), run);
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
          if (!telemetryWanted()) return handler(request, context);
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
    case 'timer':
      return { ...fn, handler: triggered(fn.name, 'timer', common, fn.handler) };
    case 'queue':
      return { ...fn, handler: triggered(fn.name, 'pubsub', common, fn.handler) };
  }
}

/** A timer's or a queue message's invocation, recorded as a request of its trigger kind when telemetry is on. */
function triggered<I>(name: string, trigger: string, common: OtelApi.Attributes, handler: (input: I, context: InvocationContext) => Promise<void>) {
  return (input: I, context: InvocationContext) =>
    telemetryWanted()
      ? inOperation(
          context,
          () => ({ name, attributes: { ...common, 'faas.trigger': trigger } }),
          () => handler(input, context),
        )
      : handler(input, context);
}
