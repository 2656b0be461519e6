import dc from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type * as OtelApi from '@opentelemetry/api';
import { withoutQuery } from '../text';
import type { Runtime } from './otel';

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

/** Subscribes to the HTTP clients' diagnostics channels; answers the unsubscribe functions. */
export function subscribeHttpClients(rt: Runtime): (() => void)[] {
  const unsubscribes: (() => void)[] = [];
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
  return unsubscribes;
}
