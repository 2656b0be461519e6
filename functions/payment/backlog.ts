import { toIso } from '../../shared/sql/dialect';
import { markSqlWork } from '../../shared/sql/idle';
import type { PaymentNeeds } from './context';
import type { PaymentDb } from './db/tables';

/**
 * The message of the line the sync-retry timer writes on every run. Application Insights receives
 * it as a `traces` row with this `message` and the SyncBacklog fields as `customDimensions`; the
 * alert rules in infra/modules/alerts.bicep query exactly these names (docs/deploy.md, "Alerts").
 */
export const SYNC_BACKLOG_MESSAGE = 'payment sync backlog';

/** The Table Storage marker (shared/sql/idle.ts) of plan-sync work: marked by every webhook and replay, before they write. */
export const PAYMENT_SYNC_WORK = 'payment-syncs';

/**
 * Marks plan-sync work before a write, best effort: Table Storage down must not refuse a signed
 * event or a replay, whose payment and retry live in SQL. While Storage is down the timer cannot
 * read the marker either and queries SQL every run; a mark missed then is felt only if Storage
 * comes back holding an idle mark while a retry is still owed, which then waits for the next mark
 * (any payment event) or the idle mark's expiry (a week at most; the backlog alert reads SQL's count).
 */
export async function markSyncWork(ctx: PaymentNeeds<'now' | 'log'>): Promise<void> {
  await markSqlWork(PAYMENT_SYNC_WORK, ctx.now()).catch((error) =>
    ctx.log.warn('could not mark plan-sync work in Table Storage; the retry timer reads SQL while Storage is down', { error: (error as Error).message }),
  );
}

export interface SyncBacklog {
  /** Payments whose plan identity has not received yet: pending, or failed and waiting for a retry. */
  syncsPending: number;
  /** Seconds since the payment fact (success or refund) of the oldest of them; 0 when there is none. */
  oldestPendingSeconds: number;
  /** Payments in manual review: retries exhausted, or a signed event that contradicts the record. */
  manualReview: number;
}

/** Counts the plan syncs still owed to identity at `now`, from SQL (the source of truth every instance shares). */
export async function syncBacklog(db: PaymentDb, now: Date): Promise<SyncBacklog> {
  const rows = await db
    .selectFrom('payment_payments')
    .select((eb) => ['sync_state', eb.fn.countAll().as('payments'), eb.fn.min('status_at').as('oldest')])
    .where('sync_state', 'in', ['pending', 'failed', 'manual_review'])
    .groupBy('sync_state')
    .execute();
  let syncsPending = 0;
  let manualReview = 0;
  let oldest: string | undefined;
  for (const row of rows) {
    const payments = Number(row.payments);
    if (row.sync_state === 'manual_review') {
      manualReview += payments;
      continue;
    }
    syncsPending += payments;
    const at = toIso(row.oldest as string | Date | null);
    if (at && (!oldest || at < oldest)) oldest = at;
  }
  const oldestPendingSeconds = oldest ? Math.max(0, Math.floor((now.getTime() - Date.parse(oldest)) / 1000)) : 0;
  return { syncsPending, oldestPendingSeconds, manualReview };
}

/** Writes the backlog line the alerts read; a failure to count is logged, never thrown into the timer. */
export async function reportSyncBacklog(ctx: PaymentNeeds<'db' | 'log'>, now: Date): Promise<SyncBacklog | undefined> {
  try {
    const backlog = await syncBacklog(ctx.db, now);
    ctx.log.info(SYNC_BACKLOG_MESSAGE, { ...backlog });
    return backlog;
  } catch (error) {
    ctx.log.error('payment sync backlog could not be counted', { error });
    return undefined;
  }
}
