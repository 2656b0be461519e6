-- Generated from shared/sql/migrations/022_orchestrator_notifications.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

create table "orchestrator_notify_users" ("user_id" nvarchar(64) primary key, "email" nvarchar(320), "email_enabled" bit default 1 not null, "updated_at" datetime2 not null);
GO

create table "orchestrator_notify_events" ("id" nvarchar(40) primary key, "tracking_id" nvarchar(64) not null, "user_id" nvarchar(64) not null, "plan" nvarchar(32) not null, "type" nvarchar(32) not null check ("type" in ('report.completed', 'report.failed')), "data" nvarchar(max) not null, "created_at" datetime2 not null, "state" nvarchar(16) not null check ("state" in ('pending', 'done')), "version" integer default 0 not null, "next_at" datetime2 not null, "webhooks_done" bit default 0 not null, "email_state" nvarchar(16) not null check ("email_state" in ('pending', 'sent', 'skipped', 'failed')), "email_attempts" integer default 0 not null, "email_error" nvarchar(500));
GO

create index "ix_notify_events_due" on "orchestrator_notify_events" ("state", "next_at");
GO

create index "ix_notify_events_tracking" on "orchestrator_notify_events" ("tracking_id");
GO

create table "orchestrator_webhook_endpoints" ("id" nvarchar(40) primary key, "user_id" nvarchar(64) not null, "url" nvarchar(2048) not null, "description" nvarchar(200), "secret" nvarchar(100) not null, "previous_secret" nvarchar(100), "previous_secret_expires_at" datetime2, "created_at" datetime2 not null, "updated_at" datetime2 not null);
GO

create index "ix_webhook_endpoints_user" on "orchestrator_webhook_endpoints" ("user_id", "created_at");
GO

create table "orchestrator_webhook_deliveries" ("id" nvarchar(40) primary key, "endpoint_id" nvarchar(40) not null, "user_id" nvarchar(64) not null, "event_id" nvarchar(40) not null, "event_type" nvarchar(32) not null, "tracking_id" nvarchar(64) not null, "payload" nvarchar(max) not null, "status" nvarchar(16) not null check ("status" in ('pending', 'succeeded', 'failed')), "attempts" integer default 0 not null, "window_attempts" integer default 0 not null, "next_attempt_at" datetime2, "window_started_at" datetime2 not null, "last_status_code" integer, "last_error" nvarchar(500), "created_at" datetime2 not null, "updated_at" datetime2 not null, constraint "uq_webhook_deliveries_event_endpoint" unique ("event_id", "endpoint_id"));
GO

create index "ix_webhook_deliveries_due" on "orchestrator_webhook_deliveries" ("status", "next_attempt_at");
GO

create index "ix_webhook_deliveries_endpoint" on "orchestrator_webhook_deliveries" ("endpoint_id", "created_at");
GO

create table "orchestrator_webhook_attempts" ("id" integer identity primary key, "delivery_id" nvarchar(40) not null, "attempt" integer not null, "at" datetime2 not null, "duration_ms" integer not null, "status_code" integer, "response_excerpt" nvarchar(500), "error" nvarchar(500), "outcome" nvarchar(16) not null check ("outcome" in ('succeeded', 'failed')));
GO

create index "ix_webhook_attempts_delivery" on "orchestrator_webhook_attempts" ("delivery_id", "id");
GO
