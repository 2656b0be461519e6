import { randomUUID } from 'node:crypto';
import type { AccessTokenClaims } from '../../shared/auth/access-token';
import { jose } from '../../shared/auth/keys';
import type { IdentityContext } from './context';
import type { UserView } from './users';

/** Signs a user access token with the first configured key (header { alg, kid }), issued now on the context's clock. */
export async function signAccessToken(
  ctx: Pick<IdentityContext, 'config' | 'now' | 'signingKeys'>,
  user: UserView,
  sessionId: string,
): Promise<{ accessToken: string; expiresIn: number }> {
  const cfg = ctx.config;
  const [key] = await ctx.signingKeys;
  const iat = Math.floor(ctx.now().getTime() / 1000);
  const expiresIn = cfg.ACCESS_TOKEN_TTL_SECONDS;
  const claims: Omit<AccessTokenClaims, 'iss' | 'aud' | 'sub' | 'iat' | 'exp' | 'jti'> = {
    email: user.email,
    role: user.role,
    permissions: user.permissions,
    plan: user.plan,
    status: user.status,
    sid: sessionId,
  };
  const accessToken = await new (jose().SignJWT)({ ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setIssuer(cfg.JWT_ISSUER)
    .setAudience(cfg.JWT_AUDIENCE)
    .setSubject(user.id)
    .setIssuedAt(iat)
    .setExpirationTime(iat + expiresIn)
    .setJti(randomUUID())
    .sign(key.privateKey);
  return { accessToken, expiresIn };
}

/** Every configured key's public half: the signing key and those kept for tokens issued before a rotation. */
export async function jwks(ctx: Pick<IdentityContext, 'signingKeys'>): Promise<{ keys: object[] }> {
  return { keys: (await ctx.signingKeys).map((k) => k.publicJwk) };
}
