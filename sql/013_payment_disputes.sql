-- Generated from shared/sql/migrations/013_payment_disputes.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

alter table "payment_payments" add "dispute_status" nvarchar(16) check ("dispute_status" in ('open', 'won', 'lost'));
GO

alter table "payment_payments" add "disputed_at" datetime2;
GO
