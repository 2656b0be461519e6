import { type AnyKysely, columnTypes } from '../../../../shared/sql/dialect';

/**
 * One click, one report (issue 51):
 * - `orchestrator_report_keys`: each user's Idempotency-Key of POST api/reports, with the hash of
 *   the request it came with and the tracking id it answers. The primary key (user_id,
 *   idempotency_key) is what makes two requests sent at once with one key make one execution: the
 *   second insert fails as a duplicate and reads the first. Kept 24 hours (purged lazily by the
 *   next keyed request, over the created_at index).
 * - `orchestrator_executions.quota_period`: the quota period a report was counted in (the usage
 *   row's period), null when it took none (an unlimited plan, an administrator's re-run, or a
 *   report from before this step), so a report its owner cancels goes back to that period's count.
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('orchestrator_report_keys')
    .addColumn('user_id', t.varchar(64), (c) => c.notNull())
    .addColumn('idempotency_key', t.varchar(200), (c) => c.notNull())
    .addColumn('request_hash', t.varchar(64), (c) => c.notNull())
    .addColumn('tracking_id', t.varchar(64), (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('pk_orchestrator_report_keys', ['user_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('ix_report_keys_created').on('orchestrator_report_keys').columns(['created_at']).execute();
  await db.schema.alterTable('orchestrator_executions').addColumn('quota_period', t.varchar(32)).execute();
}
