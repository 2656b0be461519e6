import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import JSON5 from 'json5';
import { assertJsonValue, parseJsonBody, validate } from '../../shared/http/body';
import { badRequest, Code, errorResponse, HttpError, tooLarge } from '../../shared/http/errors';
import { hashKey } from './canonical';
import { applyChartExtras, ChartExtrasError } from './chart-extras';
import { ChartInputError, screenChart } from './chart-input';
import { translateChartJs2, UntranslatableOption } from './chartjs2';
import { fittingDensity } from './charts';
import { isColor } from './colors';
import { failAsRendering } from './errors';
import { headerText, IMAGE_SAFETY_HEADERS } from './headers';
import type { VisualContext } from './context';
import type { Limits } from './limits';
import { chartConfigSchema } from './schemas';
import type { ChartFormat } from './render/tasks';
import { cachedOnRepeat, CONTENT_TYPES, newStats, statsHeaders } from './results';

/**
 * QuickChart-compatible endpoint (`POST /quickchart/chart` and `GET /quickchart/chart?c=...`):
 * existing quickchart-js users switch with setHost/setScheme. QuickChart evaluates `chart` as
 * JavaScript; here it is parsed as JSON5 data, so a function or expression is a 400, never code.
 * Chart.js 2 configurations (QuickChart's default `version`) are translated to Chart.js 4.
 */
const DEFAULTS = { width: 500, height: 300, devicePixelRatio: 2, backgroundColor: 'transparent', format: 'png', version: '2', encoding: 'url' };

/** QuickChart's formats: base64 is a PNG answered as a data URI; jpg is JPEG; pdf is a page holding the PNG. */
const FORMATS: Record<string, ChartFormat | 'base64'> = { png: 'png', svg: 'svg', webp: 'webp', jpg: 'jpeg', jpeg: 'jpeg', pdf: 'pdf', base64: 'base64' };
const EXTENSIONS: Record<ChartFormat, string> = { png: 'png', svg: 'svg', webp: 'webp', jpeg: 'jpg', pdf: 'pdf' };

interface QuickChartRequest {
  chart: unknown;
  width: number;
  height: number;
  devicePixelRatio: number;
  backgroundColor: string;
  format: ChartFormat | 'base64';
  /** Chart.js major version the configuration is written for: 2 (translated) or 3/4 (as is). */
  version: 2 | 3 | 4;
  encoding: 'url' | 'base64';
  filename?: string;
}

const numberParam = (name: string, value: unknown, min: number, max: number, fallback: number): number => {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n < min || n > max) throw badRequest(`${name} must be a number from ${min} to ${max}`);
  return n;
};

/** `version`: "2", "2.9.4", "3", "4", "4.4.1"... by major version; anything else is a 400 naming it. */
function versionParam(value: unknown): 2 | 3 | 4 {
  const text = value === undefined || value === null || value === '' ? DEFAULTS.version : String(value);
  const major = /^\s*([234])(?:\.\d+){0,2}\s*$/.exec(text)?.[1];
  if (!major) throw badRequest(`version "${text}" is not supported; use 2 (Chart.js 2, translated to Chart.js 4), 3 or 4`, Code.VERSION_NOT_SUPPORTED);
  return Number(major) as 2 | 3 | 4;
}

/** Reads QuickChart's parameters from a POST body or a GET query (with QuickChart's short names). */
function readQuickChartRequest(request: HttpRequest, rawBody: Buffer, l: Limits): QuickChartRequest {
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
      version: q.get('v') ?? q.get('version') ?? undefined,
      encoding: q.get('encoding') ?? undefined,
      filename: q.get('filename') ?? undefined,
    };
  } else {
    const body = parseJsonBody(rawBody);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object with a "chart" field');
    const b = body as Record<string, unknown>;
    raw = {
      ...b,
      chart: b.chart ?? b.c,
      width: b.width ?? b.w,
      height: b.height ?? b.h,
      backgroundColor: b.backgroundColor ?? b.bkg,
      format: b.format ?? b.f,
      version: b.version ?? b.v,
    };
  }
  const formatName = String(raw.format ?? DEFAULTS.format).toLowerCase();
  const format = Object.prototype.hasOwnProperty.call(FORMATS, formatName) ? FORMATS[formatName] : undefined;
  if (!format) throw badRequest(`format "${formatName}" is not supported; use png, svg, webp, jpg, pdf or base64`);
  const background = raw.backgroundColor === undefined || raw.backgroundColor === '' ? DEFAULTS.backgroundColor : raw.backgroundColor;
  if (typeof background !== 'string' || background.length > 100 || !isColor(background)) {
    throw badRequest(
      `backgroundColor "${String(background).slice(0, 100)}" is not a colour; use a name (white, transparent), #rgb, #rrggbb, rgb(), rgba(), hsl() or hsla()`,
    );
  }
  const encoding = String(raw.encoding ?? DEFAULTS.encoding).toLowerCase();
  if (encoding !== 'url' && encoding !== 'base64') throw badRequest(`encoding "${encoding}" is not supported; use url (the default) or base64`);
  if (raw.filename !== undefined && (typeof raw.filename !== 'string' || raw.filename.length > 200))
    throw badRequest('filename must be a string of at most 200 characters');
  return {
    chart: raw.chart,
    width: Math.round(numberParam('width', raw.width, 1, l.maxDimension, DEFAULTS.width)),
    height: Math.round(numberParam('height', raw.height, 1, l.maxDimension, DEFAULTS.height)),
    devicePixelRatio: numberParam('devicePixelRatio', raw.devicePixelRatio, 0.1, 3, DEFAULTS.devicePixelRatio),
    backgroundColor: background,
    format,
    version: versionParam(raw.version),
    encoding,
    filename: (raw.filename as string | undefined) || undefined,
  };
}

