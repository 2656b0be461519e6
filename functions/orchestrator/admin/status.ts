import type { Plan } from '../../../shared/auth/access-token';
import { Code, notFound } from '../../../shared/http/errors';
import { first, toIso } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';
import type { ReportAsset } from '../report/report-store';
import { stepsFor } from '../workflow/stages';
import { actionsFor } from './actions';
import { EXECUTION_COLUMNS, executionView } from './execution-view';

/** An execution logs a few dozen rows; the cap keeps a runaway retry loop from producing a huge response. */
export const STATUS_LOG_LIMIT = 1000;

function parseJson<T>(text: string | null, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/**
 * Steps done of the steps the plan's workflow has (the same total whether the execution is
 * processing, failed or completed): a step is done once it logged a completion in the latest run
 * (the rows from the last WORKFLOW_START on; a retry starts a new run under the same tracking id).
 */
function stepMetrics(logs: { step_number: number | null; status: string }[], plan: Plan) {
  let runStart = 0;
  logs.forEach((row, i) => {
    if (row.step_number === 0 && row.status === 'started') runStart = i;
  });
  const completed = new Set<number>();
  for (const row of logs.slice(runStart)) if (row.step_number !== null && row.status === 'completed') completed.add(row.step_number);
  return { completed_steps: completed.size, total_steps: stepsFor(plan).length };
}

/** GET status/{trackingId}: one execution with its submission, log, progress and download links. */
export async function executionStatus(ctx: Pick<OrchestratorContext, 'db' | 'reports'>, trackingId: string, now: Date) {
  const database = ctx.db;
  const execution = await database
    .selectFrom('orchestrator_executions')
    .select([...EXECUTION_COLUMNS, 'submission', 'assets', 'requested_by', 'plan', 'visuals_error', 'updated_at'])
    .where('tracking_id', '=', trackingId)
    .executeTakeFirst();
  if (!execution) throw notFound(`No execution with tracking id ${trackingId}`, Code.EXECUTION_NOT_FOUND);

  const logRows = await first(
    database,
    database.selectFrom('orchestrator_processing_log').selectAll().where('tracking_id', '=', trackingId).orderBy('id', 'asc'),
    STATUS_LOG_LIMIT,
  ).execute();
  const logs = logRows.map((row) => ({ ...row, timestamp: toIso(row.timestamp) }));
  const view = executionView(execution, now);
  const processingMetrics = {
    progress_percentage: execution.progress_percentage,
    ...stepMetrics(logRows, execution.plan),
    current_step: view.current_step?.step_name ?? null,
    current_step_number: view.current_step?.step_number ?? null,
  };
  // The same signed, read-only links the report's owner gets from GET /orchestrator/api/reports/{trackingId}.
  const [downloads, actions] = await Promise.all([ctx.reports.downloadLinks(parseJson<ReportAsset[]>(execution.assets, [])), actionsFor(ctx, trackingId)]);
  const links = downloads.map((d) => d.url);

  return {
    success: true,
    trackingId,
    status: execution.processing_status,
    data: {
      execution: { ...view, plan: execution.plan, requested_by: execution.requested_by, updated_at: toIso(execution.updated_at) },
      visuals: { status: execution.visuals_status, error: execution.visuals_error },
      submission: parseJson<unknown>(execution.submission, {}),
      logs,
      processing_metrics: processingMetrics,
      downloadLinks: links,
      downloads,
      actions,
    },
    // Existing clients read these two at the top level rather than under data: both places carry them.
    processing_metrics: processingMetrics,
    downloadLinks: links,
  };
}
