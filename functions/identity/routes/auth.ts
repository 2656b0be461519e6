import type { HttpFunction } from '../../../shared/functions';
import { readJson } from '../../../shared/http/body';
import { unauthorized } from '../../../shared/http/errors';
import { http, json } from '../../../shared/http/handler';
import { audit } from '../audit';
import { authenticate, requestMeta, userActor } from '../guards';
import { completeLogin, LOGIN_MESSAGE, startLogin } from '../login';
import { publicUser } from '../public-user';
import { revokeSession, revokeUserSessions, rotateRefreshToken } from '../sessions';
import { findUserById, toUserView } from '../users';
import { jwks, signAccessToken } from '../tokens';

const EMAIL = { type: 'string', format: 'email', minLength: 3, maxLength: 320 } as const;
const LOGIN_BODY = { type: 'object', required: ['email'], additionalProperties: false, properties: { email: EMAIL } } as const;
const VERIFY_BODY = {
  type: 'object',
  required: ['email', 'code'],
  additionalProperties: false,
  properties: { email: EMAIL, code: { type: 'string', pattern: '^[0-9]{4,10}$' } },
} as const;
const REFRESH_BODY = { type: 'object', required: ['refreshToken'], additionalProperties: false, properties: { refreshToken: { type: 'string', minLength: 1, maxLength: 512 } } } as const;
const LOGOUT_BODY = { type: 'object', additionalProperties: false, properties: { scope: { enum: ['current', 'all'] } } } as const;

const SMALL_BODY = 4 * 1024;

const tokenResponse = (t: { accessToken: string; refreshToken: string; expiresIn: number; user: Parameters<typeof publicUser>[0] }) => ({
  success: true,
  accessToken: t.accessToken,
  refreshToken: t.refreshToken,
  tokenType: 'Bearer',
  expiresIn: t.expiresIn,
  user: publicUser(t.user),
});

const login = http('identity', async (request, { requestId }) => {
  const body = await readJson<{ email: string }>(request, LOGIN_BODY, SMALL_BODY);
  await startLogin(body.email, requestMeta(request, requestId));
  return json(200, { success: true, message: LOGIN_MESSAGE });
});

const verify = http('identity', async (request, { requestId }) => {
  const body = await readJson<{ email: string; code: string }>(request, VERIFY_BODY, SMALL_BODY);
  return json(200, tokenResponse(await completeLogin(body.email, body.code, requestMeta(request, requestId))));
});

const REFRESH_FAILURES: Record<string, [string, string]> = {
  unknown: ['REFRESH_TOKEN_INVALID', 'The refresh token is not valid'],
  expired: ['REFRESH_TOKEN_EXPIRED', 'The refresh token has expired; sign in again'],
  session_revoked: ['REFRESH_TOKEN_INVALID', 'The session has ended; sign in again'],
  session_expired: ['REFRESH_TOKEN_EXPIRED', 'The session has reached its maximum age; sign in again'],
  reused_in_grace: ['REFRESH_TOKEN_ROTATED', 'This refresh token was just rotated; use the newest one'],
  reuse_detected: ['REFRESH_TOKEN_REUSED', 'This refresh token was already used; the session has been revoked'],
};

const refresh = http('identity', async (request, { requestId }) => {
  const meta = requestMeta(request, requestId);
  const body = await readJson<{ refreshToken: string }>(request, REFRESH_BODY, SMALL_BODY);
  const result = await rotateRefreshToken(body.refreshToken);
  if (result.outcome !== 'rotated') {
    const ids = 'sessionId' in result ? result : undefined;
    await audit(meta, {
      actor: ids ? { type: 'user', id: ids.userId } : { type: 'anonymous', id: null },
      action: 'auth.refresh',
      target: ids ? { type: 'session', id: ids.sessionId } : undefined,
      result: 'failure',
      reason: result.outcome,
    });
    const [code, message] = REFRESH_FAILURES[result.outcome];
    throw unauthorized(message, code);
  }
  const row = await findUserById(result.userId);
  if (!row || row.status !== 'active') {
    await revokeSession(result.sessionId, 'user_inactive');
    await audit(meta, { actor: { type: 'user', id: result.userId }, action: 'auth.refresh', target: { type: 'session', id: result.sessionId }, result: 'failure', reason: 'user_inactive' });
    throw unauthorized('The account is inactive', 'AUTH_USER_INACTIVE');
  }
  const user = await toUserView(row);
  const { accessToken, expiresIn } = await signAccessToken(user, result.sessionId);
  await audit(meta, { actor: { type: 'user', id: user.id }, action: 'auth.refresh', target: { type: 'session', id: result.sessionId }, result: 'success' });
  return json(200, tokenResponse({ accessToken, refreshToken: result.refreshToken, expiresIn, user }));
});

const logout = http('identity', async (request, { requestId }) => {
  const auth = await authenticate(request);
  const { scope = 'current' } = await readJson<{ scope?: 'current' | 'all' }>(request, LOGOUT_BODY, SMALL_BODY, { optional: true });
  const revoked = scope === 'all' ? await revokeUserSessions(auth.user.id, 'logout_all') : Number(await revokeSession(auth.sessionId, 'logout'));
  await audit(requestMeta(request, requestId), {
    actor: userActor(auth),
    action: 'auth.logout',
    target: scope === 'all' ? { type: 'user', id: auth.user.id } : { type: 'session', id: auth.sessionId },
    result: 'success',
    details: { scope, revoked },
  });
  return json(200, { success: true, scope, revokedSessions: revoked });
});

const validateToken = http('identity', async (request) => {
  const auth = await authenticate(request);
  return json(200, { valid: true, user: publicUser(auth.user), sessionId: auth.sessionId, expiresAt: new Date(auth.claims.exp * 1000).toISOString() });
});

const publishKeys = http('identity', async () => json(200, await jwks(), { 'Cache-Control': 'public, max-age=300' }));

export const authFunctions: HttpFunction[] = [
  { kind: 'http', name: 'identity-login', route: 'identity/auth/login', methods: ['POST'], handler: login },
  { kind: 'http', name: 'identity-verify', route: 'identity/auth/verify', methods: ['POST'], handler: verify },
  { kind: 'http', name: 'identity-refresh', route: 'identity/auth/refresh', methods: ['POST'], handler: refresh },
  { kind: 'http', name: 'identity-logout', route: 'identity/auth/logout', methods: ['POST'], handler: logout },
  { kind: 'http', name: 'identity-validate', route: 'identity/auth/validate', methods: ['GET'], handler: validateToken },
  { kind: 'http', name: 'identity-jwks', route: 'identity/.well-known/jwks.json', methods: ['GET'], handler: publishKeys },
];
