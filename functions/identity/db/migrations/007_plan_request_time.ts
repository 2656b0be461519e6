import { type AnyKysely, columnTypes } from '../../../../shared/sql/dialect';

/**
 * The request time of the last plan update applied to each user. Identity refuses an update
 * requested before it, so a plan sync delayed in flight can never overwrite a newer plan.
 */
export async function up(db: AnyKysely): Promise<void> {
  await db.schema.alterTable('users').addColumn('plan_request_at', columnTypes(db).timestamp).execute();
}
