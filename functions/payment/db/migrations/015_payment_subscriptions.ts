import { type AnyKysely, checkIn, columnTypes } from '../../../../shared/sql/dialect';

/**
 * Plans are paid periods. Each payment records where it comes from (a one-off purchase of one
 * period, or a subscription's invoice) and when the period it paid for ends; a subscription
 * invoice's payment also names its invoice and subscription. A Stripe Customer per user (created
 * once, idempotently), and each subscription's state as its last event left it: status, the end
 * of the current period, a cancellation at the period end, and since when a renewal is past due.
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .alterTable('payment_payments')
    .addColumn('source', t.varchar(16), (c) => c.check(checkIn('source', ['one_off', 'subscription'])))
    .execute();
  await db.schema.alterTable('payment_payments').addColumn('period_end', t.timestamp).execute();
  await db.schema.alterTable('payment_payments').addColumn('invoice_id', t.varchar(255)).execute();
  await db.schema.alterTable('payment_payments').addColumn('subscription_id', t.varchar(255)).execute();
  await db.schema
    .createTable('payment_customers')
    .addColumn('user_id', t.varchar(64), (c) => c.primaryKey())
    .addColumn('customer_id', t.varchar(255), (c) => c.notNull().unique())
    .addColumn('email', t.varchar(320), (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('payment_subscriptions')
    .addColumn('id', t.varchar(255), (c) => c.primaryKey())
    .addColumn('user_id', t.varchar(64), (c) => c.notNull())
    .addColumn('customer_id', t.varchar(255), (c) => c.notNull())
    .addColumn('plan_type', t.varchar(32), (c) => c.notNull())
    .addColumn('status', t.varchar(32), (c) => c.notNull())
    .addColumn('current_period_end', t.timestamp)
    .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull())
    .addColumn('past_due_since', t.timestamp)
    .addColumn('event_at', t.timestamp, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ix_payment_subscriptions_user').on('payment_subscriptions').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('ix_payment_subscriptions_status').on('payment_subscriptions').columns(['status']).execute();
}
