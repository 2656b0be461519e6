import { PLAN_IDS } from '../../../../shared/plan-ids';
import { type AnyKysely, checkIn, columnTypes } from '../../../../shared/sql/dialect';

/**
 * Payment service: one row per PaymentIntent carrying both the payment's state and the state of
 * its plan sync to identity (SQL is the source of truth for sync; the failed-sync record in Table
 * Storage is a 24-hour copy), the webhook events already processed (dedupe by Stripe event id),
 * and per-user sync leases so two instances never push plans for one user at the same time.
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('payment_payments')
    .addColumn('id', t.varchar(255), (c) => c.primaryKey())
    .addColumn('user_id', t.varchar(64), (c) => c.notNull())
    .addColumn('plan_type', t.varchar(16), (c) => c.notNull().check(checkIn('plan_type', PLAN_IDS)))
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('currency', t.varchar(8), (c) => c.notNull())
    .addColumn('price_version', t.varchar(32))
    .addColumn('status', t.varchar(16), (c) => c.notNull().check(checkIn('status', ['pending', 'succeeded', 'failed', 'canceled', 'refunded'])))
    .addColumn('status_at', t.timestamp)
    .addColumn('failure_message', t.text)
    .addColumn('sync_state', t.varchar(16), (c) =>
      c
        .notNull()
        .defaultTo('not_required')
        .check(checkIn('sync_state', ['not_required', 'pending', 'synced', 'failed', 'manual_review', 'superseded'])),
    )
    .addColumn('sync_plan', t.varchar(16))
    .addColumn('sync_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sync_error', t.text)
    .addColumn('sync_next_at', t.timestamp)
    .addColumn('synced_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull().defaultTo(t.now))
    .addColumn('updated_at', t.timestamp, (c) => c.notNull().defaultTo(t.now))
    .execute();
  await db.schema.createIndex('ix_payment_payments_user_created').on('payment_payments').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('ix_payment_payments_user_status_at').on('payment_payments').columns(['user_id', 'status_at']).execute();
  await db.schema.createIndex('ix_payment_payments_sync_due').on('payment_payments').columns(['sync_state', 'sync_next_at']).execute();

  await db.schema
    .createTable('payment_webhook_events')
    .addColumn('id', t.varchar(255), (c) => c.primaryKey())
    .addColumn('type', t.varchar(100), (c) => c.notNull())
    .addColumn('payment_intent_id', t.varchar(255))
    .addColumn('event_created', t.timestamp, (c) => c.notNull())
    .addColumn('received_at', t.timestamp, (c) => c.notNull().defaultTo(t.now))
    .execute();

  await db.schema
    .createTable('payment_sync_leases')
    .addColumn('user_id', t.varchar(64), (c) => c.primaryKey())
    .addColumn('holder', t.varchar(64), (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .execute();
}
