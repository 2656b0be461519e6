import type { PublicUser, UserView } from './api';

/**
 * What the signed-in admin may change on a user, by the rules identity enforces (identity refuses
 * anything else whatever the page shows; this only explains the refusal before the click).
 */
export interface Allowed {
  ok: boolean;
  reason?: string;
}

const PRIVILEGED = ['admin', 'super_admin'];
const yes: Allowed = { ok: true };
const has = (admin: PublicUser, permission: string) => admin.permissions.includes(permission);
const privilegedTarget = (admin: PublicUser, target: UserView): Allowed | undefined =>
  PRIVILEGED.includes(target.role) && !has(admin, 'admin:roles:grant-privileged')
    ? { ok: false, reason: `Only a super admin can change an account with the ${target.role} role.` }
    : undefined;

export function canChangePlan(admin: PublicUser, target: UserView): Allowed {
  if (!has(admin, 'admin:users:update')) return { ok: false, reason: 'You do not have the admin:users:update permission.' };
  return privilegedTarget(admin, target) ?? yes;
}

export function canChangeStatus(admin: PublicUser, target: UserView): Allowed {
  if (!has(admin, 'admin:users:update')) return { ok: false, reason: 'You do not have the admin:users:update permission.' };
  if (admin.id === target.id) return { ok: false, reason: 'You cannot deactivate your own account.' };
  return privilegedTarget(admin, target) ?? yes;
}

export function canChangeRole(admin: PublicUser, target: UserView): Allowed {
  if (!has(admin, 'admin:roles:grant')) return { ok: false, reason: 'You do not have the admin:roles:grant permission.' };
  if (!has(admin, 'admin:roles:grant-privileged')) return { ok: false, reason: 'Only a super admin can grant or remove the admin and super_admin roles.' };
  if (admin.id === target.id) return { ok: false, reason: 'Change your own role from another super admin account.' };
  return yes;
}

export const canRevokeSessions = (admin: PublicUser): Allowed =>
  has(admin, 'admin:sessions:revoke') ? yes : { ok: false, reason: 'You do not have the admin:sessions:revoke permission.' };
