import { isAdmin } from '../../../shared/auth/access-token';
import type { LiveUser } from '../../../shared/auth/live-session';
import { Code, notFound } from '../../../shared/http/errors';
import { toIso } from '../../../shared/sql/dialect';
import { healthStatus } from '../admin/execution-view';
import type { OrchestratorContext } from '../context';
import { findExecution, parseAssets, type Execution } from '../workflow/executions';
import { stepsFor } from '../workflow/stages';
import { cancelledByOwner } from '../workflow/cancel-words';
import { messages, type MessageKey } from '../i18n/catalogue';

/** What the owner of a failed report reads, by the failure's kind (the catalogue's words): the technical message stays in the admin API and the logs. */
const FAILURE_KEYS: Record<string, MessageKey> = {
  CANCELLED: 'failure.cancelled',
  TIMEOUT: 'failure.timeout',
  AI_SERVICE: 'failure.aiService',
  RATE_LIMIT: 'failure.rateLimit',
};

/**
 * A failed report's reason in its owner's words, from its error pattern (and whether the owner
 * cancelled it), in `locale`'s language: the report's for its e-mail, English for the status API
 * and webhooks (machine readers).
 */
export function clientFailureMessage(errorPattern: string | null, byOwner: boolean, locale = 'en'): string {
  const { t } = messages(locale);
  if (byOwner) return t('failure.ownerCancelled');
  return `${t(FAILURE_KEYS[errorPattern ?? ''] ?? 'failure.other')} ${t('failure.whatNext')}`;
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
