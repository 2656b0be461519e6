-- Generated from shared/sql/migrations/005_orchestrator_admin_indexes.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

create index "ix_executions_status_created_duration" on "orchestrator_executions" ("processing_status", "created_at", "duration_ms");
GO

create index "ix_executions_company_latest" on "orchestrator_executions" ("company_name", "created_at", "tracking_id");
GO

create index "ix_processing_log_status_time_step" on "orchestrator_processing_log" ("status", "timestamp", "step_number", "step_name");
GO
