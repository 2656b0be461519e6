-- Generated from shared/sql/migrations/001_platform.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

create table "users" ("id" nvarchar(64) primary key, "email" nvarchar(320) not null unique, "role" nvarchar(32) default 'user' not null, "permissions" nvarchar(max) default '[]' not null, "plan" nvarchar(16) default 'free' not null check ("plan" in ('free', 'pro', 'enterprise')), "status" nvarchar(16) default 'active' not null check ("status" in ('active', 'inactive')), "created_at" datetime2 default sysutcdatetime() not null, "updated_at" datetime2 default sysutcdatetime() not null);
GO

create table "orchestrator_processing_log" ("id" integer identity primary key, "tracking_id" nvarchar(100) not null, "step_name" nvarchar(100), "step_number" integer, "status" nvarchar(32) not null, "duration_ms" integer, "tokens_used" integer, "error_message" nvarchar(max), "metadata" nvarchar(max), "timestamp" datetime2 default sysutcdatetime() not null);
GO

create index "ix_processing_log_tracking" on "orchestrator_processing_log" ("tracking_id", "id");
GO

create index "ix_processing_log_timestamp" on "orchestrator_processing_log" ("timestamp");
GO
