import type { LiveUser } from '../../shared/auth/live-session';
import type { PaymentNeeds } from './context';
import { readFailedSync, type FailedSyncStore } from './failed-sync-records';
import { countsByState, unsyncedPayments, type Payment } from './payments';
import type { PlanSyncer } from './plan-sync';
import { MANUAL_REVIEW_NOT_REPLAYED, replayUnsynced } from './replay';

export { countsByState };

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
export async function attentionList(ctx: FailedSyncStore & PaymentNeeds<'db' | 'now' | 'log'>, limit: number) {
  const { log } = ctx;
  const [counts, payments] = await Promise.all([countsByState(ctx.db), unsyncedPayments(ctx.db, limit)]);
  const now = ctx.now();
  const users = [...new Set(payments.map((p) => p.userId))];
  let recordsAvailable = true;
  const records = new Map(
    await Promise.all(
      users.map(
        async (userId) =>
          [
            userId,
            await readFailedSync(ctx, userId, now).catch((error) => {
              recordsAvailable = false;
              log.warn('could not read a failed-sync record', { userId, error });
              return undefined;
            }),
          ] as const,
      ),
    ),
  );
  return {
    generatedAt: now.toISOString(),
    summary: { ...counts, total: counts.pending + counts.failed + counts.manual_review },
    limit,
    failedSyncRecordsAvailable: recordsAvailable,
    payments: payments.map((p) => ({ ...view(p), failedSyncRecord: records.get(p.userId) ?? null })),
  };
}

/**
 * POST payment/admin/replay: what `npm run payments:replay -- --apply` does (the same function):
 * every failed or pending plan sync is made due and each user's newest plan is pushed now. Payments
 * in manual review are left alone, and the answer says how many and why. The body is empty or `{}`.
 */
export async function replay(ctx: PlanSyncer, admin: LiveUser) {
  ctx.log.info('plan-sync replay requested from the console', { adminId: admin.id });
  const { unsynced, manualReview, results } = await replayUnsynced(ctx, { apply: true });
  const failed = results.filter((r) => !r.success);
  ctx.log.info('plan-sync replay finished', { adminId: admin.id, payments: unsynced.length, users: results.length, failed: failed.length });
  return {
    success: failed.length === 0,
    replayedPayments: unsynced.length,
    users: results.length,
    failedUsers: failed.length,
    results,
    manualReview: { notReplayed: manualReview, note: MANUAL_REVIEW_NOT_REPLAYED },
  };
}
