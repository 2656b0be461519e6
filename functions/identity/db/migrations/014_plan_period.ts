import { type AnyKysely, columnTypes } from '../../../../shared/sql/dialect';

/**
 * A plan is a paid period: when it ends (null: no end, as a manual grant) and where it comes from
 * (subscription, one_off, manual). Past its end the user is on free wherever the plan is read.
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable('users').addColumn('plan_period_end', t.timestamp).execute();
  await db.schema.alterTable('users').addColumn('plan_source', t.varchar(16)).execute();
}
