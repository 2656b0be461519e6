import { createSecretKey, type KeyObject } from 'node:crypto';
import { currentTime, member, platformInForce } from '../platform';
import { jose } from './keys';

/**
 * The service admin token: an HS256 JWT whose header is exactly
 * {"alg":"HS256","typ":"JWT","service":"payment"}, so every token starts with the same encoded prefix.
 * jose signs and verifies it, as every other JWT of the platform.
 */
export const SERVICE_TOKEN_HEADER = { alg: 'HS256', typ: 'JWT', service: 'payment' } as const;
export const SERVICE_TOKEN_PREFIX = `${Buffer.from(JSON.stringify(SERVICE_TOKEN_HEADER)).toString('base64url')}.`;
export const SERVICE_TOKEN_PERMISSIONS = ['admin:users:update', 'admin:users:read'] as const;
export const SERVICE_TOKEN_LIFETIME_SECONDS = 365 * 24 * 60 * 60;
const CLOCK_TOLERANCE_SECONDS = 60;

export interface ServiceTokenClaims {
  iss: string;
  aud: string;
  sub: 'admin';
  role: 'service_admin';
  permissions: string[];
  iat: number;
  exp: number;
}

const MAX_KEYS = 16;
const MAX_VERIFIED = 1_000;
/**
 * The platform's HMAC keys by secret (a handful live at a time: current and previous) and its
 * verified tokens: payment reuses one token for many syncs, and the HMAC, once it verified under a
 * secret, need not be computed again while that secret is still accepted (the claims are still
 * checked on every call).
 */
const caches = () => ({ keys: new Map<string, KeyObject>(), verified: new Map<string, { secret: string; claims: ServiceTokenClaims }>() });
const CACHES = member('service token keys', caches);
/** The platform's caches, or fresh ones where no platform is in force (the secrets command checking a token it minted). */
const made = () => platformInForce()?.get(CACHES) ?? caches();

/** The HMAC key of a secret, made once (a handful of secrets live at a time: current and previous). */
function keyOf(secret: string): KeyObject {
  const { keys } = made();
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}

export async function mintServiceToken(options: { secret: string; issuer: string; audience: string; now?: Date; lifetimeSeconds?: number }): Promise<string> {
  // Minted also before any platform exists (the dev host writing fresh settings): the system's time and a key of its own.
  const iat = Math.floor((options.now ?? currentTime()).getTime() / 1000);
  // The claims in this order and nothing else: tokens minted before jose signed them read the same.
  const claims: ServiceTokenClaims = {
    iss: options.issuer,
    aud: options.audience,
    sub: 'admin',
    role: 'service_admin',
    permissions: [...SERVICE_TOKEN_PERMISSIONS],
    iat,
    exp: iat + (options.lifetimeSeconds ?? SERVICE_TOKEN_LIFETIME_SECONDS),
  };
  return new (jose().SignJWT)({ ...claims }).setProtectedHeader({ ...SERVICE_TOKEN_HEADER }).sign(createSecretKey(Buffer.from(options.secret, 'utf8')));
}

export class ServiceTokenError extends Error {}

/** The secret the token's signature verifies under (jose compares in constant time), with its claims. */
async function verifySignature(token: string, secrets: string[], now: Date): Promise<{ secret: string; claims: ServiceTokenClaims }> {
  for (const secret of secrets) {
    try {
      const { payload } = await jose().jwtVerify(token, keyOf(secret), {
        algorithms: ['HS256'],
        typ: 'JWT',
        currentDate: now,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      return { secret, claims: payload as unknown as ServiceTokenClaims };
    } catch (error) {
      const { errors } = jose();
      if (error instanceof errors.JWSSignatureVerificationFailed) continue;
      if (error instanceof errors.JWTExpired) throw new ServiceTokenError('token has expired');
      if (error instanceof errors.JWTClaimValidationFailed) throw new ServiceTokenError(`token claims are not valid: ${error.message}`);
      if (error instanceof errors.JWTInvalid) throw new ServiceTokenError('payload is not a JSON object');
      throw new ServiceTokenError('token is not a signed JWT');
    }
  }
  throw new ServiceTokenError('signature does not verify');
}

async function verifiedClaims(token: string, secrets: string[], now: Date): Promise<ServiceTokenClaims> {
  const { verified } = made();
  const cached = verified.get(token);
  if (cached && secrets.includes(cached.secret)) return cached.claims;
  // The exact header, byte for byte: pins HS256 (no `none`, no other algorithm) and the service.
  if (!token.startsWith(SERVICE_TOKEN_PREFIX)) throw new ServiceTokenError('token does not carry the service token header');
  const entry = await verifySignature(token, secrets, now);
  if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value!);
  verified.set(token, entry);
  return entry.claims;
}

/**
 * Verifies a service token fully: the fixed header prefix (which pins HS256 and refuses `none`),
 * the HMAC under the current or previous secret (constant-time), and iss, aud, sub, role, the
 * update permission and exp (60 s leeway). Throws ServiceTokenError saying what failed.
 */
export async function verifyServiceToken(
  token: string,
  options: { secrets: string[]; issuer: string; audience: string; requiredPermission?: string; now?: Date },
): Promise<ServiceTokenClaims> {
  const at = options.now ?? currentTime();
  const claims = await verifiedClaims(token, options.secrets, at);
  const now = Math.floor(at.getTime() / 1000);
  if (claims.iss !== options.issuer) throw new ServiceTokenError('issuer is not the payment service');
  if (claims.aud !== options.audience) throw new ServiceTokenError('audience is not the identity service');
  if (claims.sub !== 'admin' || claims.role !== 'service_admin') throw new ServiceTokenError('subject or role is not the service admin');
  const required = options.requiredPermission ?? 'admin:users:update';
  if (!Array.isArray(claims.permissions) || !claims.permissions.includes(required)) throw new ServiceTokenError(`token lacks the ${required} permission`);
  if (typeof claims.exp !== 'number' || claims.exp + CLOCK_TOLERANCE_SECONDS < now) throw new ServiceTokenError('token has expired');
  if (typeof claims.iat !== 'number' || claims.iat - CLOCK_TOLERANCE_SECONDS > now) throw new ServiceTokenError('token is issued in the future');
  return claims;
}
