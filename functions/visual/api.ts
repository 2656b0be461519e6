import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { readJson } from '../../shared/http/body';
import { notFound } from '../../shared/http/errors';
import { json, type RequestContext } from '../../shared/http/handler';
import { requireVisualToken } from './auth';
import { renderCharts } from './charts';
import { renderDiagrams } from './diagrams';
import { methodNotAllowed, resourceNotFound } from './errors';
import { generateInfographics } from './infographics';
import { limits, type Limits } from './limits';
import { generatePresentation } from './presentations';
import { statsHeaders, type RenderStats } from './results';

/** Shape checks belong to each operation, so spec 7.3's messages ("Invalid charts array") come first. */
const ANY_JSON = {};

type Operation = (body: unknown, l: Limits) => Promise<{ body: unknown; stats: RenderStats }>;

/** Resource -> operation -> handler. The resource is the first segment after /api/v1/ (spec 4.4). */
const RESOURCES: Record<string, Record<string, Operation>> = {
  charts: { render: renderCharts },
  infographics: { generate: generateInfographics },
  presentations: { generate: generatePresentation },
  diagrams: { render: renderDiagrams },
};

const own = <T>(record: Record<string, T>, key: string): T | undefined => (Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined);

/**
 * `visual/api/v1/{resource?}/{*rest}`, every method: an unknown resource is a 404 whatever the
 * method; a known one takes POST only (405 otherwise); then the token; then the operation.
 */
export async function dispatchApi(request: HttpRequest, _ctx: RequestContext): Promise<HttpResponseInit> {
  const resource = (request.params.resource ?? '').toLowerCase();
  const operations = own(RESOURCES, resource);
  if (!operations) throw resourceNotFound(resource);
  if (request.method !== 'POST') throw methodNotAllowed(request.method);
  requireVisualToken(request);
  const name = (request.params.rest ?? '').toLowerCase();
  const operation = own(operations, name);
  if (!operation) throw notFound(`No operation "${name}" on ${resource}; use POST /api/v1/${resource}/${Object.keys(operations)[0]}`, 'OPERATION_NOT_FOUND');
  const l = limits();
  const { body, stats } = await operation(await readJson<unknown>(request, ANY_JSON, l.maxBodyBytes), l);
  return json(200, body, statsHeaders(stats));
}
