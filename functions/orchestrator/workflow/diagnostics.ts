import { randomUUID } from 'node:crypto';
import type { LiveUser } from '../../../shared/auth/live-session';
import type { OrchestratorContext } from '../context';
import type { ReportRequest } from '../report/submission';
import { insertExecution } from './executions';
import { runExecution } from './runner';
import { stepsFor } from './stages';
import { markExecutionWork } from './stuck';
import { WORKFLOW_LOGGER_VERSION, WorkflowLogger } from './workflow-logger';

/** The diagnostics page's sample company (its executions are `diag-...`, never counted in the dashboards). */
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

async function persistedRows(ctx: Pick<OrchestratorContext, 'db'>, trackingId: string): Promise<number | null> {
  try {
    const row = await ctx.db
      .selectFrom('orchestrator_processing_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tracking_id', '=', trackingId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  } catch {
    return null;
  }
}

/** The workflow logger's self-test: logs a start and a completion for every stage, then reports where they went. */
export async function loggerSelfTest(ctx: OrchestratorContext) {
  const trackingId = `wl-test-${randomUUID()}`;
  const logger = new WorkflowLogger(ctx, trackingId);
  const started = performance.now();
  const steps = stepsFor('pro').map((step) => {
    const t0 = performance.now();
    logger.start(step, { test: true });
    logger.complete(step, { durationMs: Math.round(performance.now() - t0), metadata: { test: true } });
    return { step_number: step.number, step_name: step.name, console_message: `WORKFLOW_${step.number}_${step.name}`, statuses: ['started', 'completed'] };
  });
  const writer = ctx.logWriter;
  await writer.flush();
  const rows = await persistedRows(ctx, trackingId);
  const stats = writer.getStats();
  return {
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
  };
}

/** One real execution of the sample company, requested by `admin` and run inline, and how it went. */
export async function sampleExecution(ctx: OrchestratorContext, admin: LiveUser) {
  const trackingId = `diag-${randomUUID()}`;
  await markExecutionWork(ctx.now());
  await insertExecution(ctx, {
    trackingId,
    companyName: SAMPLE_REQUEST.company_name,
    industryId: SAMPLE_REQUEST.industry_id,
    submission: SAMPLE_REQUEST,
    requestedBy: admin.id,
    plan: 'pro',
    now: ctx.now().toISOString(),
  });
  const result = await runExecution(ctx, trackingId);
  const stats = ctx.logWriter.getStats();
  return {
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
  };
}
