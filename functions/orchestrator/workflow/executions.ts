import type { ExpressionBuilder, Selectable, Transaction, Updateable } from 'kysely';
import type { Plan } from '../../../shared/auth/access-token';
import { first, toIso } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';
import type { ExecutionsTable, LogRow, OrchestratorTables } from '../db/tables';
import type { ReportAsset } from '../report/report-store';
import { countCompanyExecution, countExecution, followLatestStatus, uncountCompanyExecution } from '../rollups/write';
import { CANCELLED, classifyError, type Classification } from './error-classification';
import { recordReportFinished } from '../notify/events';
import { insertLogRows } from './log-rows';
import type { Step } from './stages';
import { cancelMessage, type CancelledBy } from './cancel-words';

export type Execution = Selectable<ExecutionsTable>;

/** What reads of the executions reach: the database. */
type Reads = Pick<OrchestratorContext, 'db'>;
/** What a run's writes reach: the database, the clock, and the log writer (whose missing-table state they share). */
type Writes = Pick<OrchestratorContext, 'db' | 'now' | 'logWriter'>;

export interface NewExecution {
  trackingId: string;
  companyName: string;
  industryId: string;
  submission: unknown;
  requestedBy: string;
  plan: Plan;
  now: string;
  /** The quota period the report was counted in (quota.ts quotaPeriod's key); absent or null when it took none. */
  quotaPeriod?: string | null;
}

export async function insertExecution(ctx: Reads, row: NewExecution): Promise<void> {
  await ctx.db.transaction().execute((trx) => insertExecutionWith(trx, row));
}

/** Stores a new execution (processing, not yet run) and counts it, in `trx`. */
export async function insertExecutionWith(trx: Transaction<OrchestratorTables>, row: NewExecution): Promise<void> {
  const values = {
    tracking_id: row.trackingId,
    company_name: row.companyName,
    industry_id: row.industryId,
    processing_status: 'processing' as const,
    progress_percentage: 0,
    health_status: 'HEALTHY',
    submission: JSON.stringify(row.submission),
    requested_by: row.requestedBy,
    plan: row.plan,
    attempts: 0,
    created_at: row.now,
    updated_at: row.now,
    quota_period: row.quotaPeriod ?? null,
  };
  await trx.insertInto('orchestrator_executions').values(values).execute();
  await countExecution(trx, { ...values, duration_ms: null }, 1);
  await countCompanyExecution(trx, values);
}

export async function deleteExecution(ctx: Reads, trackingId: string): Promise<void> {
  await ctx.db.transaction().execute((trx) => deleteExecutionWith(trx, trackingId));
}

/** Removes an execution and its counts, in `trx`. */
export async function deleteExecutionWith(trx: Transaction<OrchestratorTables>, trackingId: string): Promise<void> {
  const row = await countedFacts(trx, trackingId);
  const deleted = await trx.deleteFrom('orchestrator_executions').where('tracking_id', '=', trackingId).executeTakeFirst();
  if (!row || Number(deleted.numDeletedRows) !== 1) return;
  await countExecution(trx, row, -1);
  await uncountCompanyExecution(trx, row.company_name);
}

/** What the rollups count of an execution, read in the transaction that changes it. */
function countedFacts(trx: Transaction<OrchestratorTables>, trackingId: string) {
  return trx
    .selectFrom('orchestrator_executions')
    .select(['tracking_id', 'company_name', 'created_at', 'processing_status', 'duration_ms'])
    .where('tracking_id', '=', trackingId)
    .executeTakeFirst();
}

/** One run's hold on an execution: the attempt number its claim took (claimExecution). */
export interface RunLease {
  trackingId: string;
  attempt: number;
}

/**
 * The condition every write of a run carries: the execution is processing, still at the run's
 * attempt (a later claim took the next number), and claimed (a retry clears started_at, so a
 * reopened execution is nobody's until the next delivery claims it). A run that was cancelled,
 * retried or taken over after its lease lapsed matches no row and stops at its next write.
 */
const heldBy = (attempt: number) => (eb: ExpressionBuilder<OrchestratorTables, 'orchestrator_executions'>) =>
  eb.and([eb('processing_status', '=', 'processing'), eb('attempts', '=', attempt), eb('started_at', 'is not', null)]);

