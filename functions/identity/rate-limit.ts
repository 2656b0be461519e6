import { createHash } from 'node:crypto';
import type { IdentityContext } from './context';

/** The counters are rows in the database, in windows of the clock's time. */
type CounterContext = Pick<IdentityContext, 'db' | 'now'>;

export interface RateLimitResult {
  allowed: boolean;
  count: number;
  retryAfterSeconds: number;
}

const windowOf = (windowSeconds: number, now: number) => Math.floor(now / 1000 / windowSeconds);

/** A bucket name that does not store the raw email or IP in the counters table. */
export const bucketKey = (kind: string, value: string) => `${kind}:${createHash('sha256').update(value).digest('hex').slice(0, 40)}`;

/**
 * Counts one event in a fixed window shared by every instance (one SQL row per bucket and window,
 * incremented atomically) and says whether the count is within `limit`.
 */
export async function hitRateLimit(ctx: CounterContext, bucket: string, limit: number, windowSeconds: number): Promise<RateLimitResult> {
  const now = ctx.now().getTime();
  const window = windowOf(windowSeconds, now);
  const key = `${bucket}:${window}`;
  const windowEnd = (window + 1) * windowSeconds * 1000;
  const count = await ctx.db.transaction().execute(async (trx) => {
    const increment = () =>
      trx
        .updateTable('identity_rate_limits')
        .set((eb) => ({ count: eb('count', '+', 1) }))
        .where('bucket', '=', key)
        .executeTakeFirst();
    if (Number((await increment()).numUpdatedRows) === 0) {
      try {
        await trx
          .insertInto('identity_rate_limits')
          .values({ bucket: key, count: 1, expires_at: new Date(windowEnd).toISOString() })
          .execute();
      } catch {
        // Another instance created the row first: count on it.
        await increment();
      }
    }
    const row = await trx.selectFrom('identity_rate_limits').select('count').where('bucket', '=', key).executeTakeFirstOrThrow();
    return row.count;
  });
  return { allowed: count <= limit, count, retryAfterSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)) };
}

/** Forgets the current window of a bucket (a proven mailbox owner gets a fresh per-email allowance). */
export async function resetRateLimit(ctx: CounterContext, bucket: string, windowSeconds: number): Promise<void> {
  await ctx.db
    .deleteFrom('identity_rate_limits')
    .where('bucket', '=', `${bucket}:${windowOf(windowSeconds, ctx.now().getTime())}`)
    .execute();
}
