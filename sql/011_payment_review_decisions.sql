-- Generated from shared/sql/migrations/011_payment_review_decisions.ts by `npm run sql:generate`. Do not edit by hand.

SET QUOTED_IDENTIFIER ON;
GO

create table "payment_review_decisions" ("id" integer identity primary key, "payment_intent_id" nvarchar(255) not null, "user_id" nvarchar(64) not null, "plan" nvarchar(16), "decision" nvarchar(16) not null check ("decision" in ('approved', 'rejected')), "reason" nvarchar(500) not null, "held_for" nvarchar(max), "actor_id" nvarchar(64) not null, "actor_email" nvarchar(320) not null, "decided_at" datetime2 not null, "request_id" nvarchar(100));
GO

create index "ix_payment_review_decisions_payment" on "payment_review_decisions" ("payment_intent_id", "id");
GO
