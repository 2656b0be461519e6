/**
 * What the Functions host does with the functions a worker registered: HTTP routing, timers and
 * queue polling, reusing the dev host's pieces (ASP.NET routes, croner, the queue poller), with
 * every invocation going through the worker (./core-api): the request in the worker's RPC form,
 * the trace context the host would pass, the response converted back by the library itself.
 */
import type { HttpMethod, HttpRequest, HttpResponseInit, InvocationContext, Timer } from '@azure/functions';
import type { FunctionDefinition } from '../../shared/functions';
import { childTraceParent, type FunctionsWorker, type InvocationResult, type RpcHttpData, type RpcTypedData } from './core-api';

const ALL_METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

function check(result: InvocationResult, name: string): InvocationResult {
  if (result.error !== undefined) throw result.error instanceof Error ? result.error : new Error(`${name} failed: ${String(result.error)}`);
  return result;
}

const asBuffer = (data: RpcTypedData | null | undefined): Buffer | string | undefined => {
  if (!data) return undefined;
  if (data.bytes) return Buffer.from(data.bytes);
  if (data.string != null) return data.string;
  if (data.json != null) return data.json;
  return undefined;
};

/** The host continues the caller's trace (W3C traceparent) or starts one, and hands the invocation a span of its own in it. */
function hostTraceContext(traceparent: string | null) {
  const traceId = /^00-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(traceparent ?? '')?.[1];
  return { traceParent: childTraceParent(traceId), traceState: '', attributes: {} };
}

async function toRpcRequest(request: HttpRequest): Promise<RpcHttpData> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, key) => (headers[key] = value));
  const query: Record<string, string> = {};
  request.query.forEach((value, key) => (query[key] = value));
  return {
    method: request.method,
    url: request.url,
    headers,
    query,
    params: { ...request.params },
    body: { bytes: new Uint8Array(await request.arrayBuffer()) },
  };
}

function fromRpcResponse(data: RpcTypedData | null | undefined): HttpResponseInit {
  const http = data?.http;
  if (!http) return { status: 204 };
  if (http.cookies?.length) throw new Error('cookies in a response are not supported by this emulation (our functions set none)');
  return { status: Number(http.statusCode ?? 200), headers: http.headers ?? {}, body: asBuffer(http.body) };
}

/** The worker's registrations as definitions the dev host's HTTP server, timers and queue pollers serve. */
export function registeredFunctions(worker: FunctionsWorker): FunctionDefinition[] {
  return [...worker.functions.values()].map(({ metadata, trigger }): FunctionDefinition => {
    const name = metadata.name;
    switch (trigger.type) {
      case 'httpTrigger':
        return {
          kind: 'http',
          name,
          route: String(trigger.route ?? name),
          methods: ((trigger.methods as string[] | undefined)?.map((m) => m.toUpperCase()) as HttpMethod[] | undefined) ?? ALL_METHODS,
          handler: async (request: HttpRequest) => {
            const result = await worker.invoke(name, {
              trigger: { http: await toRpcRequest(request) },
              traceContext: hostTraceContext(request.headers.get('traceparent')),
            });
            return fromRpcResponse(check(result, name).returnValue);
          },
        };
      case 'timerTrigger':
        return {
          kind: 'timer',
          name,
          schedule: String(trigger.schedule),
          runOnStartup: Boolean(trigger.runOnStartup),
          handler: async (timer: Timer) => {
            // The host sends the timer in .NET casing; the library camel-cases it.
            const payload = {
              Schedule: { AdjustForDST: timer.schedule.adjustForDST },
              ScheduleStatus: { Last: timer.scheduleStatus?.last, Next: timer.scheduleStatus?.next, LastUpdated: timer.scheduleStatus?.lastUpdated },
              IsPastDue: timer.isPastDue,
            };
            check(await worker.invoke(name, { trigger: { json: JSON.stringify(payload) }, traceContext: hostTraceContext(null) }), name);
          },
        };
      case 'queueTrigger':
        return {
          kind: 'queue',
          name,
          queueName: String(trigger.queueName),
          handler: async (message: unknown, context: InvocationContext) => {
            const meta = context.triggerMetadata ?? {};
            const triggerMetadata: Record<string, RpcTypedData> = {
              Id: { string: String(meta.id ?? '') },
              DequeueCount: { json: JSON.stringify(meta.dequeueCount ?? 1) },
              PopReceipt: { string: String(meta.popReceipt ?? '') },
            };
            const data: RpcTypedData = typeof message === 'string' ? { string: message } : { json: JSON.stringify(message) };
            check(await worker.invoke(name, { trigger: data, triggerMetadata, traceContext: hostTraceContext(null) }), name);
          },
        };
      default:
        throw new Error(`${name}: ${trigger.type} is not served by this emulation`);
    }
  });
}
