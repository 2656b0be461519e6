-- Generated from shared/sql/migrations/010_orchestrator_admin_actions.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

create table "orchestrator_admin_actions" ("id" integer identity primary key, "created_at" datetime2 not null, "action" nvarchar(32) not null, "tracking_id" nvarchar(64), "related_tracking_id" nvarchar(64), "actor_id" nvarchar(64) not null, "actor_email" nvarchar(320) not null, "result" nvarchar(16) not null, "reason" nvarchar(64), "details" nvarchar(max), "request_id" nvarchar(100), "dedupe_key" nvarchar(200) not null unique);
GO

create index "ix_admin_actions_tracking" on "orchestrator_admin_actions" ("tracking_id", "id");
GO

create index "ix_admin_actions_related" on "orchestrator_admin_actions" ("related_tracking_id", "id");
GO

delete from "orchestrator_execution_rollup";
GO

delete from "orchestrator_log_rollup";
GO

insert into "orchestrator_execution_rollup" ("hour", "processing_status", "executions", "duration_count", "duration_sum") select convert(char(13), "created_at", 126) as "hour", "processing_status", count(*) as "executions", count(duration_ms) as "duration_count", coalesce(sum(cast(duration_ms as bigint)), 0) as "duration_sum" from "orchestrator_executions" where "tracking_id" not like 'diag-%' group by convert(char(13), "created_at", 126), "processing_status";
GO

insert into "orchestrator_log_rollup" ("dimension", "hour", "name", "step_number", "step_name", "occurrences", "latest") select 'error_pattern' as "dimension", convert(char(13), "timestamp", 126) as "hour", "error_pattern" as "name", null as "step_number", null as "step_name", count(*) as "occurrences", max("timestamp") as "latest" from "orchestrator_processing_log" where "error_pattern" is not null and "tracking_id" not like 'diag-%' group by convert(char(13), "timestamp", 126), "error_pattern";
GO

insert into "orchestrator_log_rollup" ("dimension", "hour", "name", "step_number", "step_name", "occurrences", "latest") select 'error_source' as "dimension", convert(char(13), "timestamp", 126) as "hour", "error_source" as "name", null as "step_number", null as "step_name", count(*) as "occurrences", max("timestamp") as "latest" from "orchestrator_processing_log" where "error_source" is not null and "tracking_id" not like 'diag-%' group by convert(char(13), "timestamp", 126), "error_source";
GO

insert into "orchestrator_log_rollup" ("dimension", "hour", "name", "step_number", "step_name", "occurrences", "latest") select 'failed_step' as "dimension", convert(char(13), "timestamp", 126) as "hour", concat("step_number", ':', case when "step_name" is null then '-' else concat('=', "step_name") end) as "name", "step_number" as "step_number", "step_name" as "step_name", count(*) as "occurrences", max("timestamp") as "latest" from "orchestrator_processing_log" where "status" = 'failed' and "error_pattern" is not null and "tracking_id" not like 'diag-%' group by convert(char(13), "timestamp", 126), "step_number", "step_name";
GO
