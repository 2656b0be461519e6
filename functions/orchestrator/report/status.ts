import { isAdmin } from '../../../shared/auth/access-token';
import type { LiveUser } from '../../../shared/auth/live-session';
import { Code, notFound } from '../../../shared/http/errors';
import { toIso } from '../../../shared/sql/dialect';
import { healthStatus } from '../admin/execution-view';
import type { OrchestratorContext } from '../context';
import { findExecution, parseAssets, type Execution } from '../workflow/executions';
import { stepsFor } from '../workflow/stages';
import { cancelledByOwner } from '../workflow/cancel-words';

/** What the owner of a failed report reads, by the failure's kind: the technical message stays in the admin API and the logs. */
const FAILURE_WORDS: Record<string, string> = {
  CANCELLED: 'The report was cancelled by an administrator.',
  TIMEOUT: 'The report took too long to produce and was stopped.',
  AI_SERVICE: 'The AI service that writes the report failed.',
  RATE_LIMIT: 'The AI service that writes the report was too busy.',
};
const OTHER_FAILURE = 'The report could not be produced because of an error on our side.';
const WHAT_NEXT = 'Quote its tracking id to support; an administrator can run it again.';

/** The owner's own cancel (POST api/reports/{trackingId}/cancel: workflow/executions.ts cancelProcessing words it so). */
const OWNER_CANCELLED = 'The report was cancelled at your request; it does not count against your quota.';

/** A failed report's reason in its owner's words, from its error pattern (and whether the owner cancelled it). */
export function clientFailureMessage(errorPattern: string | null, byOwner: boolean): string {
  if (byOwner) return OWNER_CANCELLED;
  return `${FAILURE_WORDS[errorPattern ?? ''] ?? OTHER_FAILURE} ${WHAT_NEXT}`;
}

/** Why a report went without some or all of its charts, in the owner's words (visuals_error is the operators'). */
function clientVisualsMessage(execution: Pick<Execution, 'visuals_status' | 'visuals_error'>): string | null {
  if (!execution.visuals_error) return null;
  const which = execution.visuals_status === 'partial' ? 'Some charts' : 'The charts';
  return `${which} could not be made; every figure they would show is in the tables and the text.`;
}

async function reportStatus(ctx: OrchestratorContext, execution: Execution) {
  const completed = execution.processing_status === 'completed';
  return {
    success: true,
    trackingId: execution.tracking_id,
    status: execution.processing_status,
    company_name: execution.company_name,
    industry_id: execution.industry_id,
    plan: execution.plan,
    progress_percentage: execution.progress_percentage,
    health_status: healthStatus(execution, ctx.now()),
    current_step: execution.current_step === null ? null : { step_number: execution.current_step, step_name: execution.current_step_name },
    total_steps: stepsFor(execution.plan).length,
    attempts: execution.attempts,
    created_at: toIso(execution.created_at),
    started_at: toIso(execution.started_at),
    completed_at: toIso(execution.completed_at),
    duration_ms: execution.duration_ms,
    visuals: { status: execution.visuals_status, error: clientVisualsMessage(execution) },
    error:
      execution.processing_status === 'failed'
        ? {
            message: clientFailureMessage(execution.error_pattern, cancelledByOwner(execution)),
            error_pattern: execution.error_pattern,
            error_source: execution.error_source,
            step: execution.error_step,
          }
        : null,
    downloadLinks: completed ? await ctx.reports.downloadLinks(parseAssets(execution)) : [],
  };
}

/**
 * GET orchestrator/api/reports/{trackingId}: a report's status as its owner reads it (progress,
 * health, error in their words, download links); its owner or an admin, anyone else gets the same
 * 404 as an unknown id.
 */
export async function reportStatusFor(ctx: OrchestratorContext, user: LiveUser, trackingId: string) {
  const execution = await findExecution(ctx, trackingId);
  if (!execution || (execution.requested_by !== user.id && !isAdmin(user))) throw notFound(`No report ${trackingId}`, Code.REPORT_NOT_FOUND);
  return reportStatus(ctx, execution);
}
