-- Generated from shared/sql/migrations/019_report_usage.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

create table "orchestrator_report_usage" ("user_id" nvarchar(64) not null, "period" nvarchar(32) not null, "reports" integer not null, constraint "pk_orchestrator_report_usage" primary key ("user_id", "period"));
GO

insert into orchestrator_report_usage (user_id, period, reports) select user_id, month, reports from orchestrator_report_quota;
GO
