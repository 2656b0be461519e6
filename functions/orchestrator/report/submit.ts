import { randomUUID } from 'node:crypto';
import type { LiveUser } from '../../../shared/auth/live-session';
import { serviceUrl } from '../../../shared/config';
import { Code, serviceUnavailable } from '../../../shared/http/errors';
import type { OrchestratorContext } from '../context';
import { deleteExecution, insertExecution } from '../workflow/executions';
import { markNotifyWork } from '../notify/events';
import { rememberAddress } from '../notify/preferences';
import { markExecutionWork } from '../workflow/stuck';
import { claimKey, keyAnswered, releaseKey, requestHash, type KeyClaim } from './idempotency';
import { quotaPeriod, reportQuotaStatus, returnReportQuota, takeReportQuota, type QuotaUse } from './quota';
import type { ReportRequest } from './submission';

export interface Submitted {
  trackingId: string;
  statusUrl: string;
  quota: QuotaUse;
  /** True when the Idempotency-Key already made this report: nothing new was made or counted. */
  replayed: boolean;
}

const statusUrlOf = (ctx: OrchestratorContext, trackingId: string) => `${serviceUrl('orchestrator', ctx.config)}/api/reports/${trackingId}`;

/**
 * Accepts a report request: takes one report of the user's quota for the current period (their
 * live plan), stores the execution (with the period it was counted in) and enqueues it for the
 * runner. An execution is never left without its message: when the queue refuses, the row is
 * removed and the quota given back (503, retry later).
 */
async function newReport(ctx: OrchestratorContext, user: LiveUser, request: ReportRequest, trackingId: string, now: Date): Promise<Submitted> {
  // Before anything is written: the stuck-execution timer must look at SQL again.
  await markExecutionWork(now);
  // The report's notice will be sent from SQL: the notice timer must look too.
  await markNotifyWork(now);
  // Where its notice goes: the address identity gave with this request (no call to identity when it is sent).
  await rememberAddress(ctx, user, now);
  const quota = await takeReportQuota(ctx, user, now);
  await insertExecution(ctx, {
    trackingId,
    companyName: request.company_name,
    industryId: request.industry_id,
    submission: request,
    requestedBy: user.id,
    plan: user.plan,
    now: now.toISOString(),
    quotaPeriod: quota.limit === null ? null : quotaPeriod(user, now).key,
  });
  try {
    await ctx.storage.enqueueJson(ctx.config.ORCHESTRATOR_QUEUE, { trackingId });
  } catch (error) {
    await deleteExecution(ctx, trackingId);
    await returnReportQuota(ctx, user, quota, now);
    ctx.log.error('report request not enqueued', { trackingId, error });
    throw serviceUnavailable('The report queue is unavailable; try again shortly', Code.QUEUE_UNAVAILABLE, 30);
  }
  ctx.log.info('report requested', { trackingId, plan: user.plan, userId: user.id, quotaCount: quota.count, quotaLimit: quota.limit });
  return { trackingId, statusUrl: statusUrlOf(ctx, trackingId), quota, replayed: false };
}

/** The answer a repeated Idempotency-Key gets: the report it made, and the quota as it stands (nothing taken). */
async function replay(ctx: OrchestratorContext, user: LiveUser, trackingId: string, now: Date): Promise<Submitted> {
  const { limit, count, resetsAt, period } = await reportQuotaStatus(ctx, user, now);
  ctx.log.info('report request repeated with its Idempotency-Key', { trackingId, userId: user.id });
  return { trackingId, statusUrl: statusUrlOf(ctx, trackingId), quota: { limit, count, resetsAt, period }, replayed: true };
}

/**
 * A report request, with the caller's Idempotency-Key when it sent one (idempotency.ts): the key
 * is claimed for a tracking id made first, before the quota is taken; a request that finds the key
 * held by the same body answers that report once it exists. When the holder makes no report
 * (quota refused, queue down), it lets the key go, so no key answers a report that does not exist
 * and a retry with it can succeed.
 */
export async function submitReport(ctx: OrchestratorContext, user: LiveUser, request: ReportRequest, idempotencyKey?: string): Promise<Submitted> {
  const now = ctx.now();
  const trackingId = `rpt-${randomUUID()}`;
  const claim: KeyClaim | undefined = idempotencyKey === undefined ? undefined : { userId: user.id, key: idempotencyKey, hash: requestHash(request) };
  if (claim) {
    for (let attempt = 0; ; attempt++) {
      const earlier = await claimKey(ctx, claim, trackingId, now);
      if (earlier === undefined) break;
      if (await keyAnswered(ctx, claim, earlier)) return replay(ctx, user, earlier, now);
      if (attempt >= 3) throw serviceUnavailable('Another request with this Idempotency-Key keeps failing; try again shortly', Code.QUEUE_UNAVAILABLE, 5);
    }
  }
  try {
    return await newReport(ctx, user, request, trackingId, now);
  } catch (error) {
    if (claim) await releaseKey(ctx, claim, trackingId);
    throw error;
  }
}
