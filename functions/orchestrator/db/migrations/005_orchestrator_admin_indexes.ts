import type { AnyKysely } from '../../../../shared/sql/dialect';

/**
 * Covering indexes for the administration dashboards (measured with bench/dashboard at 100,000
 * executions and 1,000,000 log rows), so each aggregate reads an index range and never the table:
 * - executions by status and creation time with duration: 7-day health, 24-hour summary, hourly trends;
 * - executions by company, newest first with the tracking id as tie-break: client profiles;
 * - failed log steps by time with the step: step-failure analysis over 30 days.
 */
export async function up(db: AnyKysely): Promise<void> {
  await db.schema
    .createIndex('ix_executions_status_created_duration')
    .on('orchestrator_executions')
    .columns(['processing_status', 'created_at', 'duration_ms'])
    .execute();
  await db.schema.createIndex('ix_executions_company_latest').on('orchestrator_executions').columns(['company_name', 'created_at', 'tracking_id']).execute();
  await db.schema
    .createIndex('ix_processing_log_status_time_step')
    .on('orchestrator_processing_log')
    .columns(['status', 'timestamp', 'step_number', 'step_name'])
    .execute();
}
