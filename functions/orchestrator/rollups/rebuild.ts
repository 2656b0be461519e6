import { sql, type Expression } from 'kysely';
import type { LogRollupDimension } from '../tables';
import { type AnyKysely, first } from '../../../shared/sql/dialect';
import { hourOfColumn, stepKeyOfColumns } from './keys';

export const ROLLUP_TABLES = ['orchestrator_execution_rollup', 'orchestrator_log_rollup', 'orchestrator_company_rollup'] as const;

/** Fills the empty rollup tables from the raw rows, one grouped INSERT ... SELECT each. */
export async function fillRollups(db: AnyKysely): Promise<void> {
  const hourCreated = hourOfColumn(db, 'created_at');
  await db
    .insertInto('orchestrator_execution_rollup')
    .columns(['hour', 'processing_status', 'executions', 'duration_count', 'duration_sum'])
    .expression(
      db
        .selectFrom('orchestrator_executions')
        .select([
          hourCreated.as('hour'),
          'processing_status',
          sql<number>`count(*)`.as('executions'),
          sql<number>`count(duration_ms)`.as('duration_count'),
          sql<number>`coalesce(sum(cast(duration_ms as bigint)), 0)`.as('duration_sum'),
        ])
        .groupBy([hourCreated, 'processing_status']),
    )
    .execute();

  await fillLogDimension(db, 'error_pattern', sql.ref('error_pattern'), [], sql`${sql.ref('error_pattern')} is not null`);
  await fillLogDimension(db, 'error_source', sql.ref('error_source'), [], sql`${sql.ref('error_source')} is not null`);
  await fillLogDimension(db, 'failed_step', stepKeyOfColumns(), ['step_number', 'step_name'], sql`${sql.ref('status')} = 'failed'`);

  await db
    .insertInto('orchestrator_company_rollup')
    .columns(['company_name', 'execution_count', 'last_submission_at', 'latest_tracking_id', 'latest_industry_id', 'latest_status'])
    .expression(
      db
        .selectFrom('orchestrator_executions as e')
        .select((eb) => [
          'e.company_name',
          sql<number>`count(*)`.as('execution_count'),
          sql`max(e.created_at)`.as('last_submission_at'),
          first(
            db,
            eb
              .selectFrom('orchestrator_executions as x')
              .select('x.tracking_id')
              .whereRef('x.company_name', '=', 'e.company_name')
              .orderBy('x.created_at', 'desc')
              .orderBy('x.tracking_id', 'desc'),
            1,
          )
            .$asScalar()
            .as('latest_tracking_id'),
          // Placeholders the next statement replaces with the latest execution's own.
          sql.lit('').as('latest_industry_id'),
          sql.lit('processing').as('latest_status'),
        ])
        .groupBy('e.company_name'),
    )
    .execute();
  // The latest execution's industry and status, by its key.
  const latest = (column: 'industry_id' | 'processing_status') =>
    db.selectFrom('orchestrator_executions as l').select(`l.${column}`).whereRef('l.tracking_id', '=', 'orchestrator_company_rollup.latest_tracking_id');
  await db
    .updateTable('orchestrator_company_rollup')
    .set({ latest_industry_id: latest('industry_id'), latest_status: latest('processing_status') })
    .execute();
}

/** Log rows matching `where`, per hour and `name` (grouped by `name` itself, or by the step columns it is made of). */
async function fillLogDimension(db: AnyKysely, dimension: LogRollupDimension, name: Expression<string>, stepColumns: string[], where: Expression<boolean>) {
  const hour = hourOfColumn(db, 'timestamp');
  const step = (column: string) => (stepColumns.includes(column) ? sql.ref(column) : sql`null`).as(column);
  await db
    .insertInto('orchestrator_log_rollup')
    .columns(['dimension', 'hour', 'name', 'step_number', 'step_name', 'occurrences', 'latest'])
    .expression(
      db
        .selectFrom('orchestrator_processing_log')
        .select([
          sql.lit(dimension).as('dimension'),
          hour.as('hour'),
          sql`${name}`.as('name'),
          step('step_number'),
          step('step_name'),
          sql<number>`count(*)`.as('occurrences'),
          sql`max(${sql.ref('timestamp')})`.as('latest'),
        ])
        .where(where)
        .groupBy([hour, ...(stepColumns.length ? stepColumns.map((c) => sql.ref(c)) : [name])]),
    )
    .execute();
}

/**
 * Empties the rollups and fills them again from the raw rows, in one transaction, so readers see
 * the old rollups or the new ones (npm run rollups:rebuild; after restoring raw rows from a backup
 * or loading them in bulk). Writers that count into the rollups meanwhile wait for it on SQLite;
 * on Azure SQL the serializable transaction holds them off the tables it reads.
 */
export async function rebuildRollups(db: AnyKysely): Promise<void> {
  await db
    .transaction()
    .setIsolationLevel('serializable')
    .execute(async (trx) => {
      for (const table of ROLLUP_TABLES) await trx.deleteFrom(table).execute();
      await fillRollups(trx);
    });
}
