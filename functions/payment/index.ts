import { serviceUrl } from '../../shared/config';
import type { HttpFunction, ServiceDefinition, TimerFunction } from '../../shared/functions';
import { healthFunction } from '../../shared/health';
import { http, json } from '../../shared/http/handler';
import { createLogger } from '../../shared/logging';
import { advertisedPlan, plans } from '../../shared/plans';
import { paymentAdminFunctions } from './admin';
import { reportSyncBacklog } from './backlog';
import { createPaymentIntent } from './create-payment-intent';
import { paymentChecks } from './health';
import { stripeApiBase, stripeMode } from './stripe-client';
import { cleanUpExpiredRecords, retryDueSyncs } from './sync-timers';
import { userStatus } from './user-status';
import { processEvent, verifiedEvent } from './webhook';

const route = (name: string, path: string, methods: HttpFunction['methods'], handler: HttpFunction['handler']): HttpFunction => ({
  kind: 'http', name: `payment-${name}`, route: `payment/${path}`, methods, handler,
});

export const plansFunction = route('plans', 'plans', ['GET'], http('payment', async () => json(200, { plans: plans().map(advertisedPlan) }, { 'Cache-Control': 'public, max-age=300' })));

export const createPaymentIntentFunction = route(
  'create-payment-intent', 'create-payment-intent', ['POST'],
  http('payment', async (request, { log }) => json(200, await createPaymentIntent(request, log))),
);

export const userStatusFunction = route(
  'user-status', 'user-status', ['GET'],
  http('payment', async (request, { log }) => json(200, await userStatus(request, log), { 'Cache-Control': 'no-store' })),
);

export const webhookFunction = route(
  'webhook', 'webhook', ['POST'],
  http('payment', async (request, { log }) => json(200, await processEvent(await verifiedEvent(request), log))),
);

/**
 * Retries due plan syncs (every minute by default; timers run once per app, and per-user leases
 * guard overlaps), then writes the backlog line the production alerts read.
 */
export const syncRetryTimer: TimerFunction = {
  kind: 'timer',
  name: 'payment-sync-retry',
  schedule: '%PAYMENT_SYNC_RETRY_SCHEDULE%',
  handler: async (_timer, context) => {
    const log = createLogger({ service: 'payment', function: context.functionName, invocationId: context.invocationId });
    try {
      await retryDueSyncs(log);
    } finally {
      await reportSyncBacklog(log);
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
  functions: [
    plansFunction,
    createPaymentIntentFunction,
    userStatusFunction,
    webhookFunction,
    healthFunction('payment', paymentChecks),
    ...paymentAdminFunctions,
    syncRetryTimer,
    failedSyncCleanupTimer,
  ],
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
