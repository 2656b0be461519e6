import { randomUUID } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import { forgetLiveUser } from '../../shared/auth/live-session';
import type { PaymentConfig } from './settings';
import { planAt, type PlanHolding } from '../../shared/plan-ids';
import type { Logger } from '../../shared/logging';
import type { PaymentNeeds } from './context';
import { storeFailedSync, deleteFailedSync } from './failed-sync-records';
import type { PlanUpdateFailure } from './identity-client';
import {
  acquireSyncLease,
  markSyncFailed,
  markSynced,
  planAfterRefund,
  planDecidingPayment,
  releaseSyncLease,
  renewSyncLease,
  setSyncPlan,
  standingPayment,
  holdingOf,
  stands,
  supersedeOlder,
  type Payment,
} from './payments';

/** The sync result: `{ success: true }` or `{ success: false, error, details, userId, retryStored }`. */
export type SyncResult =
  | { success: true; userId: string; plan?: string; paymentIntentId?: string; upToDate?: boolean }
  | {
      success: false;
      error: string;
      details: string;
      userId: string;
      retryStored: boolean;
      state?: 'failed' | 'manual_review' | 'deferred';
      nextAttemptAt?: string | null;
    };

/**
 * What a plan sync reaches: the settings, the clock, the database (payments and leases), identity,
 * Table Storage (the failed-sync records), the backoff's random source and the log.
 */
export type PlanSyncer = PaymentNeeds<'config' | 'now' | 'db' | 'identity' | 'storage' | 'random' | 'log'>;

/** Full-jitter exponential backoff: a uniform delay in [0, min(max, base * 2^(failures-1))] seconds, drawn from the platform's random source. */
export function backoffDelayMs(ctx: PaymentNeeds<'config' | 'random'>, failures: number): number {
  const cfg = ctx.config;
  const ceiling = Math.min(cfg.PAYMENT_SYNC_RETRY_MAX_DELAY_SECONDS, cfg.PAYMENT_SYNC_RETRY_BASE_SECONDS * 2 ** Math.max(0, failures - 1));
  return Math.floor(ctx.random() * ceiling * 1000);
}

/** How long a freshly recorded sync is left to the webhook that records it before the timer may take over. */
export const inlineSyncGraceMs = (cfg: PaymentConfig) => cfg.PAYMENT_SYNC_TIMEOUT_MS * 2 + 5000;

function logFailure(log: Logger, payment: Payment, failure: PlanUpdateFailure, state: string) {
  const fields = {
    userId: payment.userId,
    paymentIntentId: payment.id,
    plan: payment.sync.plan,
    failure: failure.kind,
    status: failure.status,
    details: failure.details,
    syncState: state,
  };
  if (failure.kind === 'unauthorized') {
    log.error('SECURITY INCIDENT: identity rejected the service admin token; rotate AUTH_ADMIN_TOKEN (docs/payment.md, key rotation)', {
      ...fields,
      category: 'security',
    });
  } else if (failure.kind === 'not_found') {
    log.error('INCONSISTENCY: a paying user does not exist in identity; needs manual review', { ...fields, category: 'inconsistency' });
  } else {
    log.warn('plan sync to identity failed; will retry', fields);
  }
}

/**
 * Keeps a failed push: for a retry with backoff, or, once retries are exhausted or when a retry
 * cannot help (`review`), for a person (manual_review: the unsynced list, the console, the alert).
 */
async function recordFailure(ctx: PlanSyncer, payment: Payment, failure: PlanUpdateFailure, now: Date, review?: string): Promise<SyncResult> {
  const { log } = ctx;
  const attempts = payment.sync.attempts + 1;
  const exhausted = review !== undefined || attempts >= ctx.config.PAYMENT_SYNC_MAX_ATTEMPTS;
  const nextAt = exhausted ? null : new Date(now.getTime() + backoffDelayMs(ctx, attempts));
  const state = exhausted ? 'manual_review' : 'failed';
  // Bounded where identity's answer is read (a 300-character snippet), so stored whole.
  const error = `${failure.error}: ${failure.details}`;
  await markSyncFailed(ctx.db, payment, { state, attempts, error, nextAt }, now);
  logFailure(log, payment, failure, state);
  if (exhausted) {
    log.error(`MANUAL REVIEW: ${review ?? 'plan sync retries exhausted; an operator approves the payment (its plan is pushed again) or rejects it'}`, {
      userId: payment.userId,
      paymentIntentId: payment.id,
      attempts,
      category: 'manual_review',
    });
  }
  let retryStored = true;
  try {
    await storeFailedSync(
      ctx,
      { userId: payment.userId, planType: payment.sync.plan!, error: failure.error, timestamp: now.toISOString(), retryCount: attempts - 1 },
      now,
    );
  } catch (storageError) {
    // SQL still holds the sync as failed, so the timer retries it; only the 24-hour copy is missing.
    retryStored = false;
    log.error('could not store the failed-sync record', { userId: payment.userId, error: storageError });
  }
  return {
    success: false,
    error: failure.error,
    details: failure.details,
    userId: payment.userId,
    retryStored,
    state,
    nextAttemptAt: nextAt?.toISOString() ?? null,
  };
}

