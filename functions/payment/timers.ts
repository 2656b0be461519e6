import { timers } from '../../shared/functions';
import { sqlWorkStateOrBusy } from '../../shared/sql/idle';
import { PAYMENT_SYNC_WORK, reportSyncBacklog, SYNC_BACKLOG_MESSAGE } from './backlog';
import { paymentContext } from './context';
import { cleanUpExpiredRecords, retryDueSyncs } from './sync-timers';

const timer = timers('payment', paymentContext);

/**
 * Retries due plan syncs (every minute by default; timers run once per app, and per-user leases
 * guard overlaps), then writes the backlog line the production alerts read. While no sync is owed
 * (the Table Storage marker says idle: shared/sql/idle.ts) it writes the line from the marker and
 * leaves SQL alone, so a serverless database can pause.
 */
export const syncRetryTimer = timer('sync-retry', '%PAYMENT_SYNC_RETRY_SCHEDULE%', async (ctx) => {
  const work = await sqlWorkStateOrBusy(PAYMENT_SYNC_WORK, ctx.now());
  if (work.idle) {
    ctx.log.info(SYNC_BACKLOG_MESSAGE, { syncsPending: 0, oldestPendingSeconds: 0, manualReview: work.data.manualReview ?? 0 });
    return;
  }
  try {
    await retryDueSyncs(ctx, ctx.now());
  } finally {
    const backlog = await reportSyncBacklog(ctx, ctx.now());
    if (backlog?.syncsPending === 0) await work.markIdle({ manualReview: backlog.manualReview }, ctx.now()).catch(() => false);
  }
});

/** Deletes expired failed-sync records every 15 minutes (Table Storage has no TTL). */
export const failedSyncCleanupTimer = timer('failed-sync-cleanup', '0 */15 * * * *', async (ctx) => void (await cleanUpExpiredRecords(ctx, ctx.now())));

export const TIMERS = [syncRetryTimer, failedSyncCleanupTimer];
