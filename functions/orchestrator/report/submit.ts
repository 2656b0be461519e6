import { randomUUID } from 'node:crypto';
import type { LiveUser } from '../../../shared/auth/live-session';
import { serviceUrl } from '../../../shared/config';
import { Code, serviceUnavailable } from '../../../shared/http/errors';
import type { OrchestratorContext } from '../context';
import { deleteExecution, insertExecution } from '../workflow/executions';
import { markNotifyWork } from '../notify/events';
import { rememberAddress } from '../notify/preferences';
import { markExecutionWork } from '../workflow/stuck';
import { returnReportQuota, takeReportQuota, type QuotaUse } from './quota';
import type { ReportRequest } from './submission';

export interface Submitted {
  trackingId: string;
  statusUrl: string;
  quota: QuotaUse;
}

/**
 * Accepts a report request: takes one report of the user's monthly quota (their live plan), stores
 * the execution and enqueues it for the runner. An execution is never left without its message:
 * when the queue refuses, the row is removed and the quota given back (503, retry later).
 */
export async function submitReport(ctx: OrchestratorContext, user: LiveUser, request: ReportRequest): Promise<Submitted> {
  const now = ctx.now();
  // Before anything is written: the stuck-execution timer must look at SQL again.
  await markExecutionWork(now);
  // The report's notice will be sent from SQL: the notice timer must look too.
  await markNotifyWork(now);
  // Where its notice goes: the address identity gave with this request (no call to identity when it is sent).
  await rememberAddress(ctx, user, now);
  const quota = await takeReportQuota(ctx, user, now);
  const trackingId = `rpt-${randomUUID()}`;
  await insertExecution(ctx, {
    trackingId,
    companyName: request.company_name,
    industryId: request.industry_id,
    submission: request,
    requestedBy: user.id,
    plan: user.plan,
    now: now.toISOString(),
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
  return { trackingId, statusUrl: `${serviceUrl('orchestrator', ctx.config)}/api/reports/${trackingId}`, quota };
}
