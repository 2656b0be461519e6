import { serviceUrl } from '../../shared/config';
import type { ServiceDefinition, TimerFunction } from '../../shared/functions';
import { contractRoutes } from '../../shared/http/contract';
import { createLogger } from '../../shared/logging';
import { plans } from '../../shared/plans';
import { sqlWorkStateOrBusy } from '../../shared/sql/idle';
import { PAYMENT_SYNC_WORK, reportSyncBacklog, SYNC_BACKLOG_MESSAGE } from './backlog';
import { stripeApiBase, stripeMode } from './stripe-client';
import { cleanUpExpiredRecords, retryDueSyncs } from './sync-timers';
import { ROUTES, DESCRIPTION } from './routes';

/**
 * Retries due plan syncs (every minute by default; timers run once per app, and per-user leases
 * guard overlaps), then writes the backlog line the production alerts read. While no sync is owed
 * (the Table Storage marker says idle: shared/sql/idle.ts) it writes the line from the marker and
 * leaves SQL alone, so a serverless database can pause.
 */
export const syncRetryTimer: TimerFunction = {
  kind: 'timer',
  name: 'payment-sync-retry',
  schedule: '%PAYMENT_SYNC_RETRY_SCHEDULE%',
  handler: async (_timer, context) => {
    const log = createLogger({ service: 'payment', function: context.functionName, invocationId: context.invocationId });
    const work = await sqlWorkStateOrBusy(PAYMENT_SYNC_WORK);
    if (work.idle) {
      log.info(SYNC_BACKLOG_MESSAGE, { syncsPending: 0, oldestPendingSeconds: 0, manualReview: work.data.manualReview ?? 0 });
      return;
    }
    try {
      await retryDueSyncs(log);
    } finally {
      const backlog = await reportSyncBacklog(log);
      if (backlog?.syncsPending === 0) await work.markIdle({ manualReview: backlog.manualReview }).catch(() => false);
    }
  },
};

/** Deletes expired failed-sync records every 15 minutes (Table Storage has no TTL). */
export const failedSyncCleanupTimer: TimerFunction = {
  kind: 'timer',
  name: 'payment-failed-sync-cleanup',
  schedule: '0 */15 * * * *',
  handler: async (_timer, context) => {
    await cleanUpExpiredRecords(createLogger({ service: 'payment', function: context.functionName, invocationId: context.invocationId }));
  },
};

export const payment: ServiceDefinition = {
  name: 'payment',
  functions: [...ROUTES, ...contractRoutes('payment', DESCRIPTION, () => ROUTES), syncRetryTimer, failedSyncCleanupTimer],
  // Offline mode's local Stripe API server is not started here: it is tooling, not deployed. The dev
  // host starts it (tools/stripe-emulator/local.ts); under `func start`, `npm run stripe:local` does.
  async start() {
    plans();
  },
  describe() {
    const mode = stripeMode();
    if (mode.mode === 'stripe') return ['payment      Stripe API (STRIPE_SECRET_KEY)'];
    if (mode.mode === 'unconfigured') return ['payment      Stripe NOT configured: set STRIPE_SECRET_KEY'];
    return [
      `payment      OFFLINE mode: Stripe client -> local Stripe API server ${stripeApiBase()} (no real charges)`,
      `             webhook ${serviceUrl('payment')}/webhook; confirm an intent with: npm run stripe:trigger -- <paymentIntentId>`,
    ];
  },
};
