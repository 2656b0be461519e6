import { type AnyKysely, checkIn, columnTypes } from '../dialect';

/** Users (owned by identity, read by every service) and the workflow processing log, whose ten columns are a published contract. */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('users')
    .addColumn('id', t.varchar(64), (c) => c.primaryKey())
    .addColumn('email', t.varchar(320), (c) => c.notNull().unique())
    .addColumn('role', t.varchar(32), (c) => c.notNull().defaultTo('user'))
    .addColumn('permissions', t.text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('plan', t.varchar(16), (c) => c.notNull().defaultTo('free').check(checkIn('plan', ['free', 'pro', 'enterprise'])))
    .addColumn('status', t.varchar(16), (c) => c.notNull().defaultTo('active').check(checkIn('status', ['active', 'inactive'])))
    .addColumn('created_at', t.timestamp, (c) => c.notNull().defaultTo(t.now))
    .addColumn('updated_at', t.timestamp, (c) => c.notNull().defaultTo(t.now))
    .execute();

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
