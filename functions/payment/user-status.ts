import type { HttpRequest } from '@azure/functions';
import { bearerToken, requireUser } from '../../shared/auth/access-token';
import { unauthorized } from '../../shared/http/errors';
import type { Logger } from '../../shared/logging';
import { readFailedSync } from './failed-sync-records';
import { validateAtIdentity } from './identity-client';
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
 * The user's plan as identity has it now (falling back to the token's claims when identity cannot
 * be asked), their recent payments, and the state of the plan sync of the payment that decides
 * their plan: synced, pending, failed (with the last error and the next attempt) or manual_review.
 */
export async function userStatus(request: HttpRequest, log: Logger) {
  const user = await requireUser(request);
  const validation = await validateAtIdentity(bearerToken(request)!);
  if (!validation.ok && validation.reason === 'invalid') throw unauthorized('Identity did not accept the access token', 'AUTH_TOKEN_INVALID');
  if (!validation.ok) log.warn('identity unavailable for user-status; answering from the token', { details: validation.details });

  const [payments, deciding, failedRecord] = await Promise.all([
    recentPaymentsOf(user.id, RECENT_PAYMENTS),
    planDecidingPayment(user.id),
    readFailedSync(user.id).catch((error) => {
      log.warn('could not read the failed-sync record', { error });
      return undefined;
    }),
  ]);
  return {
    userId: user.id,
    email: user.email,
    plan: validation.ok ? validation.user.plan : user.plan,
    status: validation.ok ? validation.user.status : user.status,
    planSource: validation.ok ? 'identity' : 'token',
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
