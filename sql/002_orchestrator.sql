-- Generated from shared/sql/migrations/002_orchestrator.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

create table "orchestrator_executions" ("tracking_id" nvarchar(64) primary key, "company_name" nvarchar(200) not null, "industry_id" nvarchar(16) not null, "processing_status" nvarchar(16) default 'processing' not null check ("processing_status" in ('processing', 'completed', 'failed')), "progress_percentage" integer default 0 not null, "health_status" nvarchar(32) default 'HEALTHY' not null, "submission" nvarchar(max) not null, "requested_by" nvarchar(64) not null, "plan" nvarchar(16) not null, "current_step" integer, "current_step_name" nvarchar(64), "attempts" integer default 0 not null, "assets" nvarchar(max), "visuals_status" nvarchar(16), "visuals_error" nvarchar(max), "error_message" nvarchar(max), "error_pattern" nvarchar(32), "error_source" nvarchar(32), "error_step" nvarchar(64), "created_at" datetime2 default sysutcdatetime() not null, "started_at" datetime2, "completed_at" datetime2, "updated_at" datetime2 default sysutcdatetime() not null, "duration_ms" integer);
GO

create index "ix_executions_status_created" on "orchestrator_executions" ("processing_status", "created_at");
GO

create index "ix_executions_created" on "orchestrator_executions" ("created_at");
GO

create index "ix_executions_company" on "orchestrator_executions" ("company_name", "created_at");
GO

create index "ix_executions_requested_by" on "orchestrator_executions" ("requested_by", "created_at");
GO

alter table "orchestrator_processing_log" add "error_pattern" nvarchar(32);
GO

alter table "orchestrator_processing_log" add "error_source" nvarchar(32);
GO

alter table "orchestrator_processing_log" add "error_details" nvarchar(max);
GO

create index "ix_processing_log_source_time" on "orchestrator_processing_log" ("error_source", "timestamp");
GO

create index "ix_processing_log_pattern_time" on "orchestrator_processing_log" ("error_pattern", "timestamp");
GO

create index "ix_processing_log_status_time" on "orchestrator_processing_log" ("status", "timestamp");
GO
