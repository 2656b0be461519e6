import { member } from '../../shared/platform';
import { audit, type Actor } from './audit';
import type { IdentityContext } from './context';
import { findRole } from './roles';
import { revokeUserSessions } from './sessions';
import { findUserByEmail, insertUser, normalizeEmail, updateUser, type UserRow } from './users';

const SYSTEM: Actor = { type: 'system', id: 'bootstrap' };

/**
 * Creates `email` with `role`, or gives an existing user that role (and reactivates them). Used by
 * start-up (BOOTSTRAP_ADMIN_EMAIL) and by the users CLI; audited as the system.
 */
export async function ensureUserWithRole(
  ctx: IdentityContext,
  email: string,
  roleId: string,
  actor: Actor = SYSTEM,
): Promise<{ user: UserRow; outcome: 'created' | 'promoted' | 'unchanged' }> {
  if (!(await findRole(ctx, roleId))) throw new Error(`role ${roleId} does not exist`);
  const meta = { ip: null, userAgent: null, requestId: `${actor.id}-${ctx.now().getTime()}` };
  return ctx.db.transaction().execute(async (trx) => {
    const existing = await findUserByEmail(ctx, email, trx);
    if (!existing) {
      const user = await insertUser(ctx, { email, role: roleId }, trx);
      await audit(
        ctx,
        meta,
        { actor, action: 'user.create', target: { type: 'user', id: user.id }, result: 'success', details: { email: user.email, role: roleId } },
        trx,
      );
      return { user, outcome: 'created' as const };
    }
    if (existing.role === roleId && existing.status === 'active') return { user: existing, outcome: 'unchanged' as const };
    const user = (await updateUser(ctx, existing.id, { role: roleId, status: 'active' }, trx))!;
    await revokeUserSessions(ctx, existing.id, 'role_changed', trx);
    await audit(
      ctx,
      meta,
      { actor, action: 'role.grant', target: { type: 'user', id: user.id }, result: 'success', details: { from: existing.role, to: roleId } },
      trx,
    );
    return { user, outcome: 'promoted' as const };
  });
}

/** BOOTSTRAP_ADMIN_EMAIL becomes a super_admin when it is not one yet; an existing super_admin is left alone. */
export async function bootstrapAdmin(ctx: IdentityContext): Promise<void> {
  const email = ctx.config.BOOTSTRAP_ADMIN_EMAIL;
  if (!email) return;
  const existing = await findUserByEmail(ctx, normalizeEmail(email));
  if (existing?.role === 'super_admin') return;
  try {
    const { outcome } = await ensureUserWithRole(ctx, email, 'super_admin');
    ctx.log.info('bootstrap admin ready', { email: normalizeEmail(email), outcome });
  } catch (error) {
    // Several instances start at once: the one that lost the insert race finds the admin in place.
    if ((await findUserByEmail(ctx, normalizeEmail(email)))?.role !== 'super_admin') throw error;
  }
}

/** Per platform (an instance): whether the bootstrap admin was put in place, for which address. */
const BOOTSTRAPPED = member('identity bootstrap admin', () => ({ email: undefined as string | undefined, done: undefined as Promise<void> | undefined }));

/**
 * BOOTSTRAP_ADMIN_EMAIL put in place once per instance, on the first sign-in request it serves
 * (login or verify), not at start-up: a cold start, a probe or a timer then touches no SQL, so a
 * serverless database can pause; the first sign-in uses SQL anyway, so nothing is woken for it.
 * The bootstrap admin's own first sign-in finds the account (and role) in place, which is when it
 * matters (with sign-up closed an absent account would be mailed "no account"). A failed try (the
 * database resuming, the migrations not applied yet) is logged and tried again by the next sign-in;
 * the request itself goes on, to succeed or fail on its own SQL.
 */
export async function ensureBootstrapAdmin(ctx: IdentityContext): Promise<void> {
  const email = ctx.config.BOOTSTRAP_ADMIN_EMAIL;
  if (!email) return;
  const state = ctx.platform.get(BOOTSTRAPPED);
  if (state.email !== email || !state.done) {
    state.email = email;
    const done = bootstrapAdmin(ctx).catch((error: unknown) => {
      if (state.done === done) state.done = undefined;
      ctx.log.warn('bootstrap admin not ready yet; the next sign-in tries again', { error });
    });
    state.done = done;
  }
  await state.done;
}
