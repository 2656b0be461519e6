import type { ErrorObject } from 'ajv';
import type { VisualConfig } from './settings';
import { invalid } from '../../shared/http/body';
import { badRequest, Code, httpError, methodNotAllowed, notFound, tooLarge } from '../../shared/http/errors';
import { limitsOf, type Limits } from './limits';
import { RenderBusyError, RenderError, RenderInputError, RenderSvgTooLargeError, RenderTicksError, RenderTooLargeError } from './render/pool';
import { MAX_PIXELS, MAX_SVG_BYTES } from './render/tasks';

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
const labelled = (label: string, message: string) => (label ? `${label}: ${message}` : message);
export const tooManyTicks = (label: string, error: RenderTicksError) =>
  badRequest(labelled(label, error.message), Code.TOO_MANY_TICKS, { field: `options.${error.axis}` });
export const svgTooLarge = (label: string, error: RenderSvgTooLargeError) =>
  badRequest(`${labelled(label, error.message)}: draw fewer elements (pointRadius: 0 on a line of many points) or ask for PNG`, Code.SVG_TOO_LARGE, {
    details: { maxBytes: MAX_SVG_BYTES },
  });
export const tooManyItems = (what: string, count: number, max: number) => tooLarge(`${count} ${what} in one request; the limit is ${max}`, Code.LIMIT_EXCEEDED);

/**
 * Runs a render; a full queue becomes 503 with Retry-After; a configuration Chart.js refuses becomes
 * 400 naming the reason, an image over the pixel cap 400 IMAGE_TOO_LARGE, an axis over its tick limit
 * 400 TOO_MANY_TICKS naming it, an SVG over its size cap 400 SVG_TOO_LARGE; a renderer failure (thread error, timeout, QuickChart error) becomes 500
 * Chart rendering failed naming the item.
 */
export async function failAsRendering<T>(label: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof RenderBusyError) throw rendererBusy(error.message);
    if (error instanceof RenderTooLargeError) throw imageTooLarge(label, error);
    if (error instanceof RenderTicksError) throw tooManyTicks(label, error);
    if (error instanceof RenderSvgTooLargeError) throw svgTooLarge(label, error);
    if (error instanceof RenderInputError) throw chartNotRenderable(label ? `${label}: ${error.message}` : error.message);
    if (error instanceof RenderError) throw renderingFailed(label ? `${label}: ${error.message}` : error.message);
    throw error;
  }
}

/** The schema's errors about the value at `pointer` (a JSON pointer into the body) or within it, their paths made relative to it. */
export function errorsAt(errors: readonly ErrorObject[], pointer: string): ErrorObject[] {
  return errors
    .filter((e) => e.instancePath === pointer || e.instancePath.startsWith(`${pointer}/`))
    .map((e) => ({ ...e, instancePath: e.instancePath.slice(pointer.length) }));
}

/** The schema's errors about these top-level fields of the body, in the schema's order. */
export const errorsOfFields = (errors: readonly ErrorObject[], fields: readonly string[]) =>
  errors.filter((e) => fields.some((field) => e.instancePath === `/${field}`));

/** Refuses `what` (400 VALIDATION_FAILED "Invalid <what>: ...") when the schema found errors about it. */
export function refuseErrors(what: string, errors: readonly ErrorObject[]): void {
  if (errors.length) throw invalid(what, errors);
}

/**
 * How a visual API route words a refusal of its schema (BodySpec.refuse): `check` runs the body's
 * checks in the order its clients see their refusals, with the schema's errors, and throws the
 * first. The schema and the checks state the same rules, so `check` always throws on a body the
 * schema refused; the schema's own wording is the answer should it not.
 */
export const refusalOf =
  (check: (body: unknown, l: Limits, errors: readonly ErrorObject[]) => unknown) =>
  (body: unknown, errors: readonly ErrorObject[], config: VisualConfig): Error => {
    check(body, limitsOf(config), errors);
    return invalid('body', errors);
  };
