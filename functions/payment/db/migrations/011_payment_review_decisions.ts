import { type AnyKysely, checkIn, columnTypes } from '../../../../shared/sql/dialect';

/**
 * The operators' decisions on payments held in manual review (a paid plan that must not be pushed
 * without a person: an unrecorded payment that did not pay its plan's price, an event that
 * contradicts the record, retries exhausted, identity holding a newer plan). Each row is one
 * decision: approve (the plan is pushed) or reject (it never is), who decided, when and why, and
 * what the payment was held for. It is written in the transaction that takes the payment out of
 * manual review, so a decision is never applied without its record, nor recorded twice.
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('payment_review_decisions')
    .addColumn('id', 'integer', (c) => t.serialKey(c))
    .addColumn('payment_intent_id', t.varchar(255), (c) => c.notNull())
    .addColumn('user_id', t.varchar(64), (c) => c.notNull())
    .addColumn('plan', t.varchar(16))
    .addColumn('decision', t.varchar(16), (c) => c.notNull().check(checkIn('decision', ['approved', 'rejected'])))
    .addColumn('reason', t.varchar(500), (c) => c.notNull())
    .addColumn('held_for', t.text)
    .addColumn('actor_id', t.varchar(64), (c) => c.notNull())
    .addColumn('actor_email', t.varchar(320), (c) => c.notNull())
    .addColumn('decided_at', t.timestamp, (c) => c.notNull())
    .addColumn('request_id', t.varchar(100))
    .execute();
  await db.schema.createIndex('ix_payment_review_decisions_payment').on('payment_review_decisions').columns(['payment_intent_id', 'id']).execute();
}
