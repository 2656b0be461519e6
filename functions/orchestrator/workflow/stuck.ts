import { markSqlWork, sqlWorkStateOrBusy } from '../../../shared/sql/idle';
import type { OrchestratorContext } from '../context';
import { countProcessing, failExecution, findStuckExecutions } from './executions';
import { STAGES } from './stages';
import { WorkflowLogger } from './workflow-logger';

/** Logged (warn) with `count` and `trackingIds` when the timer fails executions; the stuck-executions alert queries it. */
export const STUCK_EXECUTIONS_MESSAGE = 'stuck executions failed with TIMEOUT';

/**
 * Fails every execution that has made no progress for ORCHESTRATOR_STUCK_MINUTES (before `now`)
 * with a TIMEOUT error, so nothing stays "processing" forever (a lost message, a run killed past
 * its retries). Safe on many instances: the status compare-and-set lets one of them win per execution.
 */
export async function failStuckExecutions(ctx: OrchestratorContext, now = ctx.now()): Promise<string[]> {
  const minutes = ctx.config.ORCHESTRATOR_STUCK_MINUTES;
  const stuck = await findStuckExecutions(ctx, new Date(now.getTime() - minutes * 60_000));
  const failed: string[] = [];
  for (const execution of stuck) {
    const step = execution.current_step_name ? { number: execution.current_step ?? -1, name: execution.current_step_name } : STAGES.WORKFLOW_START;
    const error = Object.assign(new Error(`Execution timed out: no progress for more than ${minutes} minutes (last step ${step.name})`), { code: 'TIMEOUT' });
    const classification = { pattern: 'TIMEOUT' as const, source: null };
    if (await failExecution(ctx, execution.tracking_id, { step, message: error.message, classification, healthStatus: 'TIMEOUT' })) {
      new WorkflowLogger(ctx, execution.tracking_id).fail(STAGES.WORKFLOW_COMPLETE, error, {
        metadata: { reason: 'stuck', last_step: step.name, stuck_minutes: minutes },
      });
      failed.push(execution.tracking_id);
    }
  }
  if (failed.length) ctx.log.warn(STUCK_EXECUTIONS_MESSAGE, { count: failed.length, trackingIds: failed });
  return failed;
}

/** The Table Storage marker (shared/sql/idle.ts) of executions in processing: marked before an execution is stored. */
export const EXECUTIONS_WORK = 'orchestrator-executions';

/** Marks (at `now`) that an execution is about to be stored, so the stuck-execution timer looks at SQL again. */
export const markExecutionWork = (now: Date) => markSqlWork(EXECUTIONS_WORK, now);

/**
 * The timer's run: fails stuck executions unless the marker says none is in processing, then marks
 * it idle when none is left, so the per-minute timer leaves a paused serverless database asleep.
 */
export async function sweepStuckExecutions(ctx: OrchestratorContext, now = ctx.now()): Promise<string[]> {
  const work = await sqlWorkStateOrBusy(EXECUTIONS_WORK, now);
  if (work.idle) return [];
  const failed = await failStuckExecutions(ctx, now);
  if ((await countProcessing(ctx)) === 0) await work.markIdle({}, now).catch(() => false);
  return failed;
}
