import type { Kysely } from 'kysely';
import type { UserStatus } from '../../shared/auth/access-token';
import { badRequest, Code, conflict, forbidden, notFound } from '../../shared/http/errors';
import type { Infer } from '../../shared/http/schemas';
import { audit, auditRefusal, type Actor, type RequestMeta } from './audit';
import type { IdentityContext } from './context';
import { findRole, GRANT_PRIVILEGED, isPrivilegedRole, type RoleSource } from './roles';
import type { CREATE_USER_BODY, PATCH_USER_BODY } from './schemas';
import { findSession, revokeSession, revokeUserSessions } from './sessions';
import type { IdentityTables } from './db/tables';
import { findUserByEmail, findUserById, insertUser, toUserView, updateUser, type UserRow, type UserView } from './users';

/** The admin performing a change, as the rules below need it. */
export interface AdminActor {
  actor: Actor;
  user: UserView;
}

const canGrantPrivileged = (admin: AdminActor) => admin.user.permissions.includes(GRANT_PRIVILEGED);

async function requireUser(ctx: IdentityContext, id: string, executor: Kysely<IdentityTables>): Promise<UserRow> {
  const user = await findUserById(ctx, id, executor);
  if (!user) throw notFound(`No user has id ${id}`, Code.USER_NOT_FOUND);
  return user;
}

/** Only a super_admin (grant-privileged) may manage admins and super_admins: their account, plan, roles and sessions. */
export async function requireAuthorityOver(ctx: RoleSource, admin: AdminActor, target: Pick<UserRow, 'role'>): Promise<void> {
  if (isPrivilegedRole(await findRole(ctx, target.role)) && !canGrantPrivileged(admin)) {
    throw forbidden(`Only a super_admin can change a user with the ${target.role} role`, Code.SUPER_ADMIN_REQUIRED);
  }
}

/**
 * The rules every admin change to an account obeys, whichever route makes it (PATCH of the user,
 * PUT of the plan): authority over privileged accounts, nobody deactivates themselves, and the
 * last active super_admin is never deactivated.
 */
export async function authorizeAccountChange(
  ctx: RoleSource,
  admin: AdminActor,
  target: UserRow,
  change: { status?: UserStatus },
  executor: Kysely<IdentityTables>,
): Promise<void> {
  await requireAuthorityOver(ctx, admin, target);
  if (change.status === 'inactive' && target.status === 'active') {
    if (target.id === admin.user.id) throw conflict('You cannot deactivate your own account', Code.CANNOT_DEACTIVATE_SELF);
    await requireNotLastSuperAdmin(target, executor);
  }
}

/** Explicit permissions may not exceed the granting admin's own (no escalation through PATCH or create). */
function requirePermissionsWithinOwn(admin: AdminActor, permissions: string[]): void {
  const beyond = permissions.filter((p) => !admin.user.permissions.includes(p));
  if (beyond.length) throw forbidden(`You cannot grant permissions you do not hold: ${beyond.join(', ')}`, Code.PERMISSION_ESCALATION);
}

async function requireNotLastSuperAdmin(target: UserRow, executor: Kysely<IdentityTables>): Promise<void> {
  if (target.role !== 'super_admin') return;
  const { count } = await executor
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('role', '=', 'super_admin')
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow();
  if (Number(count) <= 1 && target.status === 'active') throw conflict('This is the last active super_admin', Code.LAST_SUPER_ADMIN);
}

