import { HttpError } from '../../shared/http/errors';
import { RenderBusyError, RenderError, RenderInputError } from './render/pool';

/** The error bodies of spec 7.3: `error` is the exact string the spec gives. */
export const methodNotAllowed = (method: string, allowed = 'POST') =>
  new HttpError(405, 'Method not allowed', `${method} is not allowed here; use ${allowed}`, 'METHOD_NOT_ALLOWED', {}, { Allow: allowed });
export const resourceNotFound = (resource: string) =>
  new HttpError(404, 'Resource not found', `No resource "${resource}" under /api/v1/ (charts, infographics, presentations, diagrams)`, 'RESOURCE_NOT_FOUND');
export const invalidChartsArray = (message: string) => new HttpError(400, 'Invalid charts array', message, 'INVALID_CHARTS_ARRAY');
export const renderingFailed = (details: string) => new HttpError(500, 'Chart rendering failed', details, 'RENDER_FAILED', { details });
export const rendererBusy = (message: string) => new HttpError(503, 'Service unavailable', message, 'RENDERER_BUSY', { retryAfter: 1 }, { 'Retry-After': '1' });
export const chartNotRenderable = (details: string) =>
  new HttpError(400, 'Invalid chart specification', `The chart cannot be drawn: ${details}`, 'CHART_NOT_RENDERABLE', { details });
export const tooManyItems = (what: string, count: number, max: number) =>
  new HttpError(413, 'Payload too large', `${count} ${what} in one request; the limit is ${max}`, 'LIMIT_EXCEEDED');

/**
 * Runs a render; a full queue becomes 503 with Retry-After; a configuration Chart.js refuses becomes
 * 400 naming the reason; a renderer failure (thread error, timeout, QuickChart error) becomes 500
 * Chart rendering failed naming the item.
 */
export async function failAsRendering<T>(label: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RenderBusyError) throw rendererBusy(error.message);
    if (error instanceof RenderInputError) throw chartNotRenderable(label ? `${label}: ${error.message}` : error.message);
    if (error instanceof RenderError) throw renderingFailed(label ? `${label}: ${error.message}` : error.message);
    throw error;
  }
}
