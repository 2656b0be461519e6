-- Generated from shared/sql/migrations/006_payment_deciding_index.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

drop index "ix_payment_payments_user_status_at" on "payment_payments";
GO

create index "ix_payment_payments_user_deciding" on "payment_payments" ("user_id", "status_at", "created_at", "id", "status");
GO
