-- Generated from shared/sql/migrations/004_payment.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

create table "payment_payments" ("id" nvarchar(255) primary key, "user_id" nvarchar(64) not null, "plan_type" nvarchar(16) not null check ("plan_type" in ('free', 'pro', 'enterprise')), "amount" integer not null, "currency" nvarchar(8) not null, "price_version" nvarchar(32), "status" nvarchar(16) not null check ("status" in ('pending', 'succeeded', 'failed', 'canceled', 'refunded')), "status_at" datetime2, "failure_message" nvarchar(max), "sync_state" nvarchar(16) default 'not_required' not null check ("sync_state" in ('not_required', 'pending', 'synced', 'failed', 'manual_review', 'superseded')), "sync_plan" nvarchar(16), "sync_attempts" integer default 0 not null, "sync_error" nvarchar(max), "sync_next_at" datetime2, "synced_at" datetime2, "created_at" datetime2 default sysutcdatetime() not null, "updated_at" datetime2 default sysutcdatetime() not null);
GO

create index "ix_payment_payments_user_created" on "payment_payments" ("user_id", "created_at");
GO

create index "ix_payment_payments_user_status_at" on "payment_payments" ("user_id", "status_at");
GO

create index "ix_payment_payments_sync_due" on "payment_payments" ("sync_state", "sync_next_at");
GO

create table "payment_webhook_events" ("id" nvarchar(255) primary key, "type" nvarchar(100) not null, "payment_intent_id" nvarchar(255), "event_created" datetime2 not null, "received_at" datetime2 default sysutcdatetime() not null);
GO

create table "payment_sync_leases" ("user_id" nvarchar(64) primary key, "holder" nvarchar(64) not null, "expires_at" datetime2 not null);
GO