/** Whether the run still holds the execution: read before work whose output is not in SQL (report files). */
export async function holdsExecution(ctx: Reads, lease: RunLease): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('orchestrator_executions')
    .select('tracking_id')
    .where('tracking_id', '=', lease.trackingId)
    .where(heldBy(lease.attempt))
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Moves a processing execution to `set` (completed or failed) if it is still processing (and, with
 * `attempt`, still held by that run), and moves its count in the rollups with it; false otherwise.
 * Unless `notify` is false, the requester's notice (e-mail, webhooks) is recorded in the same
 * transaction (notify/events.ts), to be sent after it commits.
 */
async function finishExecution(
  trx: Transaction<OrchestratorTables>,
  trackingId: string,
  set: Updateable<ExecutionsTable>,
  attempt?: number,
  notify = true,
): Promise<boolean> {
  const before = await countedFacts(trx, trackingId);
  let update = trx.updateTable('orchestrator_executions').set(set).where('tracking_id', '=', trackingId).where('processing_status', '=', 'processing');
  if (attempt !== undefined) update = update.where(heldBy(attempt));
  const result = await update.executeTakeFirst();
  if (!before || Number(result.numUpdatedRows) !== 1) return false;
  await countExecution(trx, before, -1);
  await countExecution(
    trx,
    { tracking_id: trackingId, created_at: before.created_at, processing_status: set.processing_status!, duration_ms: set.duration_ms ?? before.duration_ms },
    1,
  );
  await followLatestStatus(trx, trackingId, before.company_name, set.processing_status!);
  if (notify) await recordReportFinished(trx, trackingId, String(set.completed_at ?? set.updated_at));
  return true;
}

export async function findExecution(ctx: Reads, trackingId: string): Promise<Execution | undefined> {
  return ctx.db.selectFrom('orchestrator_executions').selectAll().where('tracking_id', '=', trackingId).executeTakeFirst();
}

/**
 * Takes an execution for one run, atomically: only while it is processing, and only if nobody
 * else holds it (first delivery, a retry an administrator queued, or the last run made no progress
 * for `leaseSeconds`). The compare-and-set on `attempts` makes two concurrent deliveries resolve to
 * one winner.
 */
