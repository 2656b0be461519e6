import { type AnyKysely, columnTypes } from '../../../../shared/sql/dialect';

/**
 * Share links of completed reports (issue 51): one row per link its owner made. Only the SHA-256
 * of a link's token is kept (`token_hash`, unique), never the token; `views` is counted by one
 * conditional increment per page view, so a revoked or expired link counts nothing.
 */
export async function up(db: AnyKysely): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('orchestrator_report_shares')
    .addColumn('share_id', t.varchar(40), (c) => c.primaryKey())
    .addColumn('tracking_id', t.varchar(64), (c) => c.notNull())
    .addColumn('owner_id', t.varchar(64), (c) => c.notNull())
    .addColumn('token_hash', t.varchar(64), (c) => c.notNull().unique())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('revoked_at', t.timestamp)
    .addColumn('views', 'integer', (c) => c.notNull())
    .addColumn('last_viewed_at', t.timestamp)
    .execute();
  await db.schema.createIndex('ix_report_shares_tracking').on('orchestrator_report_shares').columns(['tracking_id', 'created_at']).execute();
}
