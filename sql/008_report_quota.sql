-- Generated from shared/sql/migrations/008_report_quota.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

create table "orchestrator_report_quota" ("user_id" nvarchar(64) not null, "month" nvarchar(7) not null, "reports" integer not null, constraint "pk_orchestrator_report_quota" primary key ("user_id", "month"));
GO
