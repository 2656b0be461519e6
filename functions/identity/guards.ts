import type { HttpRequest } from '@azure/functions';
import { ServiceTokenError, verifyServiceToken } from '../../shared/auth/service-token';
import type { Kysely } from 'kysely';
import { bearerToken, CLOCK_TOLERANCE_SECONDS, isAdmin, verifyAccessTokenOr401, type AccessTokenClaims } from '../../shared/auth/access-token';
import { Code, forbidden, type HttpError, unauthorized } from '../../shared/http/errors';
import type { Guard } from '../../shared/http/route';
import { member } from '../../shared/platform';
import { audit, type Actor, type RequestMeta } from './audit';
import type { IdentityContext } from './context';
import type { AdminActor } from './user-admin';
import { param, precompiled } from '../../shared/sql/precompiled';
import type { IdentityTables } from './db/tables';
import { toUserView, type UserView } from './users';

export { clientIp, requestMeta } from '../../shared/http/client';

export interface Authenticated {
  user: UserView;
  sessionId: string;
  claims: AccessTokenClaims;
}

/**
 * A valid access token whose session is live and whose user still exists and is active. The
 * signature is checked locally; the rest is one indexed lookup (session by primary key joined to
 * the user), so the answer reflects revocations and plan changes immediately on every instance.
 */
export async function authenticate(ctx: IdentityContext, request: HttpRequest): Promise<Authenticated> {
  const token = bearerToken(request);
  if (!token) throw unauthorized('A Bearer access token is required', Code.AUTH_REQUIRED);
  const claims = await verifiedClaims(ctx, token);
  const [row] = await sessionAndUser.execute({ sessionId: claims.sid, userId: claims.sub }, ctx.db);
  if (!row || row.revoked_at || new Date(row.session_expires_at).getTime() <= ctx.now().getTime()) {
    throw unauthorized('The session has ended; sign in again', Code.AUTH_SESSION_REVOKED);
  }
  if (row.status !== 'active') throw unauthorized('The account is inactive', Code.AUTH_USER_INACTIVE);
  return { user: await toUserView(ctx, row), sessionId: claims.sid, claims };
}

const MAX_VERIFIED_TOKENS = 10_000;
// A signature, once verified, stays valid: caching it saves the ECDSA verification on repeat calls
// and is correct on any number of instances. exp is still checked on every use; session, user and
// status always come from SQL. One per platform: another platform may hold other signing keys.
const VERIFIED_TOKENS = member('identity verified tokens', () => new Map<string, AccessTokenClaims>());

async function verifiedClaims(ctx: IdentityContext, token: string): Promise<AccessTokenClaims> {
  const verified = ctx.platform.get(VERIFIED_TOKENS);
  const cached = verified.get(token);
  if (cached) {
    // Refused from exp (plus the tolerance) on, as the signature check refuses a token it has not seen.
    if (ctx.now().getTime() / 1000 >= cached.exp + CLOCK_TOLERANCE_SECONDS) throw unauthorized('The access token has expired', Code.AUTH_TOKEN_EXPIRED);
    return cached;
  }
  const claims = await verifyAccessTokenOr401(token);
  if (verified.size >= MAX_VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
  verified.set(token, claims);
  return claims;
}

// The hot query of /auth/validate: building and compiling it with Kysely cost more than running it.
const sessionAndUser = precompiled((database: Kysely<IdentityTables>) =>
  database
    .selectFrom('identity_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select([
      'u.id',
      'u.email',
      'u.role',
      'u.permissions',
      'u.plan',
      'u.plan_period_end',
      'u.plan_source',
      'u.status',
      'u.created_at',
      'u.updated_at',
      's.revoked_at',
      's.expires_at as session_expires_at',
    ])
    .where('s.id', '=', param('sessionId'))
    .where('s.user_id', '=', param('userId')),
);

/** Refuses anyone but an admin or super_admin holding `permission` (403 ADMIN_REQUIRED / PERMISSION_DENIED). */
export function requireAdminPermission(auth: Authenticated, permission: string): void {
  if (!isAdmin(auth.user)) throw forbidden('This route requires the admin or super_admin role', Code.ADMIN_REQUIRED);
  if (!auth.user.permissions.includes(permission)) throw forbidden(`This route requires the ${permission} permission`, Code.PERMISSION_DENIED);
}

export const adminActor = (auth: Authenticated): Actor => ({ type: 'admin', id: auth.user.id });
export const userActor = (auth: Authenticated): Actor => ({ type: 'user', id: auth.user.id });

/** The OpenAPI scheme of identity's access token (checked here against the session in SQL). */
const ACCESS_TOKEN = {
  name: 'accessToken',
  definition: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The access token of POST /identity/auth/verify or /auth/refresh' },
};

