import type { UserView } from './users';

/** The user object of token responses and /auth/validate. */
export const publicUser = (u: UserView) => ({
  id: u.id,
  email: u.email,
  role: u.role,
  permissions: u.permissions,
  plan: u.plan,
  planPeriodEnd: u.planPeriodEnd,
  planSource: u.planSource,
  status: u.status,
});
