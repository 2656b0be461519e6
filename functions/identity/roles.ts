import type { Kysely } from 'kysely';
import { member } from '../../shared/platform';
import type { IdentityContext } from './context';
import type { IdentityTables } from './db/tables';

export interface Role {
  id: string;
  description: string;
  permissions: string[];
  rank: number;
}

/** Lets an admin grant and remove roles ranked above `user` (admin, super_admin). */
export const GRANT_PRIVILEGED = 'admin:roles:grant-privileged';

/** What reading the roles needs: the platform that keeps them, and the database they are read from on first use. */
export type RoleSource = Pick<IdentityContext, 'platform' | 'db'>;

async function loadRoles(database: Kysely<IdentityTables>): Promise<Map<string, Role>> {
  const rows = await database.selectFrom('identity_roles').selectAll().orderBy('rank').execute();
  return new Map(rows.map((r) => [r.id, { id: r.id, description: r.description, permissions: JSON.parse(r.permissions) as string[], rank: r.rank }]));
}

// Roles change only through migrations, so one read per platform is enough; a failed read is tried again on the next use.
const ROLES = member('identity roles', () => ({ loaded: undefined as Promise<Map<string, Role>> | undefined }));

/** The roles by id, read from the context's database the first time the platform is asked. */
export function roles(ctx: RoleSource): Promise<Map<string, Role>> {
  const held = ctx.platform.get(ROLES);
  held.loaded ??= loadRoles(ctx.db).catch((error: unknown) => {
    held.loaded = undefined;
    throw error;
  });
  return held.loaded;
}

export async function findRole(ctx: RoleSource, id: string): Promise<Role | undefined> {
  return (await roles(ctx)).get(id);
}

/** Role permissions plus the user's explicit ones, sorted and without duplicates. */
export async function effectivePermissions(ctx: RoleSource, roleId: string, explicit: string[]): Promise<string[]> {
  const role = await findRole(ctx, roleId);
  return [...new Set([...(role?.permissions ?? []), ...explicit])].sort();
}

export const isPrivilegedRole = (role: Role | undefined) => (role?.rank ?? 0) > 0;
