-- Generated from shared/sql/migrations/003_identity.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

create table "identity_roles" ("id" nvarchar(32) primary key, "description" nvarchar(200) not null, "permissions" nvarchar(max) not null, "rank" integer not null, "created_at" datetime2 default sysutcdatetime() not null);
GO

insert into "identity_roles" ("id", "description", "permissions", "rank") values (N'user', N'A signed-in customer', N'["reports:create","reports:read","payments:create"]', 0), (N'admin', N'Manages users, sessions and plans; reads the audit log', N'["reports:create","reports:read","payments:create","admin:users:read","admin:users:create","admin:users:update","admin:users:delete","admin:roles:read","admin:roles:grant","admin:audit:read","admin:sessions:read","admin:sessions:revoke","admin:compliance:read"]', 50), (N'super_admin', N'Everything an admin does, and grants the admin and super_admin roles', N'["reports:create","reports:read","payments:create","admin:users:read","admin:users:create","admin:users:update","admin:users:delete","admin:roles:read","admin:roles:grant","admin:audit:read","admin:sessions:read","admin:sessions:revoke","admin:compliance:read","admin:roles:grant-privileged"]', 100);
GO

create table "identity_otp_codes" ("email" nvarchar(320) primary key, "code_hash" nvarchar(64) not null, "attempts" integer default 0 not null, "created_at" datetime2 not null, "expires_at" datetime2 not null, "used_at" datetime2);
GO

create index "ix_identity_otp_expires" on "identity_otp_codes" ("expires_at");
GO

create table "identity_sessions" ("id" nvarchar(64) primary key, "user_id" nvarchar(64) not null, "created_at" datetime2 not null, "last_refreshed_at" datetime2, "expires_at" datetime2 not null, "revoked_at" datetime2, "revoked_reason" nvarchar(64), "ip" nvarchar(64), "user_agent" nvarchar(400));
GO

create index "ix_identity_sessions_user" on "identity_sessions" ("user_id", "created_at");
GO

create index "ix_identity_sessions_created" on "identity_sessions" ("created_at");
GO

create table "identity_refresh_tokens" ("token_hash" nvarchar(64) primary key, "session_id" nvarchar(64) not null, "created_at" datetime2 not null, "expires_at" datetime2 not null, "rotated_at" datetime2);
GO

create index "ix_identity_refresh_session" on "identity_refresh_tokens" ("session_id");
GO

create table "identity_rate_limits" ("bucket" nvarchar(200) primary key, "count" integer not null, "expires_at" datetime2 not null);
GO

create index "ix_identity_rate_limits_expires" on "identity_rate_limits" ("expires_at");
GO

create table "identity_audit_log" ("id" integer identity primary key, "timestamp" datetime2 not null, "actor_type" nvarchar(16) not null check ("actor_type" in ('anonymous', 'user', 'admin', 'service', 'system')), "actor_id" nvarchar(320), "action" nvarchar(64) not null, "target_type" nvarchar(32), "target_id" nvarchar(320), "result" nvarchar(16) not null check ("result" in ('success', 'failure')), "reason" nvarchar(200), "ip" nvarchar(64), "user_agent" nvarchar(400), "request_id" nvarchar(100), "details" nvarchar(max));
GO

create index "ix_identity_audit_time" on "identity_audit_log" ("timestamp");
GO

create index "ix_identity_audit_actor" on "identity_audit_log" ("actor_id", "id");
GO

create index "ix_identity_audit_action" on "identity_audit_log" ("action", "id");
GO

create index "ix_identity_audit_target" on "identity_audit_log" ("target_id", "id");
GO

create index "ix_users_role" on "users" ("role");
GO