export async function createUser(ctx: IdentityContext, admin: AdminActor, input: Infer<typeof CREATE_USER_BODY>, meta: RequestMeta): Promise<UserView> {
  const entry = { actor: admin.actor, action: 'user.create', target: { type: 'email', id: input.email.trim().toLowerCase() } };
  return auditRefusal(ctx, meta, entry, async () => {
    const roleId = input.role ?? 'user';
    const role = await findRole(ctx, roleId);
    if (!role) throw badRequest(`Invalid body: role ${roleId} does not exist`, Code.ROLE_UNKNOWN);
    if (isPrivilegedRole(role) && !canGrantPrivileged(admin))
      throw forbidden(`Only a super_admin can create a user with the ${roleId} role`, Code.SUPER_ADMIN_REQUIRED);
    requirePermissionsWithinOwn(admin, input.permissions ?? []);
    const row = await ctx.db.transaction().execute(async (trx) => {
      if (await findUserByEmail(ctx, input.email, trx))
        throw conflict(`A user with email ${input.email.trim().toLowerCase()} already exists`, Code.USER_EXISTS);
      const user = await insertUser(ctx, { email: input.email, role: roleId, permissions: input.permissions ?? [] }, trx);
      await audit(
        ctx,
        meta,
        {
          actor: admin.actor,
          action: 'user.create',
          target: { type: 'user', id: user.id },
          result: 'success',
          details: { email: user.email, role: roleId, permissions: input.permissions ?? [] },
        },
        trx,
      );
      return user;
    });
    return toUserView(ctx, row);
  });
}

/** Deactivating a user also ends their sessions, so refresh stops at once everywhere. */
export async function patchUser(
  ctx: IdentityContext,
  admin: AdminActor,
  id: string,
  patch: Infer<typeof PATCH_USER_BODY>,
  meta: RequestMeta,
): Promise<UserView> {
  return auditRefusal(ctx, meta, { actor: admin.actor, action: 'user.update', target: { type: 'user', id } }, async () => {
    if (patch.permissions) requirePermissionsWithinOwn(admin, patch.permissions);
    const row = await ctx.db.transaction().execute(async (trx) => {
      const before = await requireUser(ctx, id, trx);
      await authorizeAccountChange(ctx, admin, before, patch, trx);
      if (patch.email && patch.email.trim().toLowerCase() !== before.email && (await findUserByEmail(ctx, patch.email, trx))) {
        throw conflict(`A user with email ${patch.email.trim().toLowerCase()} already exists`, Code.USER_EXISTS);
      }
      const after = (await updateUser(ctx, id, patch, trx))!;
      const revokedSessions = patch.status === 'inactive' ? await revokeUserSessions(ctx, id, 'user_deactivated', trx) : 0;
      await audit(
        ctx,
        meta,
        { actor: admin.actor, action: 'user.update', target: { type: 'user', id }, result: 'success', details: { changes: patch, revokedSessions } },
        trx,
      );
      return after;
    });
    return toUserView(ctx, row);
  });
}

/**
 * Hard delete (erasure): the user's sessions are revoked first, then the user row and any pending
 * code are removed in the same transaction. The audit trail keeps the id and the address.
 */
export async function deleteUser(ctx: IdentityContext, admin: AdminActor, id: string, meta: RequestMeta): Promise<{ revokedSessions: number }> {
  return auditRefusal(ctx, meta, { actor: admin.actor, action: 'user.delete', target: { type: 'user', id } }, async () => {
    return ctx.db.transaction().execute(async (trx) => {
      const user = await requireUser(ctx, id, trx);
      if (id === admin.user.id) throw conflict('You cannot delete your own account', Code.CANNOT_DELETE_SELF);
      await requireAuthorityOver(ctx, admin, user);
      await requireNotLastSuperAdmin(user, trx);
      const revokedSessions = await revokeUserSessions(ctx, id, 'user_deleted', trx);
      await trx.deleteFrom('identity_otp_codes').where('email', '=', user.email).execute();
      await trx.deleteFrom('users').where('id', '=', id).execute();
      await audit(
        ctx,
        meta,
        {
          actor: admin.actor,
          action: 'user.delete',
          target: { type: 'user', id },
          result: 'success',
          details: { email: user.email, role: user.role, revokedSessions },
        },
        trx,
      );
      return { revokedSessions };
    });
  });
}

/**
 * A user holds one role (the JWT's `role` claim). Granting replaces it; a change ends the user's
 * sessions so no token keeps the old role's claims beyond the access-token lifetime.
 */
