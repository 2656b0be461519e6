import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { json, type RequestContext } from '../../shared/http/handler';
import { notFound } from '../../shared/http/errors';
import { requireVisualToken } from './auth';
import { renderCharts, statsHeaders } from './charts';
import { methodNotAllowed, resourceNotFound } from './errors';
import { limits } from './limits';
import { readJsonValue } from './request';

type Operation = (body: unknown) => Promise<{ body: unknown; headers?: Record<string, string> }>;

/** Resource -> operation name -> handler. The resource is the first segment after /api/v1/ (spec 4.4). */
const RESOURCES: Record<string, Record<string, Operation>> = {
  charts: {
    render: async (body) => {
      const { body: out, stats } = await renderCharts(body, limits());
      return { body: out, headers: statsHeaders(stats) };
    },
  },
};

/** Registers a resource's operations (infographics, presentations, diagrams add theirs). */
export function addResource(name: string, operations: Record<string, Operation>): void {
  RESOURCES[name] = operations;
}

/**
 * `visual/api/v1/{resource?}/{*rest}`, every method: an unknown resource is a 404 whatever the
 * method; a known one takes POST only (405 otherwise); then the token; then the operation.
 */
export async function dispatchApi(request: HttpRequest, _ctx: RequestContext): Promise<HttpResponseInit> {
  const resource = (request.params.resource ?? '').toLowerCase();
  const operations = Object.prototype.hasOwnProperty.call(RESOURCES, resource) ? RESOURCES[resource] : undefined;
  if (!operations) throw resourceNotFound(resource);
  if (request.method !== 'POST') throw methodNotAllowed(request.method);
  requireVisualToken(request);
  const operationName = (request.params.rest ?? '').toLowerCase();
  const operation = Object.prototype.hasOwnProperty.call(operations, operationName) ? operations[operationName] : undefined;
  if (!operation) throw notFound(`No operation "${operationName}" on ${resource}; use POST /api/v1/${resource}/${Object.keys(operations)[0]}`, 'OPERATION_NOT_FOUND');
  const body = await readJsonValue(request, limits().maxBodyBytes);
  const result = await operation(body);
  return json(200, result.body, result.headers);
}
