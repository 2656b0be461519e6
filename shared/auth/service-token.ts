import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The service admin token: an HS256 JWT whose header is exactly
 * {"alg":"HS256","typ":"JWT","service":"payment"}, so every token starts with the same encoded prefix.
 */
export const SERVICE_TOKEN_HEADER = { alg: 'HS256', typ: 'JWT', service: 'payment' } as const;
export const SERVICE_TOKEN_PREFIX = `${Buffer.from(JSON.stringify(SERVICE_TOKEN_HEADER)).toString('base64url')}.`;
export const SERVICE_TOKEN_PERMISSIONS = ['admin:users:update', 'admin:users:read'] as const;
export const SERVICE_TOKEN_LIFETIME_SECONDS = 365 * 24 * 60 * 60;

export interface ServiceTokenClaims {
  iss: string;
  aud: string;
  sub: 'admin';
  role: 'service_admin';
  permissions: string[];
  iat: number;
  exp: number;
}

const sign = (input: string, secret: string) => createHmac('sha256', secret).update(input).digest();

export function mintServiceToken(options: { secret: string; issuer: string; audience: string; now?: Date; lifetimeSeconds?: number }): string {
  const iat = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const claims: ServiceTokenClaims = {
    iss: options.issuer,
    aud: options.audience,
    sub: 'admin',
    role: 'service_admin',
    permissions: [...SERVICE_TOKEN_PERMISSIONS],
    iat,
    exp: iat + (options.lifetimeSeconds ?? SERVICE_TOKEN_LIFETIME_SECONDS),
  };
  const body = `${SERVICE_TOKEN_PREFIX}${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${sign(body, options.secret).toString('base64url')}`;
}

export class ServiceTokenError extends Error {}

const MAX_VERIFIED = 1_000;
// Payment reuses one token for many syncs: the HMAC, once it verified under a secret, need not be
// computed again while that secret is still accepted. The claims are still checked on every call.
const verified = new Map<string, { secret: string; claims: ServiceTokenClaims }>();

function verifiedClaims(token: string, secrets: string[]): ServiceTokenClaims {
  const cached = verified.get(token);
  if (cached && secrets.includes(cached.secret)) return cached.claims;
  if (!token.startsWith(SERVICE_TOKEN_PREFIX)) throw new ServiceTokenError('token does not carry the service token header');
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[2]) throw new ServiceTokenError('token is not a signed JWT');
  const body = `${parts[0]}.${parts[1]}`;
  const given = Buffer.from(parts[2], 'base64url');
  const secret = secrets.find((candidate) => {
    const expected = sign(body, candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (secret === undefined) throw new ServiceTokenError('signature does not verify');
  let claims: ServiceTokenClaims;
  try {
    claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    throw new ServiceTokenError('payload is not JSON');
  }
  if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value!);
  verified.set(token, { secret, claims });
  return claims;
}

/**
 * Verifies a service token fully: the fixed header prefix (which pins HS256 and refuses `none`),
 * the HMAC under the current or previous secret (constant-time), and iss, aud, sub, role, the
 * update permission and exp (60 s leeway). Throws ServiceTokenError saying what failed.
 */
export function verifyServiceToken(
  token: string,
  options: { secrets: string[]; issuer: string; audience: string; requiredPermission?: string; now?: Date },
): ServiceTokenClaims {
  const claims = verifiedClaims(token, options.secrets);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (claims.iss !== options.issuer) throw new ServiceTokenError('issuer is not the payment service');
  if (claims.aud !== options.audience) throw new ServiceTokenError('audience is not the identity service');
  if (claims.sub !== 'admin' || claims.role !== 'service_admin') throw new ServiceTokenError('subject or role is not the service admin');
  const required = options.requiredPermission ?? 'admin:users:update';
  if (!Array.isArray(claims.permissions) || !claims.permissions.includes(required)) throw new ServiceTokenError(`token lacks the ${required} permission`);
  if (typeof claims.exp !== 'number' || claims.exp + 60 < now) throw new ServiceTokenError('token has expired');
  if (typeof claims.iat !== 'number' || claims.iat - 60 > now) throw new ServiceTokenError('token is issued in the future');
  return claims;
}
