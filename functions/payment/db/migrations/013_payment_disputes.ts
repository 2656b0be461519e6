import { type AnyKysely, checkIn, columnTypes } from '../../../../shared/sql/dialect';

/**
 * The chargeback state of each payment: `open` from `charge.dispute.created`, then `won` or `lost`
 * from `charge.dispute.closed`, with Stripe's `created` of the last dispute event recorded. A
 * payment under an open or lost dispute no longer stands: it gives no plan.
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .alterTable('payment_payments')
    .addColumn('dispute_status', t.varchar(16), (c) => c.check(checkIn('dispute_status', ['open', 'won', 'lost'])))
    .execute();
  await db.schema.alterTable('payment_payments').addColumn('disputed_at', t.timestamp).execute();
}
