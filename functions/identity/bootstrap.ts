import { config } from '../../shared/config';
import { createLogger } from '../../shared/logging';
import { audit, type Actor } from './audit';
import { findRole } from './roles';
import { revokeUserSessions } from './sessions';
import { identityDb } from './tables';
import { findUserByEmail, insertUser, normalizeEmail, updateUser, type UserRow } from './users';

const SYSTEM: Actor = { type: 'system', id: 'bootstrap' };

/**
 * Creates `email` with `role`, or gives an existing user that role (and reactivates them). Used by
 * start-up (BOOTSTRAP_ADMIN_EMAIL) and by the users CLI; audited as the system.
 */
export async function ensureUserWithRole(email: string, roleId: string, actor: Actor = SYSTEM): Promise<{ user: UserRow; outcome: 'created' | 'promoted' | 'unchanged' }> {
  if (!(await findRole(roleId))) throw new Error(`role ${roleId} does not exist`);
  const meta = { ip: null, userAgent: null, requestId: `${actor.id}-${Date.now()}` };
  return identityDb()
    .transaction()
    .execute(async (trx) => {
      const existing = await findUserByEmail(email, trx);
      if (!existing) {
        const user = await insertUser({ email, role: roleId }, trx);
        await audit(meta, { actor, action: 'user.create', target: { type: 'user', id: user.id }, result: 'success', details: { email: user.email, role: roleId } }, trx);
        return { user, outcome: 'created' as const };
      }
      if (existing.role === roleId && existing.status === 'active') return { user: existing, outcome: 'unchanged' as const };
      const user = (await updateUser(existing.id, { role: roleId, status: 'active' }, trx))!;
      await revokeUserSessions(existing.id, 'role_changed', trx);
      await audit(meta, { actor, action: 'role.grant', target: { type: 'user', id: user.id }, result: 'success', details: { from: existing.role, to: roleId } }, trx);
      return { user, outcome: 'promoted' as const };
    });
}

/** BOOTSTRAP_ADMIN_EMAIL becomes a super_admin when it is not one yet; an existing super_admin is left alone. */
export async function bootstrapAdmin(): Promise<void> {
  const email = config().BOOTSTRAP_ADMIN_EMAIL;
  if (!email) return;
  const existing = await findUserByEmail(normalizeEmail(email));
  if (existing?.role === 'super_admin') return;
  try {
    const { outcome } = await ensureUserWithRole(email, 'super_admin');
    createLogger({ service: 'identity' }).info('bootstrap admin ready', { email: normalizeEmail(email), outcome });
  } catch (error) {
    // Several instances start at once: the one that lost the insert race finds the admin in place.
    if ((await findUserByEmail(normalizeEmail(email)))?.role !== 'super_admin') throw error;
  }
}
