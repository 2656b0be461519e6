import { type AnyKysely, checkIn, columnTypes } from '../../../../shared/sql/dialect';

/**
 * Report executions, and the workflow logger's additions to the processing log: each failure is
 * classified once, when logged, into error_pattern / error_source columns that dashboards aggregate
 * over indexes instead of re-parsing messages.
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('orchestrator_executions')
    .addColumn('tracking_id', t.varchar(64), (c) => c.primaryKey())
    .addColumn('company_name', t.varchar(200), (c) => c.notNull())
    .addColumn('industry_id', t.varchar(16), (c) => c.notNull())
    .addColumn('processing_status', t.varchar(16), (c) =>
      c
        .notNull()
        .defaultTo('processing')
        .check(checkIn('processing_status', ['processing', 'completed', 'failed'])),
    )
    .addColumn('progress_percentage', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('health_status', t.varchar(32), (c) => c.notNull().defaultTo('HEALTHY'))
    .addColumn('submission', t.text, (c) => c.notNull())
    .addColumn('requested_by', t.varchar(64), (c) => c.notNull())
    .addColumn('plan', t.varchar(16), (c) => c.notNull())
    .addColumn('current_step', 'integer')
    .addColumn('current_step_name', t.varchar(64))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('assets', t.text)
    .addColumn('visuals_status', t.varchar(16))
    .addColumn('visuals_error', t.text)
    .addColumn('error_message', t.text)
    .addColumn('error_pattern', t.varchar(32))
    .addColumn('error_source', t.varchar(32))
    .addColumn('error_step', t.varchar(64))
    .addColumn('created_at', t.timestamp, (c) => c.notNull().defaultTo(t.now))
    .addColumn('started_at', t.timestamp)
    .addColumn('completed_at', t.timestamp)
    .addColumn('updated_at', t.timestamp, (c) => c.notNull().defaultTo(t.now))
    .addColumn('duration_ms', 'integer')
    .execute();
  await db.schema.createIndex('ix_executions_status_created').on('orchestrator_executions').columns(['processing_status', 'created_at']).execute();
  await db.schema.createIndex('ix_executions_created').on('orchestrator_executions').column('created_at').execute();
  await db.schema.createIndex('ix_executions_company').on('orchestrator_executions').columns(['company_name', 'created_at']).execute();
  await db.schema.createIndex('ix_executions_requested_by').on('orchestrator_executions').columns(['requested_by', 'created_at']).execute();

  await db.schema.alterTable('orchestrator_processing_log').addColumn('error_pattern', t.varchar(32)).execute();
  await db.schema.alterTable('orchestrator_processing_log').addColumn('error_source', t.varchar(32)).execute();
  await db.schema.alterTable('orchestrator_processing_log').addColumn('error_details', t.text).execute();
  await db.schema.createIndex('ix_processing_log_source_time').on('orchestrator_processing_log').columns(['error_source', 'timestamp']).execute();
  await db.schema.createIndex('ix_processing_log_pattern_time').on('orchestrator_processing_log').columns(['error_pattern', 'timestamp']).execute();
  await db.schema.createIndex('ix_processing_log_status_time').on('orchestrator_processing_log').columns(['status', 'timestamp']).execute();
}
