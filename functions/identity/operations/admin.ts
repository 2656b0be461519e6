import { badRequest, Code, notFound } from '../../../shared/http/errors';
import { json } from '../../../shared/http/handler';
import type { Infer } from '../../../shared/http/schemas';
import { listAudit } from '../audit';
import { complianceReport } from '../compliance';
import { op } from '../context';
import type { AdminCaller } from '../guards';
import { findRole, roles } from '../roles';
import type * as s from '../schemas';
import { listSessions } from '../sessions';
import { createUser, deleteUser, grantRole, patchUser, revokeRole, revokeSessionAsAdmin } from '../user-admin';
import { findUserById, listUsers, toUserView } from '../users';

type Id = Infer<typeof s.ID_PARAM>;

export const createUserOp = op<AdminCaller, Infer<typeof s.CREATE_USER_BODY>>(
  'Creates a user (admin and super_admin roles need a super_admin)',
  async ({ ctx, principal, body, meta }) => json(201, { success: true, user: await createUser(ctx, principal.admin, body, meta) }),
);

export const listUsersOp = op<AdminCaller, unknown, Infer<typeof s.USERS_QUERY>>(
  'Lists users, filtered by email, role, plan and status, a page at a time',
  async ({ ctx, query }) => json(200, await listUsers(ctx, query)),
);

export const readUserOp = op<AdminCaller, unknown, unknown, Id>('Reads one user', async ({ ctx, params }) => {
  const row = await findUserById(ctx, params.id);
  if (!row) throw notFound(`No user has id ${params.id}`, Code.USER_NOT_FOUND);
  return json(200, { user: await toUserView(ctx, row) });
});

export const patchUserOp = op<AdminCaller, Infer<typeof s.PATCH_USER_BODY>, unknown, Id>(
  "Changes a user's email, permissions, plan or status (the account rules apply)",
  async ({ ctx, principal, params, body, meta }) => json(200, { success: true, user: await patchUser(ctx, principal.admin, params.id, body, meta) }),
);

export const deleteUserOp = op<AdminCaller, unknown, unknown, Id>(
  'Deletes a user (erasure: sessions revoked, the row removed)',
  async ({ ctx, principal, params, meta }) =>
    json(200, { success: true, userId: params.id, deleted: 'hard', ...(await deleteUser(ctx, principal.admin, params.id, meta)) }),
);

export const grantRoleOp = op<AdminCaller, Infer<typeof s.GRANT_ROLE_BODY>, unknown, Id>(
  "Gives a user a role (it replaces the user's role; the user's sessions end)",
  async ({ ctx, principal, params, body, meta }) => json(200, { success: true, ...(await grantRole(ctx, principal.admin, params.id, body.roleId, meta)) }),
);

export const revokeRoleOp = op<AdminCaller, unknown, unknown, Infer<typeof s.ROLE_PARAMS>>(
  'Takes a role away (back to user; the sessions end)',
  async ({ ctx, principal, params, meta }) => json(200, { success: true, ...(await revokeRole(ctx, principal.admin, params.id, params.roleId, meta)) }),
);

export const listRolesOp = op<AdminCaller>('Lists the roles with their permissions', async ({ ctx }) => json(200, { roles: [...(await roles(ctx)).values()] }));

export const rolePermissionsOp = op<AdminCaller, unknown, unknown, Infer<typeof s.ROLE_ID_PARAM>>('The permissions of one role', async ({ ctx, params }) => {
  const role = await findRole(ctx, params.id);
  if (!role) throw notFound(`No role has id ${params.id}`, Code.ROLE_NOT_FOUND);
  return json(200, { role: role.id, description: role.description, permissions: role.permissions });
});

export const auditOp = op<AdminCaller, unknown, Infer<typeof s.AUDIT_QUERY>>(
  'Reads the audit log, newest first, filtered by actor, action, target, result and time',
  async ({ ctx, query }) => {
    const since = query.since ? new Date(query.since).toISOString() : undefined;
    const until = query.until ? new Date(query.until).toISOString() : undefined;
    if (since && until && since > until) throw badRequest('Invalid query: since is after until');
    return json(200, await listAudit(ctx, { ...query, since, until }));
  },
);

export const listSessionsOp = op<AdminCaller, unknown, Infer<typeof s.SESSIONS_QUERY>>(
  'Lists sessions (active ones by default), of one user or all',
  async ({ ctx, query }) => json(200, await listSessions(ctx, query)),
);

export const revokeSessionOp = op<AdminCaller, unknown, unknown, Id>(
  "Ends one session (an admin's or super_admin's needs a super_admin)",
  async ({ ctx, principal, params, meta }) => json(200, { success: true, ...(await revokeSessionAsAdmin(ctx, principal.admin, params.id, meta)) }),
);

export const complianceOp = op<AdminCaller>('The compliance report: users, sign-in policy, keys, sessions, audit retention, admins', async ({ ctx }) =>
  json(200, await complianceReport(ctx)),
);
