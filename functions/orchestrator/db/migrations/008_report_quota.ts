import { type AnyKysely, columnTypes } from '../../../../shared/sql/dialect';

/**
 * Reports each user requested per calendar month (UTC), counted in SQL so a plan's quota holds on
 * any number of instances: taking one is a single conditional increment.
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('orchestrator_report_quota')
    .addColumn('user_id', t.varchar(64), (c) => c.notNull())
    .addColumn('month', t.varchar(7), (c) => c.notNull())
    .addColumn('reports', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('pk_orchestrator_report_quota', ['user_id', 'month'])
    .execute();
}
