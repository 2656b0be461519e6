-- Generated from shared/sql/migrations/020_report_idempotency.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

create table "orchestrator_report_keys" ("user_id" nvarchar(64) not null, "idempotency_key" nvarchar(200) not null, "request_hash" nvarchar(64) not null, "tracking_id" nvarchar(64) not null, "created_at" datetime2 not null, constraint "pk_orchestrator_report_keys" primary key ("user_id", "idempotency_key"));
GO

create index "ix_report_keys_created" on "orchestrator_report_keys" ("created_at");
GO

alter table "orchestrator_executions" add "quota_period" nvarchar(32);
GO
