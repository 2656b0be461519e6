import type { HttpRequest } from '@azure/functions';
import { errors } from 'jose';
import { bearerToken, isAdmin, verifyAccessToken, type AccessTokenClaims } from '../../shared/auth/access-token';
import { forbidden, unauthorized } from '../../shared/http/errors';
import type { Actor, RequestMeta } from './audit';
import { identityDb } from './tables';
import { toUserView, type UserView } from './users';

/**
 * The client address: the first hop of X-Forwarded-For (Azure's front end sets it; the dev host sets
 * it from the socket), without a port. Only used for rate limits and the audit trail.
 */
export function clientIp(request: HttpRequest): string | null {
  const first = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
  if (!first) return null;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(first);
  if (bracketed) return bracketed[1].slice(0, 64);
  const ipv4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(first);
  return (ipv4WithPort ? ipv4WithPort[1] : first).slice(0, 64);
}

export function requestMeta(request: HttpRequest, requestId: string): RequestMeta {
  return { ip: clientIp(request), userAgent: request.headers.get('user-agent')?.slice(0, 400) ?? null, requestId };
}

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
export async function authenticate(request: HttpRequest): Promise<Authenticated> {
  const token = bearerToken(request);
  if (!token) throw unauthorized('A Bearer access token is required', 'AUTH_REQUIRED');
  let claims: AccessTokenClaims;
  try {
    claims = await verifyAccessToken(token);
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw unauthorized('The access token has expired', 'AUTH_TOKEN_EXPIRED');
    throw unauthorized('The access token is invalid', 'AUTH_TOKEN_INVALID');
  }
  const row = await identityDb()
    .selectFrom('identity_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select(['u.id', 'u.email', 'u.role', 'u.permissions', 'u.plan', 'u.status', 'u.created_at', 'u.updated_at', 's.revoked_at', 's.expires_at as session_expires_at'])
    .where('s.id', '=', claims.sid)
    .where('s.user_id', '=', claims.sub)
    .executeTakeFirst();
  if (!row || row.revoked_at || new Date(row.session_expires_at).getTime() <= Date.now()) {
    throw unauthorized('The session has ended; sign in again', 'AUTH_SESSION_REVOKED');
  }
  if (row.status !== 'active') throw unauthorized('The account is inactive', 'AUTH_USER_INACTIVE');
  return { user: await toUserView(row), sessionId: claims.sid, claims };
}

/** Refuses anyone but an admin or super_admin holding `permission` (403 ADMIN_REQUIRED / PERMISSION_DENIED). */
export function requireAdminPermission(auth: Authenticated, permission: string): void {
  if (!isAdmin(auth.user)) throw forbidden('This route requires the admin or super_admin role', 'ADMIN_REQUIRED');
  if (!auth.user.permissions.includes(permission)) throw forbidden(`This route requires the ${permission} permission`, 'PERMISSION_DENIED');
}

export const adminActor = (auth: Authenticated): Actor => ({ type: 'admin', id: auth.user.id });
export const userActor = (auth: Authenticated): Actor => ({ type: 'user', id: auth.user.id });