/** Tokens that make JavaScript more than data: a function, an arrow, `new`, a template literal. */
const CODE_TOKENS: ReadonlySet<string> = new Set(['function', '=>', 'new', '`']);
/** A call or a member access: one of these tokens right after a name, `this` or a closing bracket. */
const CALLABLE: ReadonlySet<string> = new Set(['name', 'this', ')', ']']);
const APPLIED: ReadonlySet<string> = new Set(['(', '.', '?.']);

/**
 * Whether text that is not JSON5 holds JavaScript that does something (a function, an arrow, a
 * call, a member access, `new`, a template literal), to say so rather than "invalid JSON". Read by
 * acorn's tokenizer, which works in time linear in the text and skips strings and comments as
 * JavaScript does; nothing is evaluated. Text that stops tokenizing is judged on what came before.
 */
function holdsCode(text: string): boolean {
  const acorn = require('acorn') as typeof import('acorn');
  let previous = '';
  try {
    for (const token of acorn.tokenizer(text, { ecmaVersion: 'latest' })) {
      const label = token.type.label;
      if (CODE_TOKENS.has(label) || (APPLIED.has(label) && CALLABLE.has(previous))) return true;
      previous = label;
    }
  } catch {
    // A syntax error ends the scan; what was read so far decides.
  }
  return false;
}

/** The `chart` text: base64-decoded when `encoding=base64` (standard or URL-safe alphabet). */
function chartText(chart: string, encoding: 'url' | 'base64'): string {
  if (encoding === 'url') return chart;
  const compact = chart.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) || compact.length % 4 === 1)
    throw badRequest('chart is not valid base64 (encoding=base64)', Code.CHART_BASE64_INVALID);
  return Buffer.from(compact, 'base64').toString('utf8');
}

/**
 * The longest `chart` text read as JSON5. JSON5's parser is JavaScript, about 120 ns a character
 * on the request thread (measured: 2 MB of points held it 240 ms on the dev machine, 1.1 to 1.7 s
 * on a loaded host), where JSON.parse reads 2 MB in about 25 ms. At this length JSON5 costs at
 * most what JSON costs at the body limit (about 30 ms measured); longer text is refused before
 * JSON5 reads it, and JSON is read up to the body limit.
 */
export const MAX_JSON5_CHART_CHARS = 262_144;

/**
 * Text read as JSON when it is JSON (what clients that stringify their configuration send), as
 * JSON5 otherwise, up to MAX_JSON5_CHART_CHARS: JSON5 reads any JSON text to the same value, and
 * JSON.parse is ten times faster than JSON5's parser written in JavaScript (about 50 µs of a small
 * chart's request).
 */
function parseJsonFirst(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    if (text.length > MAX_JSON5_CHART_CHARS)
      throw tooLarge(
        `chart is ${text.length} characters of JavaScript object-literal (JSON5) text; the limit for such text is ${MAX_JSON5_CHART_CHARS} characters. Send a larger chart as JSON, which is read up to the body limit`,
        Code.CHART_TEXT_TOO_LARGE,
      );
    return JSON5.parse(text);
  }
}

/** `chart` as data: a JSON object, or QuickChart's JavaScript object-literal text read as JSON5. */
export function parseChartConfig(chart: unknown, l: Limits, encoding: 'url' | 'base64' = 'url'): Record<string, unknown> {
  let value = chart;
  if (typeof chart === 'string') {
    const text = chartText(chart, encoding);
    try {
      value = parseJsonFirst(text);
    } catch (error) {
      if (error instanceof HttpError) throw error;
      if (holdsCode(text)) {
        throw badRequest(
          'chart is not a data-only configuration: it contains JavaScript (a function, call or expression), which is never evaluated here',
          Code.CHART_NOT_DATA,
        );
      }
      throw badRequest(`chart is not valid JSON or JavaScript object-literal syntax: ${(error as Error).message}`, Code.INVALID_CHART);
    }
  }
  if (value === undefined || value === null || value === '') throw badRequest('chart (or c) is required', Code.VALIDATION_FAILED);
  assertJsonValue(value, 'chart');
  try {
    screenChart(value, l.maxDimension);
  } catch (error) {
    if (error instanceof ChartInputError)
      throw badRequest(`Invalid chart: ${error.message}`, Code.VALIDATION_FAILED, {
        field: error.field,
        details: [{ field: error.field, message: error.reason }],
      });
    throw error;
  }
  return validate<Record<string, unknown>>(chartConfigSchema(l), value, 'chart');
}

