import type { OrchestratorTables } from '../db/tables';
import type { Kysely } from 'kysely';
import { sql, first, isDuplicateKey, toIso } from '../../../shared/sql/dialect';
import type { ExecutionsTable, LogRollupDimension, LogRow } from '../db/tables';
import { hourOf, isDiagnostic, stepKey } from '../db/rollups';

/**
 * Keeps the rollups (migration 009) in step with the rows they count. Every function takes the
 * transaction that changes those rows, so a rollup never disagrees with the rows, whichever of many
 * instances wrote them: counts move by atomic increments, never by read-modify-write in code.
 */
type Database = Kysely<OrchestratorTables>;

/**
 * Runs `update`; when it changed no row, `insert`. Two writers creating the same row: one insert
 * wins, the other's duplicate-key error (statement-level on both dialects, so the transaction goes
 * on) turns into the update.
 */
async function updateOrInsert(update: () => Promise<{ numUpdatedRows: bigint }>, insert: () => Promise<unknown>): Promise<void> {
  if (Number((await update()).numUpdatedRows) > 0) return;
  try {
    await insert();
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    await update();
  }
}

/** Adds `add` to the counters of the row with `key` and raises its `latest` to the given time, creating the row (with `created` columns too) when missing. */
async function bump(
  db: Database,
  table: 'orchestrator_execution_rollup' | 'orchestrator_log_rollup',
  key: Record<string, string>,
  add: Record<string, number>,
  latest?: string,
  created: Record<string, string | number | null> = {},
): Promise<void> {
  const update = () => {
    const set: Record<string, unknown> = {};
    for (const [column, delta] of Object.entries(add)) set[column] = sql`${sql.ref(column)} + ${delta}`;
    if (latest !== undefined) set.latest = sql`case when ${sql.ref('latest')} < ${latest} then ${latest} else ${sql.ref('latest')} end`;
    let query = db.updateTable(table as 'orchestrator_log_rollup').set(set);
    for (const [column, value] of Object.entries(key)) query = query.where(sql.ref(column), '=', value);
    return query.executeTakeFirst();
  };
  await updateOrInsert(update, () =>
    db
      .insertInto(table as 'orchestrator_log_rollup')
      .values({ ...key, ...created, ...add, ...(latest !== undefined ? { latest } : {}) } as never)
      .execute(),
  );
}

type CountedExecution = Pick<ExecutionsTable, 'processing_status' | 'duration_ms'> & { created_at: string | Date; tracking_id: string };

/** Counts an execution in (`sign` 1) or out of (-1) its creation hour and status; a diagnostic execution is never counted. */
export async function countExecution(db: Database, row: CountedExecution, sign: 1 | -1): Promise<void> {
  if (isDiagnostic(row.tracking_id)) return;
  const timed = row.duration_ms === null || row.duration_ms === undefined ? 0 : 1;
  await bump(
    db,
    'orchestrator_execution_rollup',
    { hour: hourOf(row.created_at), processing_status: row.processing_status },
    { executions: sign, duration_count: sign * timed, duration_sum: sign * timed * (row.duration_ms ?? 0) },
  );
}

/**
 * Counts log rows into the error-pattern, error-source and failed-step rollups of their hours (rows
 * must carry their timestamp). A failed step counts where its failure was classified; diagnostic
 * executions' rows not at all.
 */