/** A signed-in user with a live session, checked in SQL on every call. */
export const SIGNED_IN: Guard<Authenticated, IdentityContext> = {
  describe: 'a signed-in user (access token with a live session)',
  scheme: ACCESS_TOKEN,
  refusals: [401],
  check: ({ request, ctx }) => authenticate(ctx, request),
};

/** The admin a change is made by, as the account rules need it. */
export interface AdminCaller extends Authenticated {
  admin: AdminActor;
}

/**
 * An admin or super_admin holding `permission`. A signed-in caller who is refused (403) is
 * audited under `action`, naming the object of the path (`{id}` as a `targetType`).
 */
export function adminWith(permission: string, action: string, targetType = 'user'): Guard<AdminCaller, IdentityContext> {
  return {
    describe: `an admin or super_admin holding ${permission}`,
    scheme: ACCESS_TOKEN,
    refusals: [401, 403],
    async check({ request, ctx, meta, params }) {
      const auth = await authenticate(ctx, request);
      try {
        requireAdminPermission(auth, permission);
      } catch (error) {
        const target = params.id ? { type: targetType, id: params.id } : { type: 'route', id: `${request.method} ${new URL(request.url).pathname}` };
        await audit(ctx, meta, {
          actor: isAdmin(auth.user) ? adminActor(auth) : userActor(auth),
          action,
          target,
          result: 'failure',
          reason: (error as HttpError).code,
        });
        throw error;
      }
      return { ...auth, admin: { actor: adminActor(auth), user: auth.user } };
    },
  };
}

const invalidServiceToken = (message: string) => unauthorized(message, Code.AUTH_SERVICE_TOKEN_INVALID);

/**
 * Who may call the plan endpoint, in one of two modes: the payment service (service token), or an
 * admin (access token), whose change obeys the same account rules as PATCH /admin/users/{id}.
 */
export interface PlanCaller {
  actor: Actor;
  /** updatedBy when the body leaves it out. */
  defaultUpdatedBy: string;
  /** Set in admin mode. */
  admin?: AdminActor;
}

/**
 * Service-token mode when X-Service names the payment service: the token must carry the fixed
 * header prefix and, more than the prefix alone, a valid HS256 signature (current or previous
 * secret) and the right claims. Any other call is admin-JWT mode with admin:users:update.
 */
export async function authorizePlanCaller(ctx: IdentityContext, request: HttpRequest, meta: RequestMeta): Promise<PlanCaller> {
  const cfg = ctx.config;
  if (request.headers.get('x-service') === cfg.PAYMENT_SERVICE_ID) {
    const token = bearerToken(request);
    try {
      if (!token) throw new ServiceTokenError('no Bearer token');
      await verifyServiceToken(token, {
        secrets: [cfg.SERVICE_TOKEN_SECRET, cfg.SERVICE_TOKEN_SECRET_PREVIOUS].filter((s): s is string => Boolean(s)),
        issuer: cfg.PAYMENT_SERVICE_ID,
        audience: cfg.IDENTITY_SERVICE_ID,
        requiredPermission: 'admin:users:update',
        now: ctx.now(),
      });
    } catch (error) {
      const reason = error instanceof ServiceTokenError ? error.message : 'token is malformed';
      await audit(ctx, meta, {
        actor: { type: 'service', id: cfg.PAYMENT_SERVICE_ID },
        action: 'user.plan.update',
        target: { type: 'user', id: request.params.userId ?? null },
        result: 'failure',
        reason: `service_token: ${reason}`,
      });
      throw invalidServiceToken(`The service token is not valid: ${reason}`);
    }
    return { actor: { type: 'service', id: cfg.PAYMENT_SERVICE_ID }, defaultUpdatedBy: cfg.PAYMENT_SERVICE_ID };
  }
  const auth = await authenticate(ctx, request);
  try {
    requireAdminPermission(auth, 'admin:users:update');
  } catch (error) {
    await audit(ctx, meta, {
      actor: userActor(auth),
      action: 'user.plan.update',
      target: { type: 'user', id: request.params.userId ?? null },
      result: 'failure',
      reason: (error as HttpError).code,
    });
    throw error;
  }
  return { actor: adminActor(auth), defaultUpdatedBy: auth.user.email, admin: { actor: adminActor(auth), user: auth.user } };
}

/** The payment service's service token (X-Service + HS256 token), or an admin's access token with admin:users:update. */
export const PLAN_CALLER: Guard<PlanCaller, IdentityContext> = {
  describe: 'the payment service (X-Service: payment-service and its service token), or an admin or super_admin holding admin:users:update',
  scheme: {
    name: 'serviceToken',
    definition: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'The service admin token (HS256) with X-Service: payment-service; an admin access token is accepted too',
    },
  },
  refusals: [401, 403],
  check: ({ request, ctx, meta }) => authorizePlanCaller(ctx, request, meta),
};
