import { isAdmin } from '../../../shared/auth/access-token';
import type { LiveUser } from '../../../shared/auth/live-session';
import { Code, notFound } from '../../../shared/http/errors';
import { json } from '../../../shared/http/handler';
import { op } from '../../../shared/http/route';
import type { Infer } from '../../../shared/http/schemas';
import type * as s from '../schemas';
import { toIso } from '../../../shared/sql/dialect';
import { downloadLinks } from '../report/report-store';
import { checkReportRequest, type ReportRequest } from '../report/submission';
import { submitReport } from '../report/submit';
import { findExecution, parseAssets, type Execution } from '../workflow/executions';
import { stepsFor } from '../workflow/stages';
import { healthStatus } from '../admin/execution-view';
import { currentTime } from '../../../shared/platform';

/** POST orchestrator/api/reports: stores the request, enqueues it, answers 202 with where to follow it. */
export const createReport = op<LiveUser, ReportRequest>(
  "Requests a report: takes one of the month's quota, queues the execution, answers where to follow it",
  async ({ principal, body, ctx }) => {
    const { trackingId, statusUrl, quota } = await submitReport(principal, checkReportRequest(body), ctx.log);
    return json(202, { success: true, trackingId, status: 'processing', statusUrl, quota }, { Location: statusUrl });
  },
);

/** What the owner of a failed report reads, by the failure's kind: the technical message stays in the admin API and the logs. */
const FAILURE_WORDS: Record<string, string> = {
  CANCELLED: 'The report was cancelled by an administrator.',
  TIMEOUT: 'The report took too long to produce and was stopped.',
  AI_SERVICE: 'The AI service that writes the report failed.',
  RATE_LIMIT: 'The AI service that writes the report was too busy.',
};
const OTHER_FAILURE = 'The report could not be produced because of an error on our side.';
const WHAT_NEXT = 'Quote its tracking id to support; an administrator can run it again.';

function clientFailureMessage(execution: Pick<Execution, 'error_pattern'>): string {
  return `${FAILURE_WORDS[execution.error_pattern ?? ''] ?? OTHER_FAILURE} ${WHAT_NEXT}`;
}

/** Why a report went without some or all of its charts, in the owner's words (visuals_error is the operators'). */
function clientVisualsMessage(execution: Pick<Execution, 'visuals_status' | 'visuals_error'>): string | null {
  if (!execution.visuals_error) return null;
  const which = execution.visuals_status === 'partial' ? 'Some charts' : 'The charts';
  return `${which} could not be made; every figure they would show is in the tables and the text.`;
}

async function reportStatus(execution: Execution) {
  const completed = execution.processing_status === 'completed';
  return {
    success: true,
    trackingId: execution.tracking_id,
    status: execution.processing_status,
    company_name: execution.company_name,
    industry_id: execution.industry_id,
    plan: execution.plan,
    progress_percentage: execution.progress_percentage,
    health_status: healthStatus(execution, currentTime()),
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
        ? { message: clientFailureMessage(execution), error_pattern: execution.error_pattern, error_source: execution.error_source, step: execution.error_step }
        : null,
    downloadLinks: completed ? await downloadLinks(parseAssets(execution)) : [],
  };
}

/** GET orchestrator/api/reports/{trackingId}: the owner or an admin; anyone else gets the same 404 as an unknown id. */
export const getReport = op<LiveUser, unknown, unknown, Infer<typeof s.TRACKING_PARAM>>(
  'The status of a report: progress, health, error, download links (its owner or an admin)',
  async ({ principal, params }) => {
    const execution = await findExecution(params.trackingId);
    if (!execution || (execution.requested_by !== principal.id && !isAdmin(principal))) throw notFound(`No report ${params.trackingId}`, Code.REPORT_NOT_FOUND);
    return json(200, await reportStatus(execution));
  },
);
