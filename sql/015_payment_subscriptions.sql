-- Generated from shared/sql/migrations/015_payment_subscriptions.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

alter table "payment_payments" add "source" nvarchar(16) check ("source" in ('one_off', 'subscription'));
GO

alter table "payment_payments" add "period_end" datetime2;
GO

alter table "payment_payments" add "invoice_id" nvarchar(255);
GO

alter table "payment_payments" add "subscription_id" nvarchar(255);
GO

create table "payment_customers" ("user_id" nvarchar(64) primary key, "customer_id" nvarchar(255) not null unique, "email" nvarchar(320) not null, "created_at" datetime2 not null);
GO

create table "payment_subscriptions" ("id" nvarchar(255) primary key, "user_id" nvarchar(64) not null, "customer_id" nvarchar(255) not null, "plan_type" nvarchar(32) not null, "status" nvarchar(32) not null, "current_period_end" datetime2, "cancel_at_period_end" integer not null, "past_due_since" datetime2, "event_at" datetime2 not null, "created_at" datetime2 not null, "updated_at" datetime2 not null);
GO

create index "ix_payment_subscriptions_user" on "payment_subscriptions" ("user_id", "created_at");
GO

create index "ix_payment_subscriptions_status" on "payment_subscriptions" ("status");
GO