/** The Chart.js 4 configuration to draw: Chart.js 2 translated, QuickChart's types and plugins as data. */
export function quickChartConfig(config: Record<string, unknown>, version: 2 | 3 | 4): Record<string, unknown> {
  try {
    const translated = version === 2 ? translateChartJs2(config) : config;
    return applyChartExtras(translated, version === 2);
  } catch (error) {
    if (error instanceof UntranslatableOption) throw badRequest(`chart: ${error.message}`, Code.CHART_OPTION_UNSUPPORTED, { field: error.option });
    if (error instanceof ChartExtrasError) throw badRequest(`chart: ${error.message}`, Code.VALIDATION_FAILED, { field: error.field });
    throw error;
  }
}

/** `Content-Disposition` for a requested filename: an ASCII fallback and the exact name (RFC 6266), with the format's extension. */
function disposition(filename: string, format: ChartFormat | 'base64'): string {
  const extension = format === 'base64' ? 'txt' : EXTENSIONS[format];
  const base = filename.replace(/[\\/]/g, '_').replace(/\.[A-Za-z0-9]{1,5}$/, '') || 'chart';
  const name = `${base}.${extension}`;
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

async function render(ctx: VisualContext, request: HttpRequest, rawBody: Buffer): Promise<HttpResponseInit> {
  const l = ctx.limits;
  const params = readQuickChartRequest(request, rawBody, l);
  const config = quickChartConfig(parseChartConfig(params.chart, l, params.encoding), params.version);
  const format: ChartFormat = params.format === 'base64' ? 'png' : params.format;
  // As QuickChart documents: a density too large for the pixel cap is reduced, not refused.
  const pixelRatio = format === 'svg' ? 1 : fittingDensity(params.devicePixelRatio, params.width, params.height);
  const key = hashKey('quickchart', config, format, params.width, params.height, pixelRatio, params.backgroundColor);
  const stats = newStats();
  // Always in process: this endpoint is the QuickChart server (QUICKCHART_URL may point back here).
  const bytes = await cachedOnRepeat(ctx, key, CONTENT_TYPES[format], stats, () =>
    failAsRendering('', () =>
      ctx.renderPool.run({ kind: 'chart', config, width: params.width, height: params.height, pixelRatio, format, background: params.backgroundColor }),
    ),
  );
  const headers: Record<string, string> = { ETag: `"${key}"`, 'Cache-Control': 'public, max-age=3600', ...IMAGE_SAFETY_HEADERS, ...statsHeaders(stats) };
  if (params.filename) headers['Content-Disposition'] = disposition(params.filename, params.format);
  if (params.format === 'base64') {
    return {
      status: 200,
      body: `data:${CONTENT_TYPES.png};base64,${bytes.toString('base64')}`,
      headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' },
    };
  }
  return { status: 200, body: bytes, headers: { ...headers, 'Content-Type': CONTENT_TYPES[format] } };
}

/** quickchart-js reports a failed request with the X-quickchart-error header, so every error carries it (percent-encoded where it is not printable ASCII). */
export function withQuickChartError(error: unknown): unknown {
  if (!(error instanceof HttpError)) return error;
  const header = headerText([...error.message].slice(0, 500).join(''));
  return new HttpError(error.status, error.error, error.message, error.code, error.extra, { ...error.headers, 'X-quickchart-error': header });
}

export async function quickChartEndpoint(ctx: VisualContext, request: HttpRequest, rawBody: Buffer): Promise<HttpResponseInit> {
  try {
    return await render(ctx, request, rawBody);
  } catch (error) {
    const refusal = withQuickChartError(error);
    if (!(refusal instanceof HttpError)) throw refusal;
    return errorResponse(refusal);
  }
}

/**
 * QuickChart's clients authenticate with their API key as a parameter (`new QuickChart(key)` sends
 * `key`): in the query of a GET, in the JSON body of a POST. A body that is not JSON holds none.
 */
export function quickChartKey(request: HttpRequest, rawBody: Buffer | undefined): string | undefined {
  if (request.method === 'GET') return request.query.get('key') ?? undefined;
  try {
    const body: unknown = JSON.parse(rawBody?.toString('utf8') ?? '');
    const key = body && typeof body === 'object' ? (body as { key?: unknown }).key : undefined;
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}
