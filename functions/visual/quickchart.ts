import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import JSON5 from 'json5';
import { readJson, validate } from '../../shared/http/body';
import { badRequest, errorResponse, HttpError } from '../../shared/http/errors';
import type { RequestContext } from '../../shared/http/handler';
import { requireVisualToken } from './auth';
import { canonical, hashKey } from './canonical';
import { CHART_TYPES } from './chart-spec';
import { MAX_PIXELS } from './charts';
import { failAsRendering } from './errors';
import { headerText, IMAGE_SAFETY_HEADERS } from './headers';
import { limits, perLimits, type Limits } from './limits';
import { renderPool } from './render/renderer';
import { cachedOrRendered, CONTENT_TYPES, newStats, statsHeaders } from './results';

/**
 * QuickChart-compatible endpoint (`POST /quickchart/chart` and `GET /quickchart/chart?c=...`):
 * existing quickchart-js users switch with setHost/setScheme. QuickChart evaluates `chart` as
 * JavaScript; here it is parsed as JSON5 data, so a function or expression is a 400, never code.
 */
const ANY_JSON = {};
const DEFAULTS = { width: 500, height: 300, devicePixelRatio: 2, backgroundColor: 'transparent', format: 'png' };

interface QuickChartRequest {
  chart: unknown;
  width: number;
  height: number;
  devicePixelRatio: number;
  backgroundColor: string;
  format: 'png' | 'svg';
  key?: string;
}

function chartConfigSchema(l: Limits) {
  return {
    type: 'object',
    required: ['type', 'data'],
    additionalProperties: false,
    properties: {
      type: { enum: CHART_TYPES },
      data: {
        type: 'object',
        required: ['datasets'],
        properties: {
          labels: { type: 'array', maxItems: l.maxPoints },
          datasets: { type: 'array', minItems: 1, maxItems: l.maxDatasets, items: { type: 'object', properties: { data: { type: 'array', maxItems: l.maxPoints } } } },
        },
      },
      options: { type: 'object' },
    },
  };
}
const configSchema = perLimits(chartConfigSchema);

const numberParam = (name: string, value: unknown, min: number, max: number, fallback: number): number => {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n < min || n > max) throw badRequest(`${name} must be a number from ${min} to ${max}`);
  return n;
};

/** Reads QuickChart's parameters from a POST body or a GET query (with QuickChart's short names). */
async function readQuickChartRequest(request: HttpRequest, l: Limits): Promise<QuickChartRequest> {
  let raw: Record<string, unknown>;
  if (request.method === 'GET') {
    const q = request.query;
    raw = {
      chart: q.get('c') ?? q.get('chart') ?? undefined,
      width: q.get('w') ?? q.get('width') ?? undefined,
      height: q.get('h') ?? q.get('height') ?? undefined,
      devicePixelRatio: q.get('devicePixelRatio') ?? undefined,
      backgroundColor: q.get('bkg') ?? q.get('backgroundColor') ?? undefined,
      format: q.get('f') ?? q.get('format') ?? undefined,
      key: q.get('key') ?? undefined,
    };
  } else {
    const body = await readJson<unknown>(request, ANY_JSON, l.maxBodyBytes);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object with a "chart" field');
    raw = body as Record<string, unknown>;
  }
  const format = (raw.format ?? DEFAULTS.format) as string;
  if (format !== 'png' && format !== 'svg') throw badRequest(`format "${format}" is not supported; use png or svg`);
  if (raw.backgroundColor !== undefined && (typeof raw.backgroundColor !== 'string' || raw.backgroundColor.length > 100)) throw badRequest('backgroundColor must be a color string');
  return {
    chart: raw.chart,
    width: Math.round(numberParam('width', raw.width, 1, l.maxDimension, DEFAULTS.width)),
    height: Math.round(numberParam('height', raw.height, 1, l.maxDimension, DEFAULTS.height)),
    devicePixelRatio: numberParam('devicePixelRatio', raw.devicePixelRatio, 0.1, 3, DEFAULTS.devicePixelRatio),
    backgroundColor: (raw.backgroundColor as string | undefined) || DEFAULTS.backgroundColor,
    format,
    key: typeof raw.key === 'string' ? raw.key : undefined,
  };
}

/** `chart` as data: a JSON object, or QuickChart's JavaScript object-literal text read as JSON5. */
export function parseChartConfig(chart: unknown, l: Limits): Record<string, unknown> {
  let value = chart;
  if (typeof chart === 'string') {
    try {
      value = JSON5.parse(chart);
    } catch (error) {
      throw badRequest(
        `chart is not a data-only configuration (functions and expressions are not evaluated here): ${(error as Error).message}`,
        'CHART_NOT_DATA',
      );
    }
  }
  if (value === undefined || value === null) throw badRequest('chart is required', 'VALIDATION_FAILED');
  return canonical(validate<Record<string, unknown>>(configSchema(l), value, 'chart'));
}

async function render(request: HttpRequest): Promise<HttpResponseInit> {
  const l = limits();
  const params = await readQuickChartRequest(request, l);
  requireVisualToken(request, params.key);
  const config = parseChartConfig(params.chart, l);
  const pixelRatio = params.format === 'svg' ? 1 : Math.min(params.devicePixelRatio, Math.sqrt(MAX_PIXELS / (params.width * params.height)));
  const key = hashKey('quickchart', config, params.format, params.width, params.height, pixelRatio, params.backgroundColor);
  const stats = newStats();
  // Always in process: this endpoint is the QuickChart server (QUICKCHART_URL may point back here).
  const entry = await cachedOrRendered(key, CONTENT_TYPES[params.format], true, stats, () =>
    failAsRendering('', () =>
      renderPool().run({ kind: 'chart', config, width: params.width, height: params.height, pixelRatio, format: params.format, background: params.backgroundColor }),
    ),
  );
  return {
    status: 200,
    body: entry.bytes,
    headers: { 'Content-Type': CONTENT_TYPES[params.format], ETag: `"${key}"`, 'Cache-Control': 'public, max-age=3600', ...IMAGE_SAFETY_HEADERS, ...statsHeaders(stats) },
  };
}

/** quickchart-js reports a failed request with the X-quickchart-error header, so every error carries it (percent-encoded where it is not printable ASCII). */
export async function quickChartEndpoint(request: HttpRequest, _ctx: RequestContext): Promise<HttpResponseInit> {
  try {
    return await render(request);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    const response = errorResponse(error);
    return { ...response, headers: { ...(response.headers as Record<string, string>), 'X-quickchart-error': headerText([...error.message].slice(0, 500).join('')) } };
  }
}
