import type { LiveUser } from '../../../shared/auth/live-session';
import type { RequestMeta } from '../../../shared/http/client';
import { Code, notFound } from '../../../shared/http/errors';
import { toIso } from '../../../shared/sql/dialect';
import { cancelExecution, type CancelAnswer } from '../admin/actions';
import type { OrchestratorContext } from '../context';
import { findExecution, type Execution } from '../workflow/executions';
import { returnReportQuota, type QuotaHolder } from './quota';

/**
 * The holder as it stood when the report was counted: a period key that is an instant is a paid
 * period ending then (the report's creation falls inside it); a month key (YYYY-MM) is the calendar
 * month of its creation. quotaPeriod(holder, created_at) gives that key back.
 */
function holderAtRequest(execution: Execution, period: string): QuotaHolder {
  return { id: execution.requested_by, plan: execution.plan, planPeriodEnd: /^\d{4}-\d{2}$/.test(period) ? null : period };
}

/**
 * POST orchestrator/api/reports/{trackingId}/cancel: the owner cancels a report still processing,
 * through the administrators' cancel (admin/actions.ts: the same transition, the same audit, 409
 * EXECUTION_NOT_CANCELLABLE once it has finished, a repeat changes nothing). Anyone but the owner
 * gets the same 404 as an unknown id (an administrator cancels through the admin API).
 *
 * Decision: a report its owner cancels was never delivered, so it goes back to the quota of the
 * period it was counted in (orchestrator_executions.quota_period), in the cancel's transaction and
 * only by the call that cancelled it. A report that took none (unlimited plan, an administrator's
 * re-run) gives none back.
 */
export async function cancelOwnReport(ctx: OrchestratorContext, user: LiveUser, trackingId: string, meta: RequestMeta): Promise<CancelAnswer> {
  const execution = await findExecution(ctx, trackingId);
  if (!execution || execution.requested_by !== user.id) throw notFound(`No report ${trackingId}`, Code.REPORT_NOT_FOUND);
  return cancelExecution(ctx, user, trackingId, meta, {
    by: 'its owner',
    alsoInTransaction: async (trx, cancelled) => {
      if (cancelled.quota_period === null) return;
      const at = new Date(toIso(cancelled.created_at)!);
      await returnReportQuota({ db: trx }, holderAtRequest(cancelled, cancelled.quota_period), { limit: 0 }, at);
    },
  });
}
