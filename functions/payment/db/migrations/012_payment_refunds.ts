import { type AnyKysely, columnTypes } from '../../../../shared/sql/dialect';

/**
 * What was refunded of each payment and when (Stripe's `created` of the last `charge.refunded`
 * event recorded). A refund is recorded whatever it does to the plan: a partial refund, or a full
 * refund of a payment a newer one superseded, changes no plan but stays on the payment's record.
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .alterTable('payment_payments')
    .addColumn('amount_refunded', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('payment_payments').addColumn('refunded_at', t.timestamp).execute();
}
