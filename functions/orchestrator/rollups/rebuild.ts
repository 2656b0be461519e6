import { sql } from 'kysely';
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

  const hourLogged = hourOfColumn(db, 'timestamp');
  const logColumns = ['dimension', 'hour', 'name', 'step_number', 'step_name', 'occurrences', 'latest'] as const;
  for (const column of ['error_pattern', 'error_source'] as const) {
    await db
      .insertInto('orchestrator_log_rollup')
      .columns(logColumns)
      .expression(
        db
          .selectFrom('orchestrator_processing_log')
          .select([
            sql.lit(column).as('dimension'),
            hourLogged.as('hour'),
            sql.ref(column).as('name'),
            sql`null`.as('step_number'),
            sql`null`.as('step_name'),
            sql<number>`count(*)`.as('occurrences'),
            sql`max(${sql.ref('timestamp')})`.as('latest'),
          ])
          .where(sql.ref(column), 'is not', null)
          .groupBy([hourLogged, sql.ref(column)]),
      )
      .execute();
  }
  await db
    .insertInto('orchestrator_log_rollup')
    .columns(logColumns)
    .expression(
      db
        .selectFrom('orchestrator_processing_log')
        .select([
          sql.lit('failed_step').as('dimension'),
          hourLogged.as('hour'),
          stepKeyOfColumns().as('name'),
          'step_number',
          'step_name',
          sql<number>`count(*)`.as('occurrences'),
          sql`max(${sql.ref('timestamp')})`.as('latest'),
        ])
        .where('status', '=', 'failed')
        .groupBy([hourLogged, 'step_number', 'step_name']),
    )
    .execute();

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
