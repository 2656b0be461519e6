import type { Ctx } from './account';
import { StripeApiError, type Fields } from './errors';

/**
 * The API's route tables: each resource module answers a list of `[method, template, handler]`,
 * a template's `:name` segments matching one path segment each (no regular expression reads a
 * path). Handlers change the account at once and raise events on the request's Ctx; the server
 * delivers those after the handler returns.
 */
export interface Answer {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type Handler = (ctx: Ctx, params: Fields, ids: string[]) => Answer;
export type Route = readonly [method: 'GET' | 'POST' | 'DELETE', template: string, handler: Handler];

function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new StripeApiError(400, 'invalid_request_error', `Invalid path segment: ${raw}`);
  }
}

/** The handler of the first route matching the request, with its `:name` segments; undefined when none does. */
export function match(routes: readonly Route[], method: string, path: string): { handler: Handler; ids: string[] } | undefined {
  const parts = path.split('/');
  let pathMatched = false;
  for (const [routeMethod, template, handler] of routes) {
    const wanted = template.split('/');
    if (wanted.length !== parts.length) continue;
    const ids: string[] = [];
    if (!wanted.every((w, i) => (w.startsWith(':') ? parts[i] !== '' && ids.push(segment(parts[i])) > 0 : w === parts[i]))) continue;
    pathMatched = true;
    if (routeMethod === method) return { handler, ids };
  }
  if (pathMatched) throw new StripeApiError(405, 'invalid_request_error', `${method} is not allowed on ${path}`);
  return undefined;
}
