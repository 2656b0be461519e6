import { createHmac } from 'node:crypto';
import { SERVICE_TOKEN_HEADER } from '../../shared/auth/service-token';

/** The claims of a valid service token issued at `iat` for an hour, with `overrides` on top. */
export const serviceTokenClaims = (overrides: object = {}, iat = Math.floor(Date.now() / 1000)) => ({
  iss: 'payment-service',
  aud: 'identity-service',
  sub: 'admin',
  role: 'service_admin',
  permissions: ['admin:users:update', 'admin:users:read'],
  iat,
  exp: iat + 3600,
  ...overrides,
});

/** A token signed by hand (HMAC-SHA256, no JWT library) with the header and payload we choose: how tokens were minted before jose. */
export function signByHand(payload: object | string, secret: string, header: object = SERVICE_TOKEN_HEADER): string {
  const encode = (part: object | string) => Buffer.from(typeof part === 'string' ? part : JSON.stringify(part)).toString('base64url');
  const body = `${encode(header)}.${encode(payload)}`;
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}
