import { badRequest, Code, httpError, methodNotAllowed, notFound, tooLarge } from '../../shared/http/errors';
import { RenderBusyError, RenderError, RenderInputError, RenderTooLargeError } from './render/pool';
import { MAX_PIXELS } from './render/tasks';

// The visual API's error answers. Some errors have a published name that clients match on, and
// `error` is exactly that name (Resource not found, Invalid charts array, Chart rendering failed,
// Invalid chart specification): the error list gives those names with their codes.
export const postOnly = (method: string) => methodNotAllowed(method, ['POST']);
export const resourceNotFound = (resource: string) =>
  notFound(`No resource "${resource}" under /api/v1/ (charts, infographics, presentations, diagrams)`, Code.RESOURCE_NOT_FOUND);
export const invalidChartsArray = (message: string) => badRequest(message, Code.INVALID_CHARTS_ARRAY);
export const renderingFailed = (details: string) => httpError(Code.RENDER_FAILED, details, { extra: { details } });
export const rendererBusy = (message: string) => httpError(Code.RENDERER_BUSY, message, { extra: { retryAfter: 1 }, headers: { 'Retry-After': '1' } });
export const chartNotRenderable = (details: string) => badRequest(`The chart cannot be drawn: ${details}`, Code.CHART_NOT_RENDERABLE, { details });
export const imageTooLarge = (label: string, error: RenderTooLargeError) =>
  badRequest(label ? `${label}: ${error.message}` : error.message, Code.IMAGE_TOO_LARGE, {
    details: { width: error.width, height: error.height, maxPixels: MAX_PIXELS },
  });
export const tooManyItems = (what: string, count: number, max: number) => tooLarge(`${count} ${what} in one request; the limit is ${max}`, Code.LIMIT_EXCEEDED);

/**
 * Runs a render; a full queue becomes 503 with Retry-After; a configuration Chart.js refuses becomes
 * 400 naming the reason, an image over the pixel cap 400 IMAGE_TOO_LARGE; a renderer failure (thread error, timeout, QuickChart error) becomes 500
 * Chart rendering failed naming the item.
 */
export async function failAsRendering<T>(label: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RenderBusyError) throw rendererBusy(error.message);
    if (error instanceof RenderTooLargeError) throw imageTooLarge(label, error);
    if (error instanceof RenderInputError) throw chartNotRenderable(label ? `${label}: ${error.message}` : error.message);
    if (error instanceof RenderError) throw renderingFailed(label ? `${label}: ${error.message}` : error.message);
    throw error;
  }
}
