import type Stripe from 'stripe';
import { json } from '../../../shared/http/handler';
import { op } from '../context';
import { processEvent } from '../webhook';

// Stripe's route: the event comes verified from the guard (STRIPE_SIGNED), as the principal.

export const webhook = op<Stripe.Event>(
  'Receives Stripe events (deduplicated, ordered by lifecycle) and syncs the plan to identity',
  async ({ principal, ctx }) => json(200, await processEvent(ctx, principal)),
);