export async function grantRole(
  ctx: IdentityContext,
  admin: AdminActor,
  id: string,
  roleId: string,
  meta: RequestMeta,
): Promise<{ user: UserView; changed: boolean }> {
  return auditRefusal(ctx, meta, { actor: admin.actor, action: 'role.grant', target: { type: 'user', id } }, async () => {
    const role = await findRole(ctx, roleId);
    if (!role) throw badRequest(`Invalid body: role ${roleId} does not exist`, Code.ROLE_UNKNOWN);
    return setRole(
      ctx,
      admin,
      id,
      meta,
      async (user) => {
        if (isPrivilegedRole(role) && !canGrantPrivileged(admin)) throw forbidden(`Only a super_admin can grant the ${roleId} role`, Code.SUPER_ADMIN_REQUIRED);
        if (user.role === roleId) return undefined;
        return roleId;
      },
      'role.grant',
    );
  });
}

/** Removing a role returns the user to the base `user` role, which itself cannot be removed. */
export async function revokeRole(
  ctx: IdentityContext,
  admin: AdminActor,
  id: string,
  roleId: string,
  meta: RequestMeta,
): Promise<{ user: UserView; changed: boolean }> {
  return auditRefusal(ctx, meta, { actor: admin.actor, action: 'role.revoke', target: { type: 'user', id } }, async () => {
    if (!(await findRole(ctx, roleId))) throw notFound(`No role has id ${roleId}`, Code.ROLE_NOT_FOUND);
    return setRole(
      ctx,
      admin,
      id,
      meta,
      async (user) => {
        if (user.role !== roleId) throw notFound(`The user does not hold the ${roleId} role`, Code.ROLE_NOT_ASSIGNED);
        if (roleId === 'user') throw conflict('Every user keeps the base user role; grant another role instead', Code.BASE_ROLE);
        return 'user';
      },
      'role.revoke',
      roleId,
    );
  });
}

async function setRole(
  ctx: IdentityContext,
  admin: AdminActor,
  id: string,
  meta: RequestMeta,
  decide: (user: UserRow) => Promise<string | undefined>,
  action: 'role.grant' | 'role.revoke',
  revokedRole?: string,
): Promise<{ user: UserView; changed: boolean }> {
  const result = await ctx.db.transaction().execute(async (trx) => {
    const user = await requireUser(ctx, id, trx);
    await requireAuthorityOver(ctx, admin, user);
    const next = await decide(user);
    if (!next) return { row: user, changed: false };
    if (user.role === 'super_admin') await requireNotLastSuperAdmin(user, trx);
    const row = (await updateUser(ctx, id, { role: next }, trx))!;
    const revokedSessions = await revokeUserSessions(ctx, id, 'role_changed', trx);
    await audit(
      ctx,
      meta,
      {
        actor: admin.actor,
        action,
        target: { type: 'user', id },
        result: 'success',
        details: { from: user.role, to: next, ...(revokedRole ? { role: revokedRole } : {}), revokedSessions },
      },
      trx,
    );
    return { row, changed: true };
  });
  return { user: await toUserView(ctx, result.row), changed: result.changed };
}

/**
 * Ends one session. Ending an admin's or super_admin's session is a change to that account, so it
 * needs the same authority as any other change to it.
 */
export async function revokeSessionAsAdmin(
  ctx: IdentityContext,
  admin: AdminActor,
  sessionId: string,
  meta: RequestMeta,
): Promise<{ sessionId: string; userId: string; revoked: boolean }> {
  return auditRefusal(ctx, meta, { actor: admin.actor, action: 'session.revoke', target: { type: 'session', id: sessionId } }, async () => {
    const session = await findSession(ctx, sessionId);
    if (!session) throw notFound(`No session has id ${sessionId}`, Code.SESSION_NOT_FOUND);
    const owner = await findUserById(ctx, session.user_id);
    if (owner) await requireAuthorityOver(ctx, admin, owner);
    const revoked = await revokeSession(ctx, session.id, 'admin_revoked');
    await audit(ctx, meta, {
      actor: admin.actor,
      action: 'session.revoke',
      target: { type: 'session', id: session.id },
      result: 'success',
      details: { userId: session.user_id, alreadyRevoked: !revoked },
    });
    return { sessionId: session.id, userId: session.user_id, revoked };
  });
}
