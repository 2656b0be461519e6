import { syncUser, type PlanSyncer, type SyncResult } from './plan-sync';
import { markSyncWork } from './backlog';
import { countsByState, RETRIED_STATES, reopenForReplay, unsyncedPayments, type Payment } from './payments';

/** What the replay says of the payments it leaves alone: manual review is an operator's decision, never a replay's. */
export const MANUAL_REVIEW_NOT_REPLAYED =
  'Payments in manual review are not replayed: each waits for an operator to approve or reject it (POST /payment/admin/payments/{paymentIntentId}/approve or /reject, the Approve and Reject buttons of the console).';

/**
 * The replay command's work: list every payment whose plan sync the retry loop owes (pending or
 * failed) and, with `apply`, make them due and push each user's newest plan now. Payments in
 * manual review are counted, never replayed: a plan held back for a person (a payment that did not
 * pay its plan's price, an event that contradicts the record, retries exhausted) waits for a decision.
 */
export async function replayUnsynced(
  ctx: PlanSyncer,
  options: { apply: boolean },
): Promise<{ unsynced: Payment[]; manualReview: number; results: SyncResult[] }> {
  const [unsynced, counts] = await Promise.all([unsyncedPayments(ctx.db, 1000, RETRIED_STATES), countsByState(ctx.db)]);
  const manualReview = counts.manual_review;
  if (!options.apply) return { unsynced, manualReview, results: [] };
  await markSyncWork(ctx);
  await reopenForReplay(
    ctx.db,
    unsynced.map((p) => p.id),
    ctx.now(),
  );
  const results: SyncResult[] = [];
  for (const userId of new Set(unsynced.map((p) => p.userId))) results.push(await syncUser(ctx, userId));
  return { unsynced, manualReview, results };
}
