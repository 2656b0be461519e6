import type { Selectable, Transaction, Updateable } from 'kysely';
import type { Plan } from '../../../shared/auth/access-token';
import { db } from '../../../shared/sql/db';
import type { PlatformTables } from '../../../shared/sql/tables';
import type { ExecutionsTable } from '../tables';
import { classifyError, type Classification } from './error-classification';
import { insertLogRows, type LogRow } from './log-writer';
import { workflowLogWriter } from './workflow-logger';
import type { Step } from './stages';
import { first, toIso } from '../../../shared/sql/dialect';
import { countCompanyExecution, countExecution, followLatestStatus, uncountCompanyExecution } from '../rollups/write';

export type Execution = Selectable<ExecutionsTable>;

/** A stored report file; links are signed when read. */
export interface ReportAsset {
  kind: 'pdf' | 'presentation';
  blob: string;
  contentType: string;
  fileName: string;
  size: number;
}

export async function insertExecution(row: {
  trackingId: string;
  companyName: string;
  industryId: string;
  submission: unknown;
  requestedBy: string;
  plan: Plan;
  now: string;
}): Promise<void> {
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
  };
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx.insertInto('orchestrator_executions').values(values).execute();
      await countExecution(trx, { ...values, duration_ms: null }, 1);
      await countCompanyExecution(trx, values);
    });
}

export async function deleteExecution(trackingId: string): Promise<void> {
  await db()
    .transaction()
    .execute(async (trx) => {
      const row = await countedFacts(trx, trackingId);
      const deleted = await trx.deleteFrom('orchestrator_executions').where('tracking_id', '=', trackingId).executeTakeFirst();
      if (!row || Number(deleted.numDeletedRows) !== 1) return;
      await countExecution(trx, row, -1);
      await uncountCompanyExecution(trx, row.company_name);
    });
}

/** What the rollups count of an execution, read in the transaction that changes it. */
function countedFacts(trx: Transaction<PlatformTables>, trackingId: string) {
  return trx
    .selectFrom('orchestrator_executions')
    .select(['company_name', 'created_at', 'processing_status', 'duration_ms'])
    .where('tracking_id', '=', trackingId)
    .executeTakeFirst();
}

/**
 * Moves a processing execution to `set` (completed or failed) if it is still processing, and
 * moves its count in the rollups with it; false when it was no longer processing.
 */
async function finishExecution(trx: Transaction<PlatformTables>, trackingId: string, set: Updateable<ExecutionsTable>): Promise<boolean> {
  const before = await countedFacts(trx, trackingId);
  const result = await trx
    .updateTable('orchestrator_executions')
    .set(set)
    .where('tracking_id', '=', trackingId)
    .where('processing_status', '=', 'processing')
    .executeTakeFirst();
  if (!before || Number(result.numUpdatedRows) !== 1) return false;
  await countExecution(trx, before, -1);
  await countExecution(
    trx,
    { created_at: before.created_at, processing_status: set.processing_status!, duration_ms: set.duration_ms ?? before.duration_ms },
    1,
  );
  await followLatestStatus(trx, trackingId, before.company_name, set.processing_status!);
  return true;
}

export async function findExecution(trackingId: string): Promise<Execution | undefined> {
  return db().selectFrom('orchestrator_executions').selectAll().where('tracking_id', '=', trackingId).executeTakeFirst();
}

/**
 * Takes an execution for one run, atomically: only while it is processing, and only if nobody
 * else holds it (first delivery, or the last run made no progress for `leaseSeconds`). The
 * compare-and-set on `attempts` makes two concurrent deliveries resolve to one winner.
 */
