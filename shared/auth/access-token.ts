import type { HttpRequest } from '@azure/functions';
import type { JWTVerifyGetKey } from 'jose';
import { config, serviceUrl } from '../config';
import { bearerToken } from './bearer';
import { asyncMember, currentPlatform, currentTime } from '../platform';
import { Code, forbidden, unauthorized } from '../http/errors';
import { ACCESS_TOKEN_ALGORITHMS, jose, loadSigningKeys, type SigningKey } from './keys';
import { liveUser, type LiveUser, type Plan, type UserStatus } from './live-session';

export type { Plan, UserStatus } from './live-session';
export const ADMIN_ROLES = ['admin', 'super_admin'] as const;

/** Claims of a user access token issued by identity. */
export interface AccessTokenClaims {
  iss: string;
  aud: string;
  sub: string;
  email: string;
  role: string;
  permissions: string[];
  plan: Plan;
  status: UserStatus;
  /** Session id: identity checks the session still exists on /auth/validate. */
  sid: string;
  iat: number;
  exp: number;
  jti: string;
}

/** Clock skew accepted on exp/nbf/iat. */
export const CLOCK_TOLERANCE_SECONDS = 60;

/** Identity's signing keys, parsed once per platform (a failed parse is tried again on the next use): identity's context hands them in. */
export const SIGNING_KEYS = asyncMember('signing keys', (platform): Promise<SigningKey[]> => loadSigningKeys(platform.config.JWT_SIGNING_KEYS));

/**
 * Where public keys come from: identity's own keys when identity runs on this platform, otherwise
 * its JWKS over HTTP (cached; refetched when an unknown kid appears, so rotation needs no restart).
 */
const verificationKeys = (): Promise<JWTVerifyGetKey> => currentPlatform().get(VERIFICATION_KEYS);
const VERIFICATION_KEYS = asyncMember('verification keys', async (platform) =>
  platform.config.SERVICES.includes('identity')
    ? jose().createLocalJWKSet({ keys: (await platform.get(SIGNING_KEYS)).map((k) => k.publicJwk) })
    : jose().createRemoteJWKSet(new URL(`${serviceUrl('identity')}/.well-known/jwks.json`), {
        cacheMaxAge: 10 * 60_000,
        cooldownDuration: 30_000,
        timeoutDuration: 5000,
      }),
);

export async function verifyAccessToken(token: string): Promise<AccessTokenClaims> {
  const cfg = config();
  const { payload } = await jose().jwtVerify(token, await verificationKeys(), {
    algorithms: [...ACCESS_TOKEN_ALGORITHMS],
    issuer: cfg.JWT_ISSUER,
    audience: cfg.JWT_AUDIENCE,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ['sub', 'exp', 'iat', 'sid'],
    // The platform's time, as every other expiry here reads it (a test's host may run on its own clock).
    currentDate: currentTime(),
  });
  return payload as unknown as AccessTokenClaims;
}

export { bearerToken };

/** verifyAccessToken, with any failure as a 401 (AUTH_TOKEN_EXPIRED or AUTH_TOKEN_INVALID). */
export async function verifyAccessTokenOr401(token: string): Promise<AccessTokenClaims> {
  try {
    return await verifyAccessToken(token);
  } catch (error) {
    if (error instanceof jose().errors.JWTExpired) throw unauthorized('The access token has expired', Code.AUTH_TOKEN_EXPIRED);
    throw unauthorized('The access token is invalid', Code.AUTH_TOKEN_INVALID);
  }
}

/**
 * The signed-in user of a request, as identity knows them now: the token is verified here (signature,
 * issuer, audience, expiry), then its session is checked live at identity (cached for
 * SESSION_CHECK_CACHE_SECONDS), so a session that ended, a role removed or a plan changed is seen
 * within that bound by every service, and role and plan never come from the token's claims.
 * 401 AUTH_REQUIRED / AUTH_TOKEN_INVALID / AUTH_TOKEN_EXPIRED / identity's refusal; 503 when identity cannot be asked.
 */
export async function requireUser(request: HttpRequest): Promise<LiveUser> {
  const token = bearerToken(request);
  if (!token) throw unauthorized('A Bearer access token is required', Code.AUTH_REQUIRED);
  const claims = await verifyAccessTokenOr401(token);
  const user = await liveUser(token, claims.sub);
  if (user.status !== 'active') throw forbidden('The account is inactive', Code.AUTH_USER_INACTIVE);
  return user;
}

export const isAdmin = (user: Pick<LiveUser, 'role'>) => (ADMIN_ROLES as readonly string[]).includes(user.role);

/** A live admin or super_admin user (403 ADMIN_REQUIRED for anyone else). */
export async function requireAdmin(request: HttpRequest): Promise<LiveUser> {
  const user = await requireUser(request);
  if (!isAdmin(user)) throw forbidden('This route requires the admin or super_admin role', Code.ADMIN_REQUIRED);
  return user;
}
