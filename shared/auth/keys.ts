import { currentTime } from '../platform';
import { randomUUID } from 'node:crypto';
import type { JWK, KeyLike } from 'jose';
import { vendored } from '../vendor';

/**
 * The JWT library, loaded by the first token signed or verified: a request that checks none (health,
 * public routes) does not pay for it on a cold start.
 */
export const jose = () => vendored('jose');

/** Asymmetric algorithms accepted for user access tokens; anything else (HS*, none) is refused. */
export const ACCESS_TOKEN_ALGORITHMS = ['ES256', 'RS256'] as const;
export type AccessTokenAlgorithm = (typeof ACCESS_TOKEN_ALGORITHMS)[number];

export interface SigningKey {
  kid: string;
  alg: AccessTokenAlgorithm;
  privateKey: KeyLike;
  publicJwk: JWK;
}

/** A fresh ES256 private JWK with a kid, as stored in JWT_SIGNING_KEYS. */
export async function generateSigningJwk(): Promise<JWK> {
  const { privateKey } = await jose().generateKeyPair('ES256', { extractable: true });
  const jwk = await jose().exportJWK(privateKey);
  return { ...jwk, kid: `${currentTime().toISOString().slice(0, 10)}-${randomUUID().slice(0, 8)}`, alg: 'ES256', use: 'sig' };
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** Parses JWT_SIGNING_KEYS (private JWKs, first one signs). Throws naming the bad entry. */
export async function loadSigningKeys(value: unknown): Promise<SigningKey[]> {
  if (!Array.isArray(value) || value.length === 0) throw new Error('JWT_SIGNING_KEYS must be a non-empty JSON array of private JWKs');
  const keys: SigningKey[] = [];
  for (const [index, jwk] of (value as JWK[]).entries()) {
    const alg = jwk.alg as AccessTokenAlgorithm;
    if (!jwk.kid) throw new Error(`JWT_SIGNING_KEYS[${index}] has no kid`);
    if (!ACCESS_TOKEN_ALGORITHMS.includes(alg)) throw new Error(`JWT_SIGNING_KEYS[${index}] alg must be one of ${ACCESS_TOKEN_ALGORITHMS.join(', ')}`);
    if (!jwk.d) throw new Error(`JWT_SIGNING_KEYS[${index}] is not a private key`);
    const privateKey = (await jose().importJWK(jwk, alg)) as KeyLike;
    const publicJwk = Object.fromEntries(Object.entries(jwk).filter(([k]) => !PRIVATE_MEMBERS.includes(k))) as JWK;
    keys.push({ kid: jwk.kid, alg, privateKey, publicJwk: { ...publicJwk, use: 'sig' } });
  }
  return keys;
}