export async function countLogRows(db: Database, rows: LogRow[]): Promise<void> {
  const groups = new Map<
    string,
    { dimension: LogRollupDimension; hour: string; name: string; step_number: number | null; step_name: string | null; n: number; latest: string }
  >();
  const add = (dimension: LogRollupDimension, name: string, row: LogRow, step: { step_number: number | null; step_name: string | null }) => {
    const timestamp = row.timestamp!;
    const hour = hourOf(timestamp);
    const id = `${dimension}\u0000${hour}\u0000${name}`;
    const group = groups.get(id);
    if (group) {
      group.n++;
      if (timestamp > group.latest) group.latest = timestamp;
    } else groups.set(id, { dimension, hour, name, ...step, n: 1, latest: timestamp });
  };
  const noStep = { step_number: null, step_name: null };
  for (const row of rows) {
    if (isDiagnostic(row.tracking_id)) continue;
    if (row.error_pattern) add('error_pattern', row.error_pattern, row, noStep);
    if (row.error_source) add('error_source', row.error_source, row, noStep);
    if (row.status === 'failed' && row.error_pattern)
      add('failed_step', stepKey(row.step_number, row.step_name), row, { step_number: row.step_number ?? null, step_name: row.step_name ?? null });
  }
  for (const g of groups.values())
    await bump(db, 'orchestrator_log_rollup', { dimension: g.dimension, hour: g.hour, name: g.name }, { occurrences: g.n }, g.latest, {
      step_number: g.step_number,
      step_name: g.step_name,
    });
}

/** A new execution of a company: one more, and the latest when it is the newest (by created_at, then tracking_id). */
export async function countCompanyExecution(
  db: Database,
  row: { company_name: string; created_at: string; tracking_id: string; industry_id: string; processing_status: ExecutionsTable['processing_status'] },
): Promise<void> {
  const newer = sql<boolean>`(${sql.ref('last_submission_at')} < ${row.created_at} or (${sql.ref('last_submission_at')} = ${row.created_at} and ${sql.ref('latest_tracking_id')} < ${row.tracking_id}))`;
  const update = () =>
    db
      .updateTable('orchestrator_company_rollup')
      .set({
        execution_count: sql`${sql.ref('execution_count')} + 1`,
        last_submission_at: sql`case when ${newer} then ${row.created_at} else ${sql.ref('last_submission_at')} end`,
        latest_tracking_id: sql`case when ${newer} then ${row.tracking_id} else ${sql.ref('latest_tracking_id')} end`,
        latest_industry_id: sql`case when ${newer} then ${row.industry_id} else ${sql.ref('latest_industry_id')} end`,
        latest_status: sql`case when ${newer} then ${row.processing_status} else ${sql.ref('latest_status')} end`,
      })
      .where('company_name', '=', row.company_name)
      .executeTakeFirst();
  await updateOrInsert(update, () =>
    db
      .insertInto('orchestrator_company_rollup')
      .values({
        company_name: row.company_name,
        execution_count: 1,
        last_submission_at: row.created_at,
        latest_tracking_id: row.tracking_id,
        latest_industry_id: row.industry_id,
        latest_status: row.processing_status,
      })
      .execute(),
  );
}

/** After an execution of the company was deleted: one fewer, and its latest found again over the company index. */
export async function uncountCompanyExecution(db: Database, companyName: string): Promise<void> {
  const latest = await first(
    db,
    db
      .selectFrom('orchestrator_executions')
      .select(['tracking_id', 'created_at', 'industry_id', 'processing_status'])
      .where('company_name', '=', companyName)
      .orderBy('created_at', 'desc')
      .orderBy('tracking_id', 'desc'),
    1,
  ).executeTakeFirst();
  if (!latest) {
    await db.deleteFrom('orchestrator_company_rollup').where('company_name', '=', companyName).execute();
    return;
  }
  await db
    .updateTable('orchestrator_company_rollup')
    .set({
      execution_count: sql`${sql.ref('execution_count')} - 1`,
      last_submission_at: toIso(latest.created_at)!,
      latest_tracking_id: latest.tracking_id,
      latest_industry_id: latest.industry_id,
      latest_status: latest.processing_status,
    })
    .where('company_name', '=', companyName)
    .execute();
}

/** An execution changed status: its company's latest status follows when it is that company's latest execution. */
export async function followLatestStatus(db: Database, trackingId: string, companyName: string, status: ExecutionsTable['processing_status']): Promise<void> {
  await db
    .updateTable('orchestrator_company_rollup')
    .set({ latest_status: status })
    .where('company_name', '=', companyName)
    .where('latest_tracking_id', '=', trackingId)
    .execute();
}
