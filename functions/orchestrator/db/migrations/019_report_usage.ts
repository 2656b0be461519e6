import { type AnyKysely, columnTypes, sql } from '../../../../shared/sql/dialect';

/**
 * Reports each user requested per billing period: the paid period (keyed by its end, as identity
 * holds it) or, for free and for plans without an end, the calendar month (YYYY-MM, UTC). The
 * month counts of orchestrator_report_quota are carried over; that table is left for the release
 * after this one to drop (a release only adds, so the code before it keeps running).
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('orchestrator_report_usage')
    .addColumn('user_id', t.varchar(64), (c) => c.notNull())
    .addColumn('period', t.varchar(32), (c) => c.notNull())
    .addColumn('reports', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('pk_orchestrator_report_usage', ['user_id', 'period'])
    .execute();
  await sql`insert into orchestrator_report_usage (user_id, period, reports) select user_id, month, reports from orchestrator_report_quota`.execute(db);
}
