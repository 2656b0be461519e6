-- Generated from shared/sql/migrations/014_plan_period.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

alter table "users" add "plan_period_end" datetime2;
GO

alter table "users" add "plan_source" nvarchar(16);
GO
