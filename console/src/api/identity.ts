import { request } from './http';

export type Role = 'user' | 'admin' | 'super_admin' | string;
export type Plan = 'free' | 'pro' | 'enterprise';
export type UserStatus = 'active' | 'inactive';

export interface PublicUser {
  id: string;
  email: string;
  role: Role;
  permissions: string[];
  plan: Plan;
  status: UserStatus;
}

export interface TokenAnswer {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  user: PublicUser;
}

export interface UserView extends PublicUser {
  explicitPermissions: string[];
  createdAt: string;
  updatedAt: string;
}

export interface SessionView {
  id: string;
  userId: string;
  createdAt: string;
  lastRefreshedAt: string | null;
  expiresAt: string;
  revokedAt: string | null;
  revokedReason: string | null;
  active: boolean;
  ip: string | null;
  userAgent: string | null;
}

export interface AuditEntry {
  id: number;
  timestamp: string;
  actor: { type: string; id: string | null };
  action: string;
  target: { type: string; id: string | null } | null;
  result: 'success' | 'failure';
  reason: string | null;
  ip: string | null;
  details: unknown;
}

export interface Paged {
  total: number;
  limit: number;
  offset: number;
}

const post = <T>(path: string, body: unknown, auth = false) => request<T>('identity', path, { method: 'POST', body, auth });

export const identityApi = {
  login: (email: string) => post<{ success: boolean; message: string }>('/auth/login', { email }),
  verify: (email: string, code: string) => post<TokenAnswer>('/auth/verify', { email, code }),
  refresh: (refreshToken: string) => post<TokenAnswer>('/auth/refresh', { refreshToken }),
  logout: () => request<{ success: boolean }>('identity', '/auth/logout', { method: 'POST', body: {} }),
  users: (query: { email?: string; role?: string; plan?: string; status?: string; limit?: number; offset?: number }) =>
    request<{ users: UserView[] } & Paged>('identity', '/admin/users', { query }),
  user: (id: string) => request<{ user: UserView }>('identity', `/admin/users/${encodeURIComponent(id)}`),
  updateUser: (id: string, patch: Partial<Pick<UserView, 'plan' | 'status'>>) =>
    request<{ success: boolean; user: UserView }>('identity', `/admin/users/${encodeURIComponent(id)}`, { method: 'PATCH', body: patch }),
  grantRole: (id: string, roleId: string) =>
    request<{ success: boolean; changed: boolean; user: UserView }>('identity', `/admin/users/${encodeURIComponent(id)}/roles`, {
      method: 'POST',
      body: { roleId },
    }),
  sessions: (userId: string, state: 'active' | 'all' = 'all') =>
    request<{ sessions: SessionView[] } & Paged>('identity', '/admin/sessions', { query: { userId, state, limit: 50 } }),
  revokeSession: (id: string) => request<{ success: boolean }>('identity', `/admin/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  audit: (query: { target?: string; actor?: string; limit?: number; offset?: number }) =>
    request<{ entries: AuditEntry[] } & Paged>('identity', '/admin/audit', { query }),
};
