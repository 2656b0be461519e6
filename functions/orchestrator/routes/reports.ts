import { isAdmin, requireUser } from '../../../shared/auth/access-token';
import { readJson, validate } from '../../../shared/http/body';
import { notFound } from '../../../shared/http/errors';
import { http, json } from '../../../shared/http/handler';
import { toIso } from '../../../shared/sql/dialect';
import { downloadLinks } from '../report/report-store';
import { checkReportRequest, reportRequestSchema, type ReportRequest } from '../report/submission';
import { submitReport } from '../report/submit';
import { findExecution, parseAssets, type Execution } from '../workflow/executions';
import { stepsFor } from '../workflow/stages';
import { healthStatus } from '../admin/execution-view';

const REPORT_BODY_LIMIT = 64 * 1024;
const trackingIdSchema = { type: 'object', required: ['trackingId'], properties: { trackingId: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } } } as const;

/** POST orchestrator/api/reports: stores the request, enqueues it, answers 202 with where to follow it. */
export const createReport = http('orchestrator', async (request, { log }) => {
  const user = await requireUser(request);
  const body = checkReportRequest(await readJson<ReportRequest>(request, reportRequestSchema, REPORT_BODY_LIMIT));
  const { trackingId, statusUrl, quota } = await submitReport(user, body, log);
  return json(202, { success: true, trackingId, status: 'processing', statusUrl, quota }, { Location: statusUrl });
});

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
    health_status: healthStatus(execution, new Date()),
    current_step: execution.current_step === null ? null : { step_number: execution.current_step, step_name: execution.current_step_name },
    total_steps: stepsFor(execution.plan).length,
    attempts: execution.attempts,
    created_at: toIso(execution.created_at),
    started_at: toIso(execution.started_at),
    completed_at: toIso(execution.completed_at),
    duration_ms: execution.duration_ms,
    visuals: { status: execution.visuals_status, error: execution.visuals_error },
    error: execution.error_message ? { message: execution.error_message, error_pattern: execution.error_pattern, error_source: execution.error_source, step: execution.error_step } : null,
    downloadLinks: completed ? await downloadLinks(parseAssets(execution)) : [],
  };
}

/** GET orchestrator/api/reports/{trackingId}: the owner or an admin; anyone else gets the same 404 as an unknown id. */
export const getReport = http('orchestrator', async (request) => {
  const user = await requireUser(request);
  const { trackingId } = validate<{ trackingId: string }>(trackingIdSchema, { trackingId: request.params.trackingId }, 'path');
  const execution = await findExecution(trackingId);
  if (!execution || (execution.requested_by !== user.id && !isAdmin(user))) throw notFound(`No report ${trackingId}`, 'REPORT_NOT_FOUND');
  return json(200, await reportStatus(execution));
});
