import { serviceUrl } from '../../shared/config';
import { ADMIN, USER } from '../../shared/auth/guards';
import type { ServiceDefinition, TimerFunction } from '../../shared/functions';
import { healthFunction } from '../../shared/health';
import { contractRoutes } from '../../shared/http/contract';
import { PUBLIC, routes } from '../../shared/http/route';
import { createLogger } from '../../shared/logging';
import { plans } from '../../shared/plans';
import { sqlWorkStateOrBusy } from '../../shared/sql/idle';
import { PAYMENT_SYNC_WORK, reportSyncBacklog, SYNC_BACKLOG_MESSAGE } from './backlog';
import { paymentChecks } from './health';
import * as r from './routes';
import * as s from './schemas';
import { stripeApiBase, stripeMode } from './stripe-client';
import { cleanUpExpiredRecords, retryDueSyncs } from './sync-timers';

const route = routes('payment');

/** payment's whole HTTP surface: one route per line (id, method, path, who may call, what it takes and answers, handler). */
// prettier-ignore
const ROUTES = [
  route('plans', 'GET', 'plans', PUBLIC, { 200: s.PLANS }, r.listPlans),
  route('create-payment-intent', 'POST', 'create-payment-intent', USER, { body: s.INTENT_BODY, 200: s.INTENT }, r.createIntent),
  route('user-status', 'GET', 'user-status', USER, { 200: s.USER_STATUS }, r.status),
  route('webhook', 'POST', 'webhook', r.STRIPE_SIGNED, { body: s.WEBHOOK_BODY, 200: s.WEBHOOK_OUTCOME, 500: r.WEBHOOK_FAILED }, r.webhook),
  healthFunction('payment', paymentChecks),
  route('admin-unsynced', 'GET', 'admin/unsynced', ADMIN, { query: s.UNSYNCED_QUERY, 200: s.UNSYNCED }, r.unsynced),
  route('admin-replay', 'POST', 'admin/replay', ADMIN, { body: s.REPLAY_BODY, 200: s.REPLAYED }, r.replaySyncs),
];

const DESCRIPTION =
  "Card payments with Stripe for signed-in users: plans, payment intents, the signed webhook, each user's payment and plan-sync status, and the plan sync into identity that never loses an update.";

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
