import type { LiveUser } from '../../../shared/auth/live-session';
import { json } from '../../../shared/http/handler';
import type { Infer } from '../../../shared/http/schemas';
import { billingOf, cancelSubscription, changeSubscription, createSubscription, portalSession } from '../billing';
import { op } from '../context';
import { reportsLeft } from '../orchestrator-client';
import type * as s from '../schemas';

// A subscriber's routes: subscribe, change or cancel the plan, the Customer Portal, and the billing summary.

const NO_STORE = { 'Cache-Control': 'no-store' };

export const subscribe = op<LiveUser, Infer<typeof s.SUBSCRIBE_BODY.schema>>(
  "Subscribes to a plan (monthly or yearly); answers the first invoice's client secret to confirm",
  async ({ principal, body, request, ctx }) => json(200, await createSubscription(ctx, principal, body, request.headers.get('idempotency-key')), NO_STORE),
);

export const changePlan = op<LiveUser, Infer<typeof s.CHANGE_PLAN_BODY.schema>>(
  'Changes the subscription: an upgrade at once (prorated), a downgrade at the period end',
  async ({ principal, body, ctx }) => json(200, await changeSubscription(ctx, principal, body)),
);

export const cancel = op<LiveUser>('Cancels the subscription at the period end: the plan is kept until then', async ({ principal, ctx }) =>
  json(200, await cancelSubscription(ctx, principal)),
);

export const portal = op<LiveUser, Infer<typeof s.PORTAL_BODY.schema>>(
  'A Stripe Customer Portal session: cancel, change the card, see invoices',
  async ({ principal, body, ctx }) => json(200, await portalSession(ctx, principal, body), NO_STORE),
);

export const billing = op<LiveUser>(
  "The signed-in user's plan and period, reports left, subscription, payments and invoices",
  async ({ principal, request, ctx }) => {
    const [summary, reports] = await Promise.all([billingOf(ctx, principal), reportsLeft(ctx.config, ctx.log, request.headers.get('authorization') ?? '')]);
    return json(200, { plan: principal.plan, planPeriodEnd: principal.planPeriodEnd, planSource: principal.planSource, reports, ...summary }, NO_STORE);
  },
);