export async function claimExecution(ctx: Reads, execution: Execution, now: Date, leaseSeconds: number): Promise<boolean> {
  const staleBefore = new Date(now.getTime() - leaseSeconds * 1000).toISOString();
  const result = await ctx.db
    .updateTable('orchestrator_executions')
    .set({
      attempts: execution.attempts + 1,
      updated_at: now.toISOString(),
      started_at: toIso(execution.started_at) ?? now.toISOString(),
      progress_percentage: 0,
      current_step: null,
      current_step_name: null,
    })
    .where('tracking_id', '=', execution.tracking_id)
    .where('processing_status', '=', 'processing')
    .where('attempts', '=', execution.attempts)
    .where((eb) => eb.or([eb('attempts', '=', 0), eb('started_at', 'is', null), eb('updated_at', '<', staleBefore)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The columns a failed execution had, which a retry clears and the admin action keeps. */
export type FailedFacts = Pick<Execution, 'error_message' | 'error_pattern' | 'error_source' | 'error_step' | 'health_status' | 'duration_ms'> & {
  completed_at: string | null;
};

/**
 * A failed execution back to processing for another run under the same tracking id, in `trx`:
 * its log keeps the earlier runs, attempts keeps counting, and the error, times and files of the
 * failed run are cleared (started_at too, so the next delivery claims it and times its own run).
 * Moves its count in the rollups; answers the failed run's facts, or undefined when it was not failed.
 */
export async function reopenExecution(trx: Transaction<OrchestratorTables>, trackingId: string, now: Date): Promise<FailedFacts | undefined> {
  const before = await trx
    .selectFrom('orchestrator_executions')
    .select([
      'tracking_id',
      'company_name',
      'created_at',
      'processing_status',
      'duration_ms',
      'error_message',
      'error_pattern',
      'error_source',
      'error_step',
      'health_status',
      'completed_at',
    ])
    .where('tracking_id', '=', trackingId)
    .executeTakeFirst();
  if (!before || before.processing_status !== 'failed') return undefined;
  const result = await trx
    .updateTable('orchestrator_executions')
    .set({
      processing_status: 'processing',
      progress_percentage: 0,
      health_status: 'HEALTHY',
      current_step: null,
      current_step_name: null,
      assets: null,
      visuals_status: null,
      visuals_error: null,
      error_message: null,
      error_pattern: null,
      error_source: null,
      error_step: null,
      started_at: null,
      completed_at: null,
      duration_ms: null,
      updated_at: now.toISOString(),
    })
    .where('tracking_id', '=', trackingId)
    .where('processing_status', '=', 'failed')
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  await countExecution(trx, before, -1);
  await countExecution(trx, { tracking_id: trackingId, created_at: before.created_at, processing_status: 'processing', duration_ms: null }, 1);
  await followLatestStatus(trx, trackingId, before.company_name, 'processing');
  const { error_message, error_pattern, error_source, error_step, health_status, completed_at, duration_ms } = before;
  return { error_message, error_pattern, error_source, error_step, health_status, completed_at: toIso(completed_at), duration_ms };
}

/** Undoes a reopen whose queue message could not be sent (at `now`): the execution is failed again with its earlier facts. */
export async function restoreFailed(trx: Transaction<OrchestratorTables>, trackingId: string, facts: FailedFacts, now: Date): Promise<boolean> {
  // The requester was told of this failure when it first happened: no second notice.
  return finishExecution(
    trx,
    trackingId,
    { processing_status: 'failed', ...facts, completed_at: facts.completed_at ?? now.toISOString(), updated_at: now.toISOString() },
    undefined,
    false,
  );
}

/**
 * Ends a processing execution as failed, cancelled by `by`, in `trx`, with a log row that says so
 * (unclassified: a cancellation is no dependency's failure and counts in no error figure). A run
 * still working on it stops at its next write (recordProgress finds it no longer held).
 */
export async function cancelProcessing(
  trx: Transaction<OrchestratorTables>,
  trackingId: string,
  by: string,
  now: Date,
  who: CancelledBy = 'an administrator',
): Promise<boolean> {
  const execution = await trx
    .selectFrom('orchestrator_executions')
    .select(['started_at', 'created_at', 'current_step', 'current_step_name'])
    .where('tracking_id', '=', trackingId)
    .where('processing_status', '=', 'processing')
    .executeTakeFirst();
  if (!execution) return false;
  const message = cancelMessage(who, by);
  const done = await finishExecution(trx, trackingId, {
    processing_status: 'failed',
    health_status: CANCELLED,
    error_message: message,
    error_pattern: CANCELLED,
    error_source: null,
    error_step: execution.current_step_name,
    completed_at: now.toISOString(),
    updated_at: now.toISOString(),
    duration_ms: now.getTime() - new Date(toIso(execution.started_at ?? execution.created_at)!).getTime(),
  });
  if (!done) return false;
  await insertLogRows(
    trx,
    [
      {
        tracking_id: trackingId,
        step_name: execution.current_step_name ?? 'WORKFLOW_COMPLETE',
        step_number: execution.current_step ?? 99,
        status: 'failed',
        duration_ms: null,
        tokens_used: null,
        error_message: message,
        metadata: JSON.stringify({ cancelled_by: by }),
        timestamp: now.toISOString(),
        error_pattern: null,
        error_source: null,
        error_details: null,
      },
    ],
    now,
  );
  return true;
}

/**
 * Runs `write` in a transaction that also inserts `rows`. The workflow never stops for its log:
 * while the log table is missing the rows are dropped (the console keeps them) and `write` runs alone.
 */
async function withLogRows<T>(ctx: Writes, rows: LogRow[], write: (trx: Transaction<OrchestratorTables>) => Promise<T>): Promise<T> {
  const writer = ctx.logWriter;
  if (rows.length && !writer.tableMissing()) {
    try {
      return await ctx.db.transaction().execute(async (trx) => {
        await insertLogRows(trx, rows, ctx.now());
        return write(trx);
      });
    } catch (error) {
      if (classifyError(error).pattern !== 'SCHEMA_MISSING') throw error;
      writer.reportMissingTable(error, rows.length);
    }
  }
  return ctx.db.transaction().execute(write);
}

/**
 * Runs a run's `write` with its log rows in one transaction; when `write` finds the execution no
 * longer the run's (it answers false), the rows roll back with it (the log never shows a step of a
 * run that no longer held the execution) and the answer is false.
 */
async function writeWhileHeld(ctx: Writes, rows: LogRow[], write: (trx: Transaction<OrchestratorTables>) => Promise<boolean>): Promise<boolean> {
  try {
    await withLogRows(ctx, rows, async (trx) => {
      if (!(await write(trx))) throw new NotHeld();
    });
    return true;
  } catch (error) {
    if (error instanceof NotHeld) return false;
    throw error;
  }
}

class NotHeld extends Error {}

/**
 * Progress after a completed step, with the step's log rows in the same transaction (so after a
 * crash the log has every step the execution says it completed); also the run's heartbeat
 * (updated_at) that keeps its claim. False, and nothing written, when the run no longer holds the
 * execution (an administrator cancelled or retried it, or another run took it over).
 */
export async function recordProgress(
  ctx: Writes,
  lease: RunLease,
  step: Step,
  progress: number,
  extra: Updateable<ExecutionsTable>,
  rows: LogRow[],
): Promise<boolean> {
  return writeWhileHeld(ctx, rows, async (trx) => {
    const result = await trx
      .updateTable('orchestrator_executions')
      .set({ ...extra, current_step: step.number, current_step_name: step.name, progress_percentage: progress, updated_at: ctx.now().toISOString() })
      .where('tracking_id', '=', lease.trackingId)
      .where(heldBy(lease.attempt))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  });
}

/** The execution completed, with its last log rows in the same transaction; false, and nothing written, when the run no longer holds it. */
export async function completeExecution(ctx: Writes, lease: RunLease, startedAt: string | Date, assets: ReportAsset[], rows: LogRow[]): Promise<boolean> {
  const now = ctx.now();
  return writeWhileHeld(ctx, rows, (trx) =>
    finishExecution(
      trx,
      lease.trackingId,
      {
        processing_status: 'completed',
        progress_percentage: 100,
        assets: JSON.stringify(assets),
        completed_at: now.toISOString(),
        updated_at: now.toISOString(),
        duration_ms: now.getTime() - new Date(startedAt).getTime(),
      },
      lease.attempt,
    ),
  );
}

/**
 * The execution failed at `failure.step`; `rows` (the failed step's log) are written in the same
 * transaction. A run passes its `attempt`, so a run that no longer holds the execution records
 * nothing; the stuck-execution timer passes none. False, and nothing written, when not recorded.
 */
export async function failExecution(
  ctx: Writes,
  trackingId: string,
  failure: { step: Step; message: string; classification: Classification; healthStatus?: string },
  rows: LogRow[] = [],
  attempt?: number,
): Promise<boolean> {
  const now = ctx.now();
  const execution = await findExecution(ctx, trackingId);
  if (!execution || execution.processing_status !== 'processing') return false;
  const started = execution.started_at ?? execution.created_at;
  return writeWhileHeld(ctx, rows, (trx) =>
    finishExecution(
      trx,
      trackingId,
      {
        processing_status: 'failed',
        health_status: failure.healthStatus ?? 'FAILED',
        error_message: failure.message.slice(0, 4000),
        error_pattern: failure.classification.pattern,
        error_source: failure.classification.source,
        error_step: failure.step.name,
        completed_at: now.toISOString(),
        updated_at: now.toISOString(),
        duration_ms: now.getTime() - new Date(started).getTime(),
      },
      attempt,
    ),
  );
}

/** How many executions are in processing (the stuck-execution timer's marker goes idle at none). */
export async function countProcessing(ctx: Reads): Promise<number> {
  const row = await ctx.db
    .selectFrom('orchestrator_executions')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('processing_status', '=', 'processing')
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Executions in processing whose last progress is older than `before` (oldest first, a bounded batch per timer run). */
export async function findStuckExecutions(ctx: Reads, before: Date, limit = 100): Promise<Execution[]> {
  const query = ctx.db
    .selectFrom('orchestrator_executions')
    .selectAll()
    .where('processing_status', '=', 'processing')
    .where('updated_at', '<', before.toISOString())
    .orderBy('updated_at');
  return first(ctx.db, query, limit).execute();
}

export function parseAssets(execution: Execution): ReportAsset[] {
  return execution.assets ? (JSON.parse(execution.assets) as ReportAsset[]) : [];
}
