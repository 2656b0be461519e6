import type { LiveUser } from '../../../shared/auth/live-session';
import { isDuplicateKey, toIso } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';

type Db = Pick<OrchestratorContext, 'db'>;

export interface Preferences {
  email: boolean;
  /** The address notices go to: the one the user's last report request came with (null before any). */
  address: string | null;
  updatedAt: string | null;
}

const enabled = (value: number | boolean) => value === true || value === 1;

/** Writes the row of `userId` with `set`, creating it (e-mail on) when it is not there yet. */
async function upsert(ctx: Db, userId: string, set: { email?: string; email_enabled?: number }, now: string): Promise<void> {
  for (let tries = 0; tries < 2; tries++) {
    const updated = await ctx.db
      .updateTable('orchestrator_notify_users')
      .set({ ...set, updated_at: now })
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 1) return;
    try {
      await ctx.db
        .insertInto('orchestrator_notify_users')
        .values({ user_id: userId, email: set.email ?? null, email_enabled: set.email_enabled ?? 1, updated_at: now })
        .execute();
      return;
    } catch (error) {
      // Another request made the row meanwhile: update it.
      if (!isDuplicateKey(error)) throw error;
    }
  }
}

/** Keeps the address a report request came with (the signed-in user's, from identity), so a notice needs no call to identity later. */
export const rememberAddress = (ctx: Db, user: Pick<LiveUser, 'id' | 'email'>, now: Date) => upsert(ctx, user.id, { email: user.email }, now.toISOString());

export async function readPreferences(ctx: Db, userId: string): Promise<Preferences> {
  const row = await ctx.db.selectFrom('orchestrator_notify_users').selectAll().where('user_id', '=', userId).executeTakeFirst();
  return { email: row ? enabled(row.email_enabled) : true, address: row?.email ?? null, updatedAt: toIso(row?.updated_at) };
}

/** PUT api/notifications/preferences: e-mail on or off for the signed-in user. */
export async function setPreferences(ctx: Db & Pick<OrchestratorContext, 'now'>, user: Pick<LiveUser, 'id' | 'email'>, email: boolean): Promise<Preferences> {
  await upsert(ctx, user.id, { email: user.email, email_enabled: email ? 1 : 0 }, ctx.now().toISOString());
  return readPreferences(ctx, user.id);
}

/** Where a notice to `userId` goes, or undefined when they opted out or no address is known. */
export async function noticeAddress(ctx: Db, userId: string): Promise<string | undefined> {
  const row = await ctx.db.selectFrom('orchestrator_notify_users').select(['email', 'email_enabled']).where('user_id', '=', userId).executeTakeFirst();
  return row && enabled(row.email_enabled) && row.email ? row.email : undefined;
}
