-- Generated from shared/sql/migrations/007_plan_request_time.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

alter table "users" add "plan_request_at" datetime2;
GO