/**
 * Brings identity up to date for one user: pushes the plan of the user's plan-deciding payment
 * (the newest success, or full refund of the payment then deciding, whose plan is that of the payments still standing), under a per-user lease so no older plan is pushed after
 * a newer one. The lease covers one push and is renewed before each further one, so it cannot run
 * out mid-sync while this instance still works; a lost lease stops the sync. After a successful
 * push it looks again, in case a newer payment arrived meanwhile. Identity refusing the push as
 * older than an update it applied (409) leaves a paid plan unapplied: a person decides.
 */
export async function syncUser(ctx: PlanSyncer, userId: string): Promise<SyncResult> {
  const { db, log } = ctx;
  const holder = randomUUID();
  const leaseMs = ctx.config.PAYMENT_SYNC_TIMEOUT_MS + 5000;
  const waitUntil = ctx.now().getTime() + leaseMs;
  const deferred = (details: string): SyncResult => ({ success: false, error: 'Sync deferred', details, userId, retryStored: true, state: 'deferred' });
  while (!(await acquireSyncLease(db, userId, holder, ctx.now(), leaseMs))) {
    if (ctx.now().getTime() > waitUntil) return deferred('another instance is syncing this user; the retry timer will finish');
    await wait(25);
  }
  try {
    let result: SyncResult = { success: true, userId, upToDate: true };
    for (let round = 0; round < 3; round++) {
      if (round > 0 && !(await renewSyncLease(db, userId, holder, ctx.now(), leaseMs)))
        return deferred('the sync lease was lost to another instance; it finishes the sync');
      const target = await decidingWithPlan(ctx, userId);
      if (!target) return result;
      // markSynced already superseded the older payments of the one just pushed.
      if (result.paymentIntentId === target.id) return result;
      if (!['pending', 'failed'].includes(target.sync.state)) {
        await supersedeOlder(db, target, ctx.now());
        return result;
      }
      const now = ctx.now();
      const outcome = await ctx.identity.updatePlan(userId, await holdingToPush(ctx, target), now);
      if (!outcome.ok && outcome.failure.kind === 'stale') return await onNewerPlanAtIdentity(ctx, target, outcome.failure, now);
      if (!outcome.ok) return await recordFailure(ctx, target, outcome.failure, now);
      const { hadFailures } = await markSynced(db, target, now);
      forgetLiveUser(userId);
      log.info('plan synced to identity', { userId, plan: target.sync.plan, paymentIntentId: target.id, attempts: target.sync.attempts + 1 });
      if (hadFailures)
        await deleteFailedSync(ctx, userId).catch((error) => log.warn('could not delete the failed-sync record; it expires on its own', { userId, error }));
      result = { success: true, userId, plan: target.sync.plan!, paymentIntentId: target.id };
    }
    return result;
  } finally {
    await releaseSyncLease(db, userId, holder);
  }
}

/**
 * The plan-deciding payment with the plan to push. A refund's (or chargeback's) plan is that of the newest payment
 * still standing, read again here under the user's lease: refunds of two payments recorded at once
 * each saw the other standing, and only this read, after both, sees neither.
 */
async function decidingWithPlan(ctx: PlanSyncer, userId: string): Promise<Payment | undefined> {
  const target = await planDecidingPayment(ctx.db, userId);
  if (!target || stands(target) || !['pending', 'failed'].includes(target.sync.state)) return target;
  const plan = await planAfterRefund(ctx.db, userId);
  if (plan === target.sync.plan) return target;
  await setSyncPlan(ctx.db, target.id, plan, ctx.now());
  return { ...target, sync: { ...target.sync, plan } };
}

/**
 * The plan with its period that `target` pushes: a standing payment's own (its plan until the end of
 * the period it paid for); a refund's or chargeback's is that of the newest payment still standing
 * (its period with it), else free.
 */
async function holdingToPush(ctx: PlanSyncer, target: Payment): Promise<PlanHolding> {
  if (stands(target)) return holdingOf(target);
  const standing = await standingPayment(ctx.db, target.userId);
  // A standing payment whose period already ended gives nothing: free, said plainly.
  return planAt(standing?.planType === target.sync.plan ? holdingOf(standing) : holdingOf(undefined), ctx.now());
}

/**
 * Identity holds a plan from a later request than this push. When it is this payment's plan, the
 * payment is synced. Otherwise a paid plan was refused: never dropped silently, it waits for a
 * person (manual_review), who decides which plan the user keeps: approve the payment (review.ts) or reject it.
 */
async function onNewerPlanAtIdentity(ctx: PlanSyncer, target: Payment, failure: PlanUpdateFailure, now: Date): Promise<SyncResult> {
  if (failure.current?.plan === target.sync.plan) {
    await markSynced(ctx.db, target, now);
    forgetLiveUser(target.userId);
    return { success: true, userId: target.userId, plan: target.sync.plan!, paymentIntentId: target.id };
  }
  const holds = failure.current ? `${failure.current.plan} (requested at ${failure.current.requestedAt})` : 'another plan';
  return recordFailure(
    ctx,
    target,
    { ...failure, details: `identity holds ${holds} from a plan update requested after this payment; the paid plan ${target.sync.plan} was not applied` },
    now,
    'a paid plan was refused by identity as older than its current plan; an operator approves the payment (its plan is pushed now) or rejects it (the current plan stays)',
  );
}
