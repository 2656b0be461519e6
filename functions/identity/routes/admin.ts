import type { HttpFunction } from '../../../shared/functions';
import { readJson } from '../../../shared/http/body';
import { badRequest, notFound } from '../../../shared/http/errors';
import { http, json } from '../../../shared/http/handler';
import { listAudit } from '../audit';
import { complianceReport } from '../compliance';
import { findRole, roles } from '../roles';
import { listSessions } from '../sessions';
import { createUser, deleteUser, grantRole, patchUser, revokeRole, revokeSessionAsAdmin, type UserPatch } from '../user-admin';
import { findUserById, listUsers, toUserView, type UserQuery } from '../users';
import { adminRoute, pagedQuerySchema, readPagedQuery } from './admin-route';

const EMAIL = { type: 'string', format: 'email', minLength: 3, maxLength: 320 } as const;
const PERMISSIONS = { type: 'array', maxItems: 100, uniqueItems: true, items: { type: 'string', pattern: '^[a-z][a-z0-9_-]*(:[a-z0-9_*-]+)*$', maxLength: 100 } } as const;
const ROLE_ID = { type: 'string', pattern: '^[a-z][a-z0-9_]{0,31}$' } as const;
const PLAN = { enum: ['free', 'pro', 'enterprise'] } as const;
const STATUS = { enum: ['active', 'inactive'] } as const;
const SMALL_BODY = 16 * 1024;

const CREATE_USER_BODY = { type: 'object', required: ['email'], additionalProperties: false, properties: { email: EMAIL, role: ROLE_ID, permissions: PERMISSIONS } } as const;
const PATCH_USER_BODY = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { email: EMAIL, permissions: PERMISSIONS, plan: PLAN, status: STATUS },
} as const;
const ISO_INSTANT = { type: 'string', format: 'date-time', maxLength: 40 } as const;
const USERS_QUERY = pagedQuerySchema({ email: { type: 'string', maxLength: 320 }, role: ROLE_ID, plan: PLAN, status: STATUS });
const AUDIT_QUERY = pagedQuerySchema({
  actor: { type: 'string', maxLength: 320 },
  action: { type: 'string', maxLength: 64 },
  target: { type: 'string', maxLength: 320 },
  result: { enum: ['success', 'failure'] },
  since: ISO_INSTANT,
  until: ISO_INSTANT,
});
const SESSIONS_QUERY = pagedQuerySchema({ userId: { type: 'string', maxLength: 64 }, state: { enum: ['active', 'all'] } });
const GRANT_ROLE_BODY = { type: 'object', required: ['roleId'], additionalProperties: false, properties: { roleId: ROLE_ID } } as const;

const requireUserId = async (id: string) => {
  const row = await findUserById(id);
  if (!row) throw notFound(`No user has id ${id}`, 'USER_NOT_FOUND');
  return row;
};

const postUser = adminRoute('admin:users:create', 'user.create', async (request, { admin, meta }) => {
  const body = await readJson<{ email: string; role?: string; permissions?: string[] }>(request, CREATE_USER_BODY, SMALL_BODY);
  return json(201, { success: true, user: await createUser(admin, body, meta) });
});

const getUsers = adminRoute('admin:users:read', 'user.list', async (request) => {
  const query = readPagedQuery<Omit<UserQuery, 'limit' | 'offset'>>(request, USERS_QUERY);
  return json(200, await listUsers(query));
});

const getUser = adminRoute('admin:users:read', 'user.read', async (request) => json(200, { user: await toUserView(await requireUserId(request.params.id)) }));

const patchUserRoute = adminRoute('admin:users:update', 'user.update', async (request, { admin, meta }) => {
  const body = await readJson<UserPatch>(request, PATCH_USER_BODY, SMALL_BODY);
  return json(200, { success: true, user: await patchUser(admin, request.params.id, body, meta) });
});

const deleteUserRoute = adminRoute('admin:users:delete', 'user.delete', async (request, { admin, meta }) => {
  const { revokedSessions } = await deleteUser(admin, request.params.id, meta);
  return json(200, { success: true, userId: request.params.id, deleted: 'hard', revokedSessions });
});

const postRole = adminRoute('admin:roles:grant', 'role.grant', async (request, { admin, meta }) => {
  const { roleId } = await readJson<{ roleId: string }>(request, GRANT_ROLE_BODY, SMALL_BODY);
  return json(200, { success: true, ...(await grantRole(admin, request.params.id, roleId, meta)) });
});

const deleteRole = adminRoute('admin:roles:grant', 'role.revoke', async (request, { admin, meta }) =>
  json(200, { success: true, ...(await revokeRole(admin, request.params.id, request.params.roleId, meta)) }),
);

const getRoles = adminRoute('admin:roles:read', 'role.list', async () => json(200, { roles: [...(await roles()).values()] }));

const getRolePermissions = adminRoute('admin:roles:read', 'role.read', async (request) => {
  const role = await findRole(request.params.id);
  if (!role) throw notFound(`No role has id ${request.params.id}`, 'ROLE_NOT_FOUND');
  return json(200, { role: role.id, description: role.description, permissions: role.permissions });
}, 'role');


const getAudit = adminRoute('admin:audit:read', 'audit.read', async (request) => {
  const query = readPagedQuery<{ actor?: string; action?: string; target?: string; result?: 'success' | 'failure'; since?: string; until?: string }>(request, AUDIT_QUERY);
  const since = query.since ? new Date(query.since).toISOString() : undefined;
  const until = query.until ? new Date(query.until).toISOString() : undefined;
  if (since && until && since > until) throw badRequest('Invalid query: since is after until');
  return json(200, await listAudit({ ...query, since, until }));
});

const getSessions = adminRoute('admin:sessions:read', 'session.list', async (request) => {
  const query = readPagedQuery<{ userId?: string; state?: 'active' | 'all' }>(request, SESSIONS_QUERY);
  return json(200, await listSessions({ ...query, state: query.state ?? 'active' }));
});

const deleteSession = adminRoute('admin:sessions:revoke', 'session.revoke', async (request, { admin, meta }) =>
  json(200, { success: true, ...(await revokeSessionAsAdmin(admin, request.params.id, meta)) }),
'session');

const getCompliance = adminRoute('admin:compliance:read', 'compliance.read', async () => json(200, await complianceReport()));

const route = (name: string, path: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', handler: ReturnType<typeof http>): HttpFunction => ({
  kind: 'http',
  name: `identity-admin-${name}`,
  route: `identity/admin/${path}`,
  methods: [method],
  handler,
});

export const adminFunctions: HttpFunction[] = [
  route('users-create', 'users', 'POST', postUser),
  route('users-list', 'users', 'GET', getUsers),
  route('users-read', 'users/{id}', 'GET', getUser),
  route('users-update', 'users/{id}', 'PATCH', patchUserRoute),
  route('users-delete', 'users/{id}', 'DELETE', deleteUserRoute),
  route('roles-grant', 'users/{id}/roles', 'POST', postRole),
  route('roles-revoke', 'users/{id}/roles/{roleId}', 'DELETE', deleteRole),
  route('roles-list', 'roles', 'GET', getRoles),
  route('roles-permissions', 'roles/{id}/permissions', 'GET', getRolePermissions),
  route('audit', 'audit', 'GET', getAudit),
  route('sessions-list', 'sessions', 'GET', getSessions),
  route('sessions-revoke', 'sessions/{id}', 'DELETE', deleteSession),
  route('compliance', 'compliance', 'GET', getCompliance),
];
