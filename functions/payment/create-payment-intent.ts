import { randomUUID } from 'node:crypto';
import type { LiveUser } from '../../shared/auth/live-session';
import { badRequest, Code, forbidden } from '../../shared/http/errors';
import type { Infer } from '../../shared/http/schemas';
import type { PaymentNeeds } from './context';
import { insertPendingPayment } from './payments';
import type { INTENT_BODY } from './schemas';
import { askStripe } from './stripe-client';

/** A client retry with the same Idempotency-Key gets the same PaymentIntent instead of a second one. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,200}$/;

/**
 * A PaymentIntent for a plan, at the plan table's price (never the client's), for the signed-in
 * user only, created at Stripe with an idempotency key (the client's Idempotency-Key when given, so
 * its retry gets the same intent) and recorded as pending (in the database, at the clock's time)
 * before the client secret is returned.
 */
export async function createPaymentIntent(
  ctx: PaymentNeeds<'plans' | 'stripe' | 'db' | 'now' | 'log'>,
  user: LiveUser,
  body: Infer<typeof INTENT_BODY.schema>,
  clientKey: string | null,
) {
  const { log } = ctx;
  const plan = ctx.plans.find((p) => p.id === body.planType);
  if (!plan) throw badRequest(`Unknown planType "${body.planType}"; expected pro or enterprise`, Code.UNKNOWN_PLAN);
  if (plan.price === 0) throw badRequest(`The ${plan.id} plan cannot be purchased`, Code.PLAN_NOT_PURCHASABLE);
  if (body.userId !== user.id) throw forbidden('userId must be the signed-in user', Code.USER_MISMATCH);
  if (body.amount !== plan.price) {
    throw badRequest(`amount must be ${plan.price} (${plan.currency}, smallest unit) for the ${plan.id} plan`, Code.AMOUNT_MISMATCH, {
      expectedAmount: plan.price,
      currency: plan.currency,
    });
  }
  if (clientKey !== null && !IDEMPOTENCY_KEY.test(clientKey))
    throw badRequest('Idempotency-Key must be 8 to 200 printable ASCII characters', Code.INVALID_IDEMPOTENCY_KEY);
  const idempotencyKey = `create-pi:${user.id}:${plan.id}:${plan.priceVersion}:${clientKey ?? randomUUID()}`;

  const intent = await askStripe(log, 'creating a payment intent', () =>
    ctx.stripe.paymentIntents.create(
      {
        amount: plan.price,
        currency: plan.currency,
        allowed_payment_method_types: ['card'],
        description: `${plan.name} plan`,
        metadata: { userId: user.id, planType: plan.id, priceVersion: plan.priceVersion },
      },
      { idempotencyKey },
    ),
  );
  await insertPendingPayment(
    ctx.db,
    { id: intent.id, userId: user.id, planType: plan.id, amount: plan.price, currency: plan.currency, priceVersion: plan.priceVersion },
    ctx.now(),
  );
  log.info('payment intent created', { userId: user.id, planType: plan.id, paymentIntentId: intent.id });
  return { clientSecret: intent.client_secret, paymentIntentId: intent.id, amount: intent.amount, currency: intent.currency, planType: plan.id };
}
