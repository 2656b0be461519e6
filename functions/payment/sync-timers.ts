import type { PaymentNeeds } from './context';
import { deleteExpiredFailedSyncs, type FailedSyncStore } from './failed-sync-records';
import { syncUser, type PlanSyncer, type SyncResult } from './plan-sync';
import { usersWithDueSyncs } from './payments';

/** Users retried per timer run; the rest wait for the next run (oldest first, so none starves). */
export const RETRY_BATCH = 100;
/** Identity calls in flight at once from one timer run. */
const RETRY_CONCURRENCY = 4;

/**
 * The retry timer's work: every user whose sync is due at `now` (pending past the inline grace, or failed
 * past its backoff) gets one syncUser, which pushes the newest plan or records the next backoff.
 */
export async function retryDueSyncs(ctx: PlanSyncer, now: Date): Promise<SyncResult[]> {
  const users = await usersWithDueSyncs(ctx.db, now, RETRY_BATCH);
  const results: SyncResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < users.length) {
      const userId = users[next++];
      results.push(await syncUser(ctx, userId));
    }
  };
  await Promise.all(Array.from({ length: Math.min(RETRY_CONCURRENCY, users.length) }, worker));
  if (users.length) {
    ctx.log.info('plan sync retries ran', { users: users.length, succeeded: results.filter((r) => r.success).length });
  }
  return results;
}

/** The cleanup timer's work: Table Storage has no TTL, so the failed-sync records expired at `now` are deleted here. */
export async function cleanUpExpiredRecords(ctx: FailedSyncStore & PaymentNeeds<'log'>, now: Date): Promise<number> {
  const deleted = await deleteExpiredFailedSyncs(ctx, now);
  if (deleted) ctx.log.info('expired failed-sync records deleted', { deleted });
  return deleted;
}
