-- Generated from shared/sql/migrations/009_orchestrator_rollups.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

create table "orchestrator_execution_rollup" ("hour" nvarchar(13) not null, "processing_status" nvarchar(16) not null, "executions" integer not null, "duration_count" integer not null, "duration_sum" bigint not null, constraint "pk_orchestrator_execution_rollup" primary key ("hour", "processing_status"));
GO

create table "orchestrator_log_rollup" ("dimension" nvarchar(16) not null, "hour" nvarchar(13) not null, "name" nvarchar(200) not null, "step_number" integer, "step_name" nvarchar(100), "occurrences" integer not null, "latest" datetime2 not null, constraint "pk_orchestrator_log_rollup" primary key ("dimension", "hour", "name"));
GO

create table "orchestrator_company_rollup" ("company_name" nvarchar(200) primary key, "execution_count" integer not null, "last_submission_at" datetime2 not null, "latest_tracking_id" nvarchar(64) not null, "latest_industry_id" nvarchar(16) not null, "latest_status" nvarchar(16) not null);
GO

create index "ix_company_rollup_latest" on "orchestrator_company_rollup" ("last_submission_at" desc, "company_name");
GO

insert into "orchestrator_execution_rollup" ("hour", "processing_status", "executions", "duration_count", "duration_sum") select convert(char(13), "created_at", 126) as "hour", "processing_status", count(*) as "executions", count(duration_ms) as "duration_count", coalesce(sum(cast(duration_ms as bigint)), 0) as "duration_sum" from "orchestrator_executions" where "tracking_id" not like 'diag-%' group by convert(char(13), "created_at", 126), "processing_status";
GO

insert into "orchestrator_log_rollup" ("dimension", "hour", "name", "step_number", "step_name", "occurrences", "latest") select 'error_pattern' as "dimension", convert(char(13), "timestamp", 126) as "hour", "error_pattern" as "name", null as "step_number", null as "step_name", count(*) as "occurrences", max("timestamp") as "latest" from "orchestrator_processing_log" where "error_pattern" is not null and "tracking_id" not like 'diag-%' group by convert(char(13), "timestamp", 126), "error_pattern";
GO

insert into "orchestrator_log_rollup" ("dimension", "hour", "name", "step_number", "step_name", "occurrences", "latest") select 'error_source' as "dimension", convert(char(13), "timestamp", 126) as "hour", "error_source" as "name", null as "step_number", null as "step_name", count(*) as "occurrences", max("timestamp") as "latest" from "orchestrator_processing_log" where "error_source" is not null and "tracking_id" not like 'diag-%' group by convert(char(13), "timestamp", 126), "error_source";
GO

insert into "orchestrator_log_rollup" ("dimension", "hour", "name", "step_number", "step_name", "occurrences", "latest") select 'failed_step' as "dimension", convert(char(13), "timestamp", 126) as "hour", concat("step_number", ':', case when "step_name" is null then '-' else concat('=', "step_name") end) as "name", "step_number" as "step_number", "step_name" as "step_name", count(*) as "occurrences", max("timestamp") as "latest" from "orchestrator_processing_log" where "status" = 'failed' and "error_pattern" is not null and "tracking_id" not like 'diag-%' group by convert(char(13), "timestamp", 126), "step_number", "step_name";
GO

insert into "orchestrator_company_rollup" ("company_name", "execution_count", "last_submission_at", "latest_tracking_id", "latest_industry_id", "latest_status") select "e"."company_name", count(*) as "execution_count", max(e.created_at) as "last_submission_at", (select top(1) "x"."tracking_id" from "orchestrator_executions" as "x" where "x"."company_name" = "e"."company_name" order by "x"."created_at" desc, "x"."tracking_id" desc) as "latest_tracking_id", '' as "latest_industry_id", 'processing' as "latest_status" from "orchestrator_executions" as "e" group by "e"."company_name";
GO

update "orchestrator_company_rollup" set "latest_industry_id" = (select "l"."industry_id" from "orchestrator_executions" as "l" where "l"."tracking_id" = "orchestrator_company_rollup"."latest_tracking_id"), "latest_status" = (select "l"."processing_status" from "orchestrator_executions" as "l" where "l"."tracking_id" = "orchestrator_company_rollup"."latest_tracking_id");
GO
