import { fillRollups } from '../rollups';
import { type AnyKysely, columnTypes } from '../../../../shared/sql/dialect';

/**
 * Summaries the administration dashboards read instead of a year of raw rows, kept up to date in
 * the same transaction as every change to the rows they count (functions/orchestrator/rollups):
 * executions per creation hour and status, processing-log rows per hour by error pattern, error
 * source and failed step, and per client company its count and latest execution. Filled here from
 * the rows already stored; `npm run rollups:rebuild` fills them again the same way.
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('orchestrator_execution_rollup')
    .addColumn('hour', t.varchar(13), (c) => c.notNull())
    .addColumn('processing_status', t.varchar(16), (c) => c.notNull())
    .addColumn('executions', 'integer', (c) => c.notNull())
    .addColumn('duration_count', 'integer', (c) => c.notNull())
    .addColumn('duration_sum', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('pk_orchestrator_execution_rollup', ['hour', 'processing_status'])
    .execute();
  await db.schema
    .createTable('orchestrator_log_rollup')
    .addColumn('dimension', t.varchar(16), (c) => c.notNull())
    .addColumn('hour', t.varchar(13), (c) => c.notNull())
    .addColumn('name', t.varchar(200), (c) => c.notNull())
    .addColumn('step_number', 'integer')
    .addColumn('step_name', t.varchar(100))
    .addColumn('occurrences', 'integer', (c) => c.notNull())
    .addColumn('latest', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('pk_orchestrator_log_rollup', ['dimension', 'hour', 'name'])
    .execute();
  await db.schema
    .createTable('orchestrator_company_rollup')
    .addColumn('company_name', t.varchar(200), (c) => c.primaryKey())
    .addColumn('execution_count', 'integer', (c) => c.notNull())
    .addColumn('last_submission_at', t.timestamp, (c) => c.notNull())
    .addColumn('latest_tracking_id', t.varchar(64), (c) => c.notNull())
    .addColumn('latest_industry_id', t.varchar(16), (c) => c.notNull())
    .addColumn('latest_status', t.varchar(16), (c) => c.notNull())
    .execute();
  // Profiles page newest submission first, then by name.
  await db.schema.createIndex('ix_company_rollup_latest').on('orchestrator_company_rollup').columns(['last_submission_at desc', 'company_name']).execute();
  await fillRollups(db);
}
