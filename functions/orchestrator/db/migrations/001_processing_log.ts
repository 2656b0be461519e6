import { type AnyKysely, columnTypes } from '../../../../shared/sql/dialect';

/** The workflow processing log, whose ten columns are a published contract. The other half of 001_platform (functions/migrations.ts). */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('orchestrator_processing_log')
    .addColumn('id', 'integer', (c) => t.serialKey(c))
    .addColumn('tracking_id', t.varchar(100), (c) => c.notNull())
    .addColumn('step_name', t.varchar(100))
    .addColumn('step_number', 'integer')
    .addColumn('status', t.varchar(32), (c) => c.notNull())
    .addColumn('duration_ms', 'integer')
    .addColumn('tokens_used', 'integer')
    .addColumn('error_message', t.text)
    .addColumn('metadata', t.text)
    .addColumn('timestamp', t.timestamp, (c) => c.notNull().defaultTo(t.now))
    .execute();
  await db.schema.createIndex('ix_processing_log_tracking').on('orchestrator_processing_log').columns(['tracking_id', 'id']).execute();
  await db.schema.createIndex('ix_processing_log_timestamp').on('orchestrator_processing_log').column('timestamp').execute();
}
