-- Generated from shared/sql/migrations/021_report_shares.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

create table "orchestrator_report_shares" ("share_id" nvarchar(40) primary key, "tracking_id" nvarchar(64) not null, "owner_id" nvarchar(64) not null, "token_hash" nvarchar(64) not null unique, "created_at" datetime2 not null, "expires_at" datetime2 not null, "revoked_at" datetime2, "views" integer not null, "last_viewed_at" datetime2);
GO

create index "ix_report_shares_tracking" on "orchestrator_report_shares" ("tracking_id", "created_at");
GO
