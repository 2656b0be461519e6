import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { isAdmin } from '../../../shared/auth/access-token';
import { validate } from '../../../shared/http/body';
import { badRequest, HttpError } from '../../../shared/http/errors';
import { http, type RequestContext } from '../../../shared/http/handler';
import { audit, type RequestMeta } from '../audit';
import { adminActor, authenticate, requestMeta, requireAdminPermission, userActor, type Authenticated } from '../guards';
import type { AdminActor } from '../user-admin';

export interface AdminContext extends RequestContext {
  auth: Authenticated;
  admin: AdminActor;
  meta: RequestMeta;
}

/**
 * An admin route needing `permission`; `targetType` names what the path's {id} is. A signed-in caller who is refused (403), and any refused
 * change (4xx after authentication), is recorded in the audit log with the error code as reason.
 */
export function adminRoute(
  permission: string,
  action: string,
  handler: (request: HttpRequest, ctx: AdminContext) => Promise<HttpResponseInit>,
  targetType = 'user',
) {
  return http('identity', async (request, ctx) => {
    const meta = requestMeta(request, ctx.requestId);
    // Refusals name the object acted on (the {id} of the path) so filtering the audit by target finds them.
    const target = request.params.id ? { type: targetType, id: request.params.id } : { type: 'route', id: `${request.method} ${new URL(request.url).pathname}` };
    const auth = await authenticate(request);
    try {
      requireAdminPermission(auth, permission);
    } catch (error) {
      await audit(meta, { actor: isAdmin(auth.user) ? adminActor(auth) : userActor(auth), action, target, result: 'failure', reason: (error as HttpError).code });
      throw error;
    }
    try {
      return await handler(request, { ...ctx, auth, admin: { actor: adminActor(auth), user: auth.user }, meta });
    } catch (error) {
      if (error instanceof HttpError && request.method !== 'GET') {
        await audit(meta, { actor: adminActor(auth), action, target, result: 'failure', reason: error.code });
      }
      throw error;
    }
  });
}

export interface Paging {
  limit: number;
  offset: number;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 100;

const PAGING_PROPERTIES = {
  limit: { type: 'string', pattern: '^[0-9]{1,4}$' },
  offset: { type: 'string', pattern: '^[0-9]{1,9}$' },
} as const;

/** A query-string schema with limit/offset; build it once per route (ajv caches compiled schemas by object). */
export const pagedQuerySchema = (properties: Record<string, object>) => ({ type: 'object', additionalProperties: false, properties: { ...properties, ...PAGING_PROPERTIES } });

/** Validates a query string and turns limit/offset into numbers (limit 1-100, default 50). */
export function readPagedQuery<T extends object>(request: HttpRequest, schema: object): T & Paging {
  const query: Record<string, string> = {};
  request.query.forEach((value, key) => {
    query[key] = value;
  });
  const parsed = validate<Record<string, string>>(schema, query, 'query');
  const limit = parsed.limit === undefined ? DEFAULT_LIMIT : Number(parsed.limit);
  const offset = parsed.offset === undefined ? 0 : Number(parsed.offset);
  if (limit < 1 || limit > MAX_LIMIT) throw badRequest(`Invalid query: limit must be from 1 to ${MAX_LIMIT}`);
  const { limit: _limit, offset: _offset, ...rest } = parsed;
  return { ...(rest as T), limit, offset };
}
