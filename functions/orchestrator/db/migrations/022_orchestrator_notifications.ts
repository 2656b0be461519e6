import { type AnyKysely, checkIn, columnTypes } from '../../../../shared/sql/dialect';

/**
 * Telling the client a report is ready (issue 51, item 4):
 * - `orchestrator_notify_users`: per user, the e-mail address the last report request came with and
 *   the e-mail opt-out (GET/PUT api/notifications/preferences);
 * - `orchestrator_notify_events`: one row per finished report (report.completed, report.failed),
 *   written in the transaction that finishes the execution (a transactional outbox): the dispatcher
 *   sends its e-mail and fans it out to the user's webhook endpoints, retrying on its own schedule;
 * - `orchestrator_webhook_endpoints`: a user's HTTPS endpoints with their signing secrets (the
 *   previous one kept for the rotation overlap);
 * - `orchestrator_webhook_deliveries`: one event to one endpoint, with its frozen body and retry state;
 * - `orchestrator_webhook_attempts`: each try of a delivery and the endpoint's answer.
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('orchestrator_notify_users')
    .addColumn('user_id', t.varchar(64), (c) => c.primaryKey())
    .addColumn('email', t.varchar(320))
    .addColumn('email_enabled', t.boolean, (c) => c.notNull().defaultTo(1))
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('orchestrator_notify_events')
    .addColumn('id', t.varchar(40), (c) => c.primaryKey())
    .addColumn('tracking_id', t.varchar(64), (c) => c.notNull())
    .addColumn('user_id', t.varchar(64), (c) => c.notNull())
    .addColumn('plan', t.varchar(32), (c) => c.notNull())
    .addColumn('type', t.varchar(32), (c) => c.notNull().check(checkIn('type', ['report.completed', 'report.failed'])))
    .addColumn('data', t.text, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('state', t.varchar(16), (c) => c.notNull().check(checkIn('state', ['pending', 'done'])))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_at', t.timestamp, (c) => c.notNull())
    .addColumn('webhooks_done', t.boolean, (c) => c.notNull().defaultTo(0))
    .addColumn('email_state', t.varchar(16), (c) => c.notNull().check(checkIn('email_state', ['pending', 'sent', 'skipped', 'failed'])))
    .addColumn('email_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('email_error', t.varchar(500))
    .execute();
  await db.schema.createIndex('ix_notify_events_due').on('orchestrator_notify_events').columns(['state', 'next_at']).execute();
  await db.schema.createIndex('ix_notify_events_tracking').on('orchestrator_notify_events').columns(['tracking_id']).execute();

  await db.schema
    .createTable('orchestrator_webhook_endpoints')
    .addColumn('id', t.varchar(40), (c) => c.primaryKey())
    .addColumn('user_id', t.varchar(64), (c) => c.notNull())
    .addColumn('url', t.varchar(2048), (c) => c.notNull())
    .addColumn('description', t.varchar(200))
    .addColumn('secret', t.varchar(100), (c) => c.notNull())
    .addColumn('previous_secret', t.varchar(100))
    .addColumn('previous_secret_expires_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ix_webhook_endpoints_user').on('orchestrator_webhook_endpoints').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('orchestrator_webhook_deliveries')
    .addColumn('id', t.varchar(40), (c) => c.primaryKey())
    .addColumn('endpoint_id', t.varchar(40), (c) => c.notNull())
    .addColumn('user_id', t.varchar(64), (c) => c.notNull())
    .addColumn('event_id', t.varchar(40), (c) => c.notNull())
    .addColumn('event_type', t.varchar(32), (c) => c.notNull())
    .addColumn('tracking_id', t.varchar(64), (c) => c.notNull())
    .addColumn('payload', t.text, (c) => c.notNull())
    .addColumn('status', t.varchar(16), (c) => c.notNull().check(checkIn('status', ['pending', 'succeeded', 'failed'])))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('window_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', t.timestamp)
    .addColumn('window_started_at', t.timestamp, (c) => c.notNull())
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', t.varchar(500))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('uq_webhook_deliveries_event_endpoint', ['event_id', 'endpoint_id'])
    .execute();
  await db.schema.createIndex('ix_webhook_deliveries_due').on('orchestrator_webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('ix_webhook_deliveries_endpoint').on('orchestrator_webhook_deliveries').columns(['endpoint_id', 'created_at']).execute();

  await db.schema
    .createTable('orchestrator_webhook_attempts')
    .addColumn('id', 'integer', (c) => t.serialKey(c))
    .addColumn('delivery_id', t.varchar(40), (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('at', t.timestamp, (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_excerpt', t.varchar(500))
    .addColumn('error', t.varchar(500))
    .addColumn('outcome', t.varchar(16), (c) => c.notNull().check(checkIn('outcome', ['succeeded', 'failed'])))
    .execute();
  await db.schema.createIndex('ix_webhook_attempts_delivery').on('orchestrator_webhook_attempts').columns(['delivery_id', 'id']).execute();
}
