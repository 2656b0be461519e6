-- SQLite equivalent of legacy-processing-log.sql (local data directories). SQLite cannot drop a
-- NOT NULL constraint in place, so the table is rebuilt in one transaction, keeping every row
-- and carrying processing_step into step_name. Run once on a legacy table.
BEGIN;
CREATE TABLE orchestrator_processing_log_upgraded (
  id integer PRIMARY KEY AUTOINCREMENT,
  tracking_id text NOT NULL,
  step_name text,
  step_number integer,
  status text NOT NULL,
  duration_ms integer,
  tokens_used integer,
  error_message text,
  metadata text,
  timestamp text NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  error_pattern text,
  error_source text,
  error_details text,
  processing_step text
);
INSERT INTO orchestrator_processing_log_upgraded (id, tracking_id, step_name, status, error_message, metadata, timestamp, processing_step)
  SELECT id, tracking_id, processing_step, status, error_message, metadata, timestamp, processing_step FROM orchestrator_processing_log;
DROP TABLE orchestrator_processing_log;
ALTER TABLE orchestrator_processing_log_upgraded RENAME TO orchestrator_processing_log;
CREATE INDEX ix_processing_log_tracking ON orchestrator_processing_log (tracking_id, id);
CREATE INDEX ix_processing_log_timestamp ON orchestrator_processing_log (timestamp);
CREATE INDEX ix_processing_log_source_time ON orchestrator_processing_log (error_source, timestamp);
CREATE INDEX ix_processing_log_pattern_time ON orchestrator_processing_log (error_pattern, timestamp);
CREATE INDEX ix_processing_log_status_time ON orchestrator_processing_log (status, timestamp);
COMMIT;