export async function claimExecution(execution: Execution, now: Date, leaseSeconds: number): Promise<boolean> {
  const staleBefore = new Date(now.getTime() - leaseSeconds * 1000).toISOString();
  const result = await db()
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
    .where((eb) => eb.or([eb('attempts', '=', 0), eb('updated_at', '<', staleBefore)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Runs `write` in a transaction that also inserts `rows`. The workflow never stops for its log:
 * while the log table is missing the rows are dropped (the console keeps them) and `write` runs alone.
 */
async function withLogRows<T>(rows: LogRow[], write: (trx: Transaction<PlatformTables>) => Promise<T>): Promise<T> {
  const writer = workflowLogWriter();
  if (rows.length && !writer.tableMissing()) {
    try {
      return await db()
        .transaction()
        .execute(async (trx) => {
          await insertLogRows(trx, rows);
          return write(trx);
        });
    } catch (error) {
      if (classifyError(error).pattern !== 'SCHEMA_MISSING') throw error;
      writer.reportMissingTable(error, rows.length);
    }
  }
  return db().transaction().execute(write);
}

/**
 * Progress after a completed step, with the step's log rows in the same transaction (so after a
 * crash the log has every step the execution says it completed); also the run's heartbeat
 * (updated_at) that keeps its claim.
 */
export async function recordProgress(trackingId: string, step: Step, progress: number, extra: Updateable<ExecutionsTable>, rows: LogRow[]): Promise<void> {
  await withLogRows(rows, async (trx) => {
    await trx
      .updateTable('orchestrator_executions')
      .set({ ...extra, current_step: step.number, current_step_name: step.name, progress_percentage: progress, updated_at: new Date().toISOString() })
      .where('tracking_id', '=', trackingId)
      .where('processing_status', '=', 'processing')
      .execute();
  });
}

/** The execution completed, with its last log rows in the same transaction. */
export async function completeExecution(trackingId: string, startedAt: string | Date, assets: ReportAsset[], rows: LogRow[]): Promise<void> {
  const now = new Date();
  await withLogRows(rows, (trx) =>
    finishExecution(trx, trackingId, {
      processing_status: 'completed',
      progress_percentage: 100,
      assets: JSON.stringify(assets),
      completed_at: now.toISOString(),
      updated_at: now.toISOString(),
      duration_ms: now.getTime() - new Date(startedAt).getTime(),
    }),
  );
}

/** The execution failed at `failure.step`; `rows` (the failed step's log) are written in the same transaction. */
export async function failExecution(
  trackingId: string,
  failure: { step: Step; message: string; classification: Classification; healthStatus?: string },
  rows: LogRow[] = [],
): Promise<boolean> {
  const now = new Date();
  const execution = await findExecution(trackingId);
  if (!execution || execution.processing_status !== 'processing') return false;
  const started = execution.started_at ?? execution.created_at;
  return withLogRows(rows, (trx) =>
    finishExecution(trx, trackingId, {
      processing_status: 'failed',
      health_status: failure.healthStatus ?? 'FAILED',
      error_message: failure.message.slice(0, 4000),
      error_pattern: failure.classification.pattern,
      error_source: failure.classification.source,
      error_step: failure.step.name,
      completed_at: now.toISOString(),
      updated_at: now.toISOString(),
      duration_ms: now.getTime() - new Date(started).getTime(),
    }),
  );
}

/** How many executions are in processing (the stuck-execution timer's marker goes idle at none). */
export async function countProcessing(): Promise<number> {
  const row = await db()
    .selectFrom('orchestrator_executions')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('processing_status', '=', 'processing')
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Executions in processing whose last progress is older than `before` (oldest first, a bounded batch per timer run). */
export async function findStuckExecutions(before: Date, limit = 100): Promise<Execution[]> {
  const query = db()
    .selectFrom('orchestrator_executions')
    .selectAll()
    .where('processing_status', '=', 'processing')
    .where('updated_at', '<', before.toISOString())
    .orderBy('updated_at');
  return first(db(), query, limit).execute();
}

export function parseAssets(execution: Execution): ReportAsset[] {
  return execution.assets ? (JSON.parse(execution.assets) as ReportAsset[]) : [];
}
