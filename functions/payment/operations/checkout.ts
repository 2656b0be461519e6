import type { LiveUser } from '../../../shared/auth/live-session';
import { json } from '../../../shared/http/handler';
import type { Infer } from '../../../shared/http/schemas';
import { advertisedPlan } from '../../../shared/plans';
import { op } from '../context';
import { createPaymentIntent } from '../create-payment-intent';
import type * as s from '../schemas';
import { userStatus } from '../user-status';

// A buyer's routes: the plans on sale, a payment intent for one, and where their payments and plan stand.

export const listPlans = op('The plans on sale: price, currency, monthly report quota and features', async ({ ctx }) =>
  json(200, { plans: ctx.plans.map(advertisedPlan) }, { 'Cache-Control': 'public, max-age=300' }),
);

export const createIntent = op<LiveUser, Infer<typeof s.INTENT_BODY.schema>>(
  'Creates a card PaymentIntent for a plan at its price; answers its client secret',
  async ({ principal, body, request, ctx }) => json(200, await createPaymentIntent(ctx, principal, body, request.headers.get('idempotency-key'))),
);

export const status = op<LiveUser>("The signed-in user's plan, recent payments and the state of their plan sync", async ({ principal, ctx }) =>
  json(200, await userStatus(ctx, principal)),
);
