-- Generated from shared/sql/migrations/012_payment_refunds.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

alter table "payment_payments" add "amount_refunded" integer default 0 not null;
GO

alter table "payment_payments" add "refunded_at" datetime2;
GO
