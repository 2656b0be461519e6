import type { HttpResponseInit } from '@azure/functions';
import { Code, notFound } from '../../../shared/http/errors';
import { json } from '../../../shared/http/handler';
import { renderCharts } from '../charts';
import { op, type VisualContext } from '../context';
import { renderDiagrams } from '../diagrams';
import { postOnly, resourceNotFound } from '../errors';
import { generateInfographics } from '../infographics';
import { generatePresentation } from '../presentations';
import { statsHeaders, type RenderStats } from '../results';

/** A render of the API: the domain function's answer, with the X-Cache / X-Render-* headers of what it did. */
const api = <B>(summary: string, render: (ctx: VisualContext, body: B) => Promise<{ body: unknown; stats: RenderStats }>) =>
  op<undefined, B>(summary, async ({ ctx, body }) => {
    const { body: out, stats } = await render(ctx, body);
    return json(200, out, statsHeaders(stats));
  });

export const charts = api('Renders chart specifications to PNG, SVG or base64 (themed, cached for 12 hours)', renderCharts);
export const infographics = api('Generates infographics (metric dashboards) as SVG or PNG', generateInfographics);
export const presentations = api('Builds a PowerPoint presentation of slides with charts', generatePresentation);
export const diagrams = api('Renders Graphviz (DOT) diagrams to SVG or PNG', renderDiagrams);

/** The API's resources and the operation each takes (POST only). */
const RESOURCES: Record<string, string> = { charts: 'render', infographics: 'generate', presentations: 'generate', diagrams: 'render' };

/** Anything else under /api/v1/: an unknown resource is 404 whatever the method; a known one takes POST on its operation only. */
export const apiFallback = op<undefined, unknown, unknown, { rest?: string }>(
  'Answers every other path and method under /api/v1/ (404 for an unknown resource, 405 for another method)',
  async ({ request, params }): Promise<HttpResponseInit> => {
    const [resource = '', operation = ''] = (params.rest ?? '').toLowerCase().split('/');
    if (!Object.prototype.hasOwnProperty.call(RESOURCES, resource)) throw resourceNotFound(resource);
    if (request.method !== 'POST') throw postOnly(request.method);
    throw notFound(`No operation "${operation}" on ${resource}; use POST /api/v1/${resource}/${RESOURCES[resource]}`, Code.OPERATION_NOT_FOUND);
  },
);
