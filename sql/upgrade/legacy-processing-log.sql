-- Upgrades a legacy orchestrator_processing_log (one with processing_step and without the
-- workflow logger columns) to what the workflow logger writes: spec 2.4 plus the failure
-- classification of migration 002. Idempotent: every change checks first. Azure SQL / SQL Server.
-- Check before and after with GET /orchestrator/health?schema=check (admin).

IF COL_LENGTH('dbo.orchestrator_processing_log', 'step_name') IS NULL
  ALTER TABLE [dbo].[orchestrator_processing_log] ADD [step_name] nvarchar(100) NULL;
IF COL_LENGTH('dbo.orchestrator_processing_log', 'step_number') IS NULL
  ALTER TABLE [dbo].[orchestrator_processing_log] ADD [step_number] int NULL;
IF COL_LENGTH('dbo.orchestrator_processing_log', 'duration_ms') IS NULL
  ALTER TABLE [dbo].[orchestrator_processing_log] ADD [duration_ms] int NULL;
IF COL_LENGTH('dbo.orchestrator_processing_log', 'tokens_used') IS NULL
  ALTER TABLE [dbo].[orchestrator_processing_log] ADD [tokens_used] int NULL;
IF COL_LENGTH('dbo.orchestrator_processing_log', 'error_message') IS NULL
  ALTER TABLE [dbo].[orchestrator_processing_log] ADD [error_message] nvarchar(max) NULL;
IF COL_LENGTH('dbo.orchestrator_processing_log', 'metadata') IS NULL
  ALTER TABLE [dbo].[orchestrator_processing_log] ADD [metadata] nvarchar(max) NULL;
IF COL_LENGTH('dbo.orchestrator_processing_log', 'error_pattern') IS NULL
  ALTER TABLE [dbo].[orchestrator_processing_log] ADD [error_pattern] nvarchar(32) NULL;
IF COL_LENGTH('dbo.orchestrator_processing_log', 'error_source') IS NULL
  ALTER TABLE [dbo].[orchestrator_processing_log] ADD [error_source] nvarchar(32) NULL;
IF COL_LENGTH('dbo.orchestrator_processing_log', 'error_details') IS NULL
  ALTER TABLE [dbo].[orchestrator_processing_log] ADD [error_details] nvarchar(max) NULL;
GO

-- The logger never writes processing_step: keep its history, stop it from rejecting inserts,
-- and carry its values into step_name.
IF COL_LENGTH('dbo.orchestrator_processing_log', 'processing_step') IS NOT NULL
BEGIN
  EXEC('UPDATE [dbo].[orchestrator_processing_log] SET [step_name] = [processing_step] WHERE [step_name] IS NULL');
  EXEC('ALTER TABLE [dbo].[orchestrator_processing_log] ALTER COLUMN [processing_step] nvarchar(100) NULL');
END
GO

IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = 'ix_processing_log_tracking' AND object_id = OBJECT_ID('dbo.orchestrator_processing_log'))
  CREATE INDEX [ix_processing_log_tracking] ON [dbo].[orchestrator_processing_log] ([tracking_id], [id]);
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = 'ix_processing_log_timestamp' AND object_id = OBJECT_ID('dbo.orchestrator_processing_log'))
  CREATE INDEX [ix_processing_log_timestamp] ON [dbo].[orchestrator_processing_log] ([timestamp]);
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = 'ix_processing_log_source_time' AND object_id = OBJECT_ID('dbo.orchestrator_processing_log'))
  CREATE INDEX [ix_processing_log_source_time] ON [dbo].[orchestrator_processing_log] ([error_source], [timestamp]);
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = 'ix_processing_log_pattern_time' AND object_id = OBJECT_ID('dbo.orchestrator_processing_log'))
  CREATE INDEX [ix_processing_log_pattern_time] ON [dbo].[orchestrator_processing_log] ([error_pattern], [timestamp]);
IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = 'ix_processing_log_status_time' AND object_id = OBJECT_ID('dbo.orchestrator_processing_log'))
  CREATE INDEX [ix_processing_log_status_time] ON [dbo].[orchestrator_processing_log] ([status], [timestamp]);
GO
