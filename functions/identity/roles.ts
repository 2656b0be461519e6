import { asyncMember, currentPlatform } from '../../shared/platform';
import { identityDb } from './db/tables';

export interface Role {
  id: string;
  description: string;
  permissions: string[];
  rank: number;
}

/** Lets an admin grant and remove roles ranked above `user` (admin, super_admin). */
export const GRANT_PRIVILEGED = 'admin:roles:grant-privileged';

// Roles change only through migrations, so one read per platform is enough.

async function loadRoles(): Promise<Map<string, Role>> {
  const rows = await identityDb().selectFrom('identity_roles').selectAll().orderBy('rank').execute();
  return new Map(rows.map((r) => [r.id, { id: r.id, description: r.description, permissions: JSON.parse(r.permissions) as string[], rank: r.rank }]));
}

const ROLES = asyncMember('identity roles', loadRoles);

export const roles = (): Promise<Map<string, Role>> => currentPlatform().get(ROLES);

export async function findRole(id: string): Promise<Role | undefined> {
  return (await roles()).get(id);
}

/** Role permissions plus the user's explicit ones, sorted and without duplicates. */
export async function effectivePermissions(roleId: string, explicit: string[]): Promise<string[]> {
  const role = await findRole(roleId);
  return [...new Set([...(role?.permissions ?? []), ...explicit])].sort();
}

export const isPrivilegedRole = (role: Role | undefined) => (role?.rank ?? 0) > 0;
