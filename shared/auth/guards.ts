import type { Guard } from '../http/route';
import type { LiveUser } from './live-session';

/**
 * The token check, loaded with the first guarded call: a route table whose only public route is
 * health (a cold start's first probe) loads no token code.
 */
const accessToken = () => require('./access-token') as typeof import('./access-token');

/** The OpenAPI scheme of every route that takes identity's access token. */
export const ACCESS_TOKEN_SCHEME = {
  name: 'accessToken',
  definition: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: "identity's ES256 access token (POST /identity/auth/verify); its session is checked live at identity",
  },
};

/** A signed-in user as identity knows them now (the token verified here, its session checked live at identity). */
export const USER: Guard<LiveUser> = {
  describe: 'a signed-in user (access token whose session identity confirms)',
  scheme: ACCESS_TOKEN_SCHEME,
  refusals: [401, 403, 503],
  check: ({ request }) => accessToken().requireUser(request),
};

/** A signed-in admin or super_admin, by the role identity holds now. */
export const ADMIN: Guard<LiveUser> = {
  describe: 'an admin or super_admin (access token; the role as identity holds it now)',
  scheme: ACCESS_TOKEN_SCHEME,
  refusals: [401, 403, 503],
  check: ({ request }) => accessToken().requireAdmin(request),
};
