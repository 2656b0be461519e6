import { fillCountRollups } from '../rollups';
import { type AnyKysely, columnTypes } from '../../../../shared/sql/dialect';

/**
 * The orchestrator's audit of what administrators did to executions (retry, re-run, cancel, bulk
 * retry), each success written in the transaction of the change it records and each refusal right
 * after. `dedupe_key` is unique: a re-run sent again with the same Idempotency-Key finds the first.
 *
 * Also counts the dashboards' rollups again under two rules that start here: executions of the
 * diagnostics page's enhanced test (`diag-…`) count nowhere, and a failed step counts only where
 * its failure was classified (not again on the step it failed inside, nor on a cancellation).
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('orchestrator_admin_actions')
    .addColumn('id', 'integer', (c) => t.serialKey(c))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('action', t.varchar(32), (c) => c.notNull())
    .addColumn('tracking_id', t.varchar(64))
    .addColumn('related_tracking_id', t.varchar(64))
    .addColumn('actor_id', t.varchar(64), (c) => c.notNull())
    .addColumn('actor_email', t.varchar(320), (c) => c.notNull())
    .addColumn('result', t.varchar(16), (c) => c.notNull())
    .addColumn('reason', t.varchar(64))
    .addColumn('details', t.text)
    .addColumn('request_id', t.varchar(100))
    .addColumn('dedupe_key', t.varchar(200), (c) => c.notNull().unique())
    .execute();
  await db.schema.createIndex('ix_admin_actions_tracking').on('orchestrator_admin_actions').columns(['tracking_id', 'id']).execute();
  await db.schema.createIndex('ix_admin_actions_related').on('orchestrator_admin_actions').columns(['related_tracking_id', 'id']).execute();
  await db.deleteFrom('orchestrator_execution_rollup').execute();
  await db.deleteFrom('orchestrator_log_rollup').execute();
  await fillCountRollups(db);
}
