/**
 * The names of the migration history (functions/migrations.ts), in order, without its modules: the
 * embedded database compares them with the names it has recorded when it opens, and only when one
 * is missing loads the history itself (20 modules and Kysely's migrator: about 8 ms of a cold start
 * on SQLite). `MIGRATIONS` is typed by this list, so a step added there and not here (or the
 * reverse) does not compile; a test holds the order equal.
 */
export const MIGRATION_NAMES = [
  '001_platform',
  '002_orchestrator',
  '003_identity',
  '004_payment',
  '005_orchestrator_admin_indexes',
  '006_payment_deciding_index',
  '007_plan_request_time',
  '008_report_quota',
  '009_orchestrator_rollups',
  '010_orchestrator_admin_actions',
  '011_payment_review_decisions',
  '012_payment_refunds',
  '013_payment_disputes',
  '014_plan_period',
  '015_payment_subscriptions',
  '019_report_usage',
  '020_report_idempotency',
  '021_report_shares',
  '022_orchestrator_notifications',
] as const;

export type MigrationName = (typeof MIGRATION_NAMES)[number];
