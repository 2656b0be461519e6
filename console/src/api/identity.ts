import type { operations } from '../../../client/openapi/identity';
import { call, type Ok } from './http';
import { PLAN_IDS } from '../../../shared/plan-ids';

/** The users list's filters, as its API document types them. */
export type UsersQuery = NonNullable<operations['admin-users-list']['parameters']['query']>;

/** Identity's answers are fully described by its document: the console's views are its types. */
export type TokenAnswer = Ok<operations['verify']>;
export type PublicUser = TokenAnswer['user'];
export type Role = PublicUser['role'];
export type Plan = PublicUser['plan'];
export type UserStatus = PublicUser['status'];
export type UserView = Ok<operations['admin-users-read']>['user'];
export type SessionView = Ok<operations['admin-sessions-list']>['sessions'][number];
export type AuditEntry = Ok<operations['admin-audit']>['entries'][number];

export interface Paged {
  total: number;
  limit: number;
  offset: number;
}

/** The plans, from the one list (shared/plan-ids.ts). */
export const PLANS: readonly Plan[] = PLAN_IDS;
const STATUSES: readonly UserStatus[] = ['active', 'inactive'];
const id = (value: string) => ({ params: { path: { id: value } } });

export const identityApi = {
  login: (email: string): Promise<{ success: boolean; message: string }> =>
    call('identity', (c) => c.identity.POST('/identity/auth/login', { body: { email } }), false),
  verify: (email: string, code: string): Promise<TokenAnswer> =>
    call('identity', (c) => c.identity.POST('/identity/auth/verify', { body: { email, code } }), false),
  refresh: (refreshToken: string): Promise<TokenAnswer> =>
    call('identity', (c) => c.identity.POST('/identity/auth/refresh', { body: { refreshToken } }), false),
  logout: (): Promise<{ success: boolean }> => call('identity', (c) => c.identity.POST('/identity/auth/logout', { body: {} })),
  /** The users page's filters as its URL holds them: an empty or unknown value filters nothing. */
  users: (filters: {
    email?: string;
    role?: string;
    plan?: string;
    status?: string;
    limit?: number;
    offset?: number;
  }): Promise<{ users: UserView[] } & Paged> => {
    const query: UsersQuery = {
      email: filters.email || undefined,
      role: filters.role || undefined,
      plan: PLANS.find((p) => p === filters.plan),
      status: STATUSES.find((s) => s === filters.status),
      limit: filters.limit,
      offset: filters.offset,
    };
    return call('identity', (c) => c.identity.GET('/identity/admin/users', { params: { query } }));
  },
  user: (userId: string): Promise<{ user: UserView }> => call('identity', (c) => c.identity.GET('/identity/admin/users/{id}', id(userId))),
  updateUser: (userId: string, patch: Partial<Pick<UserView, 'plan' | 'status'>>): Promise<{ success: boolean; user: UserView }> =>
    call('identity', (c) => c.identity.PATCH('/identity/admin/users/{id}', { ...id(userId), body: patch })),
  grantRole: (userId: string, roleId: string): Promise<{ success: boolean; changed: boolean; user: UserView }> =>
    call('identity', (c) => c.identity.POST('/identity/admin/users/{id}/roles', { ...id(userId), body: { roleId } })),
  sessions: (userId: string, state: 'active' | 'all' = 'all'): Promise<{ sessions: SessionView[] } & Paged> =>
    call('identity', (c) => c.identity.GET('/identity/admin/sessions', { params: { query: { userId, state, limit: 50 } } })),
  revokeSession: (sessionId: string): Promise<{ success: boolean }> =>
    call('identity', (c) => c.identity.DELETE('/identity/admin/sessions/{id}', id(sessionId))),
  audit: (query: { target?: string; actor?: string; limit?: number; offset?: number }): Promise<{ entries: AuditEntry[] } & Paged> =>
    call('identity', (c) => c.identity.GET('/identity/admin/audit', { params: { query } })),
};
