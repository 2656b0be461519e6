import { randomUUID } from 'node:crypto';
import type { LiveUser } from '../../../shared/auth/live-session';
import { json } from '../../../shared/http/handler';
import { op } from '../../../shared/http/route';
import { orchestratorDb } from '../db/tables';
import type { ReportRequest } from '../report/submission';
import { markExecutionWork } from '../workflow/stuck';
import { insertExecution } from '../workflow/executions';
import { runExecution } from '../workflow/runner';
import { stepsFor } from '../workflow/stages';
import { WORKFLOW_LOGGER_VERSION, WorkflowLogger, workflowLogWriter } from '../workflow/workflow-logger';
import { currentTime } from '../../../shared/platform';

export const SAMPLE_REQUEST: ReportRequest = {
  company_name: 'Sample Manufacturing Co (diagnostic)',
  industry_id: '31-33',
  profile: {
    employees: 120,
    founded_year: 2004,
    revenue_history: [
      { year: 2021, revenue: 8_200_000, net_income: 410_000 },
      { year: 2022, revenue: 9_100_000, net_income: 520_000 },
      { year: 2023, revenue: 10_400_000, net_income: 610_000 },
    ],
    goals: ['Enter two new regional markets'],
    challenges: ['Rising input costs'],
    key_metrics: { on_time_delivery_pct: 94 },
  },
};

async function persistedRows(trackingId: string): Promise<number | null> {
  try {
    const row = await orchestratorDb()
      .selectFrom('orchestrator_processing_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tracking_id', '=', trackingId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  } catch {
    return null;
  }
}

/** POST orchestrator/test-workflow-logger (admin): logs a start and a completion for every stage, then reports where they went. */
export const testWorkflowLogger = op<LiveUser>('Logs every stage of a sample workflow, then reports where each line and row went', async () => {
  const trackingId = `wl-test-${randomUUID()}`;
  const logger = new WorkflowLogger(trackingId);
  const started = performance.now();
  const steps = stepsFor('pro').map((step) => {
    const t0 = performance.now();
    logger.start(step, { test: true });
    logger.complete(step, { durationMs: Math.round(performance.now() - t0), metadata: { test: true } });
    return { step_number: step.number, step_name: step.name, console_message: `WORKFLOW_${step.number}_${step.name}`, statuses: ['started', 'completed'] };
  });
  const writer = workflowLogWriter();
  await writer.flush();
  const rows = await persistedRows(trackingId);
  const stats = writer.getStats();
  return json(200, {
    success: true,
    version: WORKFLOW_LOGGER_VERSION,
    trackingId,
    totalDurationMs: Math.round(performance.now() - started),
    steps,
    persistence: {
      expectedRows: steps.length * 2,
      persistedRows: rows,
      tableAvailable: !stats.tableMissing,
      pendingRows: stats.pending,
      lastError: stats.lastError,
    },
    logSearchTips: [
      `SQL: SELECT * FROM orchestrator_processing_log WHERE tracking_id = '${trackingId}' ORDER BY id`,
      `Application Insights: traces | where message has "WORKFLOW_" and message has "${trackingId}" | order by timestamp asc`,
      'Console: every line is JSON with message "<symbol> WORKFLOW_<n>_<STAGE>" and data.tracking_id; grep for the tracking id.',
      'Failures: filter orchestrator_processing_log on error_pattern / error_source (indexed) rather than on error_message.',
    ],
  });
});

/** POST orchestrator/test-enhanced-orchestrator (admin): one real execution of the sample company, run inline. */
export const testEnhancedOrchestrator = op<LiveUser>('Runs one real execution of a sample company, inline, and reports it', async ({ principal: admin }) => {
  const trackingId = `diag-${randomUUID()}`;
  await markExecutionWork();
  await insertExecution({
    trackingId,
    companyName: SAMPLE_REQUEST.company_name,
    industryId: SAMPLE_REQUEST.industry_id,
    submission: SAMPLE_REQUEST,
    requestedBy: admin.id,
    plan: 'pro',
    now: currentTime().toISOString(),
  });
  const result = await runExecution(trackingId);
  const stats = workflowLogWriter().getStats();
  return json(200, {
    success: result.outcome === 'completed',
    message:
      result.outcome === 'completed'
        ? 'Enhanced orchestrator completed a sample execution through every stage'
        : `Sample execution ${result.outcome}: ${result.reason}`,
    trackingId,
    diagnostic: { enhancedAdminHandlerUsed: true, workflowLoggerActive: !stats.tableMissing, version: 'enhanced-v1.0' },
    workflowTracking: {
      totalSteps: result.totalSteps,
      completedSteps: result.steps.filter((s) => s.status === 'completed').length,
      totalDuration: result.totalDurationMs,
    },
  });
});
