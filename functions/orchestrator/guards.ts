import { ACCESS_TOKEN_SCHEME, ADMIN } from '../../shared/auth/guards';
import type { LiveUser } from '../../shared/auth/live-session';
import type { Guard } from '../../shared/http/route';

/** Health is public; the schema check (`?schema=check`) shows the database's structure, so it needs an admin. */
export const PUBLIC_HEALTH_ADMIN_SCHEMA_CHECK: Guard<LiveUser | undefined> = {
  describe: 'public; with schema=check, an admin or super_admin',
  scheme: ACCESS_TOKEN_SCHEME,
  refusals: [401, 403, 503],
  check: async (call) => (call.request.query.get('schema') === 'check' ? ADMIN.check(call) : undefined),
};
