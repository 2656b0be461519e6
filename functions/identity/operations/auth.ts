import { json } from '../../../shared/http/handler';
import type { Infer } from '../../../shared/http/schemas';
import { op } from '../context';
import type * as s from '../schemas';
import type { Authenticated } from '../guards';
import { completeLogin, LOGIN_MESSAGE, logout as endSessions, refreshSession, startLogin, type SignedIn } from '../login';
import { publicUser } from '../public-user';
import { jwks } from '../tokens';

/** The answer of verify and refresh (tokens: never cached, set by the HTTP wrapper). */
const tokenResponse = (t: SignedIn) => ({
  success: true,
  accessToken: t.accessToken,
  refreshToken: t.refreshToken,
  tokenType: 'Bearer',
  expiresIn: t.expiresIn,
  user: publicUser(t.user),
});

export const login = op<undefined, Infer<typeof s.LOGIN_BODY>>(
  'Starts an email sign-in: mails a one-time code (the same answer for every address)',
  async ({ ctx, body, meta }) => {
    await startLogin(ctx, body.email, meta);
    return json(200, { success: true, message: LOGIN_MESSAGE });
  },
);

export const verify = op<undefined, Infer<typeof s.VERIFY_BODY>>(
  'Completes a sign-in with the mailed code: an access token and a refresh token',
  async ({ ctx, body, meta }) => json(200, tokenResponse(await completeLogin(ctx, body.email, body.code, meta))),
);

export const refresh = op<undefined, Infer<typeof s.REFRESH_BODY>>(
  'Exchanges a refresh token for a new pair (the old one is spent)',
  async ({ ctx, body, meta }) => json(200, tokenResponse(await refreshSession(ctx, body.refreshToken, meta))),
);

export const logout = op<Authenticated, Infer<typeof s.LOGOUT_BODY>>(
  'Ends this session, or every session of the user (scope all)',
  async ({ ctx, body, principal, meta }) =>
    json(200, { success: true, ...(await endSessions(ctx, principal.user, principal.sessionId, body.scope ?? 'current', meta)) }),
);

export const validate = op<Authenticated>('Confirms an access token and its session, with the user as they are now', async ({ principal }) =>
  json(200, { valid: true, user: publicUser(principal.user), sessionId: principal.sessionId, expiresAt: new Date(principal.claims.exp * 1000).toISOString() }),
);

export const publishKeys = op('The public keys access tokens are signed with (JWKS)', async ({ ctx }) =>
  json(200, await jwks(ctx), { 'Cache-Control': 'public, max-age=300' }),
);
