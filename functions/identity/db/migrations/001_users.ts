import { PLAN_IDS } from '../../../../shared/plan-ids';
import { type AnyKysely, checkIn, columnTypes } from '../../../../shared/sql/dialect';

/** Users: owned by identity, read by every service. Half of the history's first step, 001_platform (functions/migrations.ts). */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('users')
    .addColumn('id', t.varchar(64), (c) => c.primaryKey())
    .addColumn('email', t.varchar(320), (c) => c.notNull().unique())
    .addColumn('role', t.varchar(32), (c) => c.notNull().defaultTo('user'))
    .addColumn('permissions', t.text, (c) => c.notNull().defaultTo('[]'))
    .addColumn('plan', t.varchar(16), (c) => c.notNull().defaultTo('free').check(checkIn('plan', PLAN_IDS)))
    .addColumn('status', t.varchar(16), (c) =>
      c
        .notNull()
        .defaultTo('active')
        .check(checkIn('status', ['active', 'inactive'])),
    )
    .addColumn('created_at', t.timestamp, (c) => c.notNull().defaultTo(t.now))
    .addColumn('updated_at', t.timestamp, (c) => c.notNull().defaultTo(t.now))
    .execute();
}
