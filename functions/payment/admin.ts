import type { LiveUser } from '../../shared/auth/live-session';
import type { Logger } from '../../shared/logging';
import { readFailedSync } from './failed-sync-records';
import { unsyncedPayments, type Payment } from './payments';
import { paymentDb } from './db/tables';
import { replayUnsynced } from './replay';
import { sql } from '../../shared/sql/dialect';
import { currentTime } from '../../shared/platform';

const NEEDS_ATTENTION = ['pending', 'failed', 'manual_review'] as const;

/** How many payments are in each state that needs attention, over the whole table. */
export async function countsByState(): Promise<Record<(typeof NEEDS_ATTENTION)[number], number>> {
  const rows = await paymentDb()
    .selectFrom('payment_payments')
    .select(['sync_state', sql<number>`count(*)`.as('count')])
    .where('sync_state', 'in', [...NEEDS_ATTENTION])
    .groupBy('sync_state')
    .execute();
  const counts = { pending: 0, failed: 0, manual_review: 0 };
  for (const row of rows) counts[row.sync_state as keyof typeof counts] = Number(row.count);
  return counts;
}

const view = (p: Payment) => ({
  paymentIntentId: p.id,
  userId: p.userId,
  planType: p.planType,
  amount: p.amount,
  currency: p.currency,
  status: p.status,
  sync: { state: p.sync.state, plan: p.sync.plan, attempts: p.sync.attempts, lastError: p.sync.error, nextAttemptAt: p.sync.nextAttemptAt },
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

/**
 * GET payment/admin/unsynced: the plan syncs still owed to identity (pending, failed, manual
 * review), oldest first, each with the user's live failed-sync record from Table Storage (the
 * operator's 24-hour view); Table Storage failing leaves the records out, not the list.
 */
export async function attentionList(limit: number, log: Logger) {
  const [counts, payments] = await Promise.all([countsByState(), unsyncedPayments(limit)]);
  const users = [...new Set(payments.map((p) => p.userId))];
  let recordsAvailable = true;
  const records = new Map(
    await Promise.all(
      users.map(
        async (userId) =>
          [
            userId,
            await readFailedSync(userId).catch((error) => {
              recordsAvailable = false;
              log.warn('could not read a failed-sync record', { userId, error });
              return undefined;
            }),
          ] as const,
      ),
    ),
  );
  return {
    generatedAt: currentTime().toISOString(),
    summary: { ...counts, total: counts.pending + counts.failed + counts.manual_review },
    limit,
    failedSyncRecordsAvailable: recordsAvailable,
    payments: payments.map((p) => ({ ...view(p), failedSyncRecord: records.get(p.userId) ?? null })),
  };
}

/**
 * POST payment/admin/replay: what `npm run payments:replay -- --apply` does (the same function):
 * every payment still owing identity a plan goes back to pending and each user's newest plan is
 * pushed now. The body is empty or `{}`.
 */
export async function replay(admin: LiveUser, log: Logger) {
  log.info('plan-sync replay requested from the console', { adminId: admin.id });
  const { unsynced, results } = await replayUnsynced(log, { apply: true });
  const failed = results.filter((r) => !r.success);
  log.info('plan-sync replay finished', { adminId: admin.id, payments: unsynced.length, users: results.length, failed: failed.length });
  return { success: failed.length === 0, replayedPayments: unsynced.length, users: results.length, failedUsers: failed.length, results };
}
