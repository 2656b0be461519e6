import type { LiveUser } from '../../shared/auth/live-session';
import type { PaymentNeeds } from './context';
import { readFailedSync, type FailedSyncStore } from './failed-sync-records';
import { planDecidingPayment, recentPaymentsOf, type Payment } from './payments';

const RECENT_PAYMENTS = 10;

const paymentView = (p: Payment) => ({
  paymentIntentId: p.id,
  planType: p.planType,
  amount: p.amount,
  currency: p.currency,
  status: p.status,
  failureMessage: p.failureMessage,
  syncState: p.sync.state,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

/**
 * The user's plan as identity has it now (the session check answers it; identity that cannot be
 * asked is a 503, like every route that needs a live session), their recent payments, and the state of the plan sync of the payment that decides
 * their plan: synced, pending, failed (with the last error and the next attempt) or manual_review.
 */
export async function userStatus(ctx: FailedSyncStore & PaymentNeeds<'db' | 'now' | 'log'>, user: LiveUser) {
  const [payments, deciding, failedRecord] = await Promise.all([
    recentPaymentsOf(ctx.db, user.id, RECENT_PAYMENTS),
    planDecidingPayment(ctx.db, user.id),
    readFailedSync(ctx, user.id, ctx.now()).catch((error) => {
      ctx.log.warn('could not read the failed-sync record', { error });
      return undefined;
    }),
  ]);
  return {
    userId: user.id,
    email: user.email,
    plan: user.plan,
    status: user.status,
    planSource: 'identity',
    sync: deciding
      ? {
          state: deciding.sync.state,
          plan: deciding.sync.plan,
          paymentIntentId: deciding.id,
          attempts: deciding.sync.attempts,
          lastError: deciding.sync.error,
          nextAttemptAt: deciding.sync.nextAttemptAt,
          syncedAt: deciding.sync.syncedAt,
        }
      : { state: 'none' },
    failedSyncRecord: failedRecord ?? null,
    payments: payments.map(paymentView),
  };
}
