import { paymentConfig } from './settings';
import { serviceUrl } from '../../shared/config';
import type { ServiceDefinition } from '../../shared/functions';
import { contractRoutes } from '../../shared/http/contract';
import { planTable } from '../../shared/plans';
import { stripeApiBase, stripeMode } from './stripe-client';
import { TIMERS } from './timers';
import { ROUTES, DESCRIPTION } from './routes';

export { syncRetryTimer, failedSyncCleanupTimer } from './timers';

export const payment: ServiceDefinition = {
  name: 'payment',
  functions: [...ROUTES, ...contractRoutes('payment', DESCRIPTION, () => ROUTES), ...TIMERS],
  // Offline mode's local Stripe API server is not started here: it is tooling, not deployed. The dev
  // host starts it (tools/stripe-emulator/local.ts); under `func start`, `npm run stripe:local` does.
  async start(platform) {
    // A bad PLANS_JSON stops the host here, not a checkout later (shared/plans.ts).
    planTable(paymentConfig(platform).PLANS_JSON);
  },
  describe(platform) {
    const mode = stripeMode(paymentConfig(platform));
    if (mode.mode === 'stripe') return ['payment      Stripe API (STRIPE_SECRET_KEY)'];
    if (mode.mode === 'unconfigured') return ['payment      Stripe NOT configured: set STRIPE_SECRET_KEY'];
    return [
      `payment      OFFLINE mode: Stripe client -> local Stripe API server ${stripeApiBase(platform)} (no real charges)`,
      `             webhook ${serviceUrl('payment', paymentConfig(platform))}/webhook; confirm an intent with: npm run stripe:trigger -- <paymentIntentId>`,
    ];
  },
};
