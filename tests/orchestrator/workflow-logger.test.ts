import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LogWriter } from '../../functions/orchestrator/workflow/log-writer';
import { STAGES } from '../../functions/orchestrator/workflow/stages';
import { WorkflowLogger, type LogSink, type WorkflowConsoleLine, type WorkflowLogContext } from '../../functions/orchestrator/workflow/workflow-logger';
import { migrateToLatest, sqliteKysely } from '../../shared/sql/db';
import { MIGRATIONS } from '../../functions/migrations';
import { createLogger } from '../../shared/logging';
import { SYSTEM_CLOCK } from '../../shared/platform';

/** What a logger reads outside any host: INFO lines on, the system clock, its rows to `writer`. */
const logContext = (writer: LogSink): WorkflowLogContext => ({ config: { LOG_LEVEL: 'info' }, now: () => SYSTEM_CLOCK.now(), logWriter: writer });

/** A real SQLite database in a temp file; `migrated` runs the platform migrations on it. */
async function sqlite(migrated: boolean) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wflog-'));
  const file = path.join(dir, 'db.sqlite');
  const kysely = sqliteKysely(new Database(file));
  if (migrated) await migrateToLatest(kysely, MIGRATIONS);
  return {
    file,
    kysely,
    cleanup: async () => {
      await kysely.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function collector() {
  const lines: WorkflowConsoleLine[] = [];
  return { lines, write: (line: string) => void lines.push(JSON.parse(line)) };
}

/** Records what the writer logs about itself (warnings and errors), instead of printing it. */
function selfLog() {
  const entries: { level: string; message: string }[] = [];
  const logger = createLogger();
  return {
    entries,
    log: {
      ...logger,
      warn: (message: string) => void entries.push({ level: 'warn', message }),
      error: (message: string) => void entries.push({ level: 'error', message }),
    },
  };
}

describe('workflow logger', () => {
  it('writes one console line and one row per event, classifying failures when logged', async () => {
    const database = await sqlite(true);
    try {
      const writer = new LogWriter({ database: () => database.kysely, clock: SYSTEM_CLOCK, batchSize: 100, flushIntervalMs: 10_000 });
      const out = collector();
      const logger = new WorkflowLogger(logContext(writer), 't-1', writer, out.write);
      logger.start(STAGES.AI_ORCHESTRATION, { provider: 'openai' });
      const classification = logger.fail(STAGES.AI_ORCHESTRATION, Object.assign(new Error('429 Rate limit reached for requests'), { status: 429 }), {
        durationMs: 12,
      });
      expect(classification).toEqual({ pattern: 'RATE_LIMIT', source: null });
      expect(out.lines.map((l) => [l.message, l.level, l.data.status])).toEqual([
        ['🚀 WORKFLOW_4_AI_ORCHESTRATION', 'INFO', 'started'],
        ['❌ WORKFLOW_4_AI_ORCHESTRATION', 'ERROR', 'failed'],
      ]);
      // Nothing is written until the batch is flushed: logging does not wait for the database.
      expect(await database.kysely.selectFrom('orchestrator_processing_log').selectAll().execute()).toHaveLength(0);
      await writer.flush();
      const rows = await database.kysely.selectFrom('orchestrator_processing_log').selectAll().orderBy('id').execute();
      expect(rows.map((r) => [r.step_number, r.step_name, r.status, r.error_pattern, r.duration_ms])).toEqual([
        [4, 'AI_ORCHESTRATION', 'started', null, null],
        [4, 'AI_ORCHESTRATION', 'failed', 'RATE_LIMIT', 12],
      ]);
      expect(rows[1].error_message).toBe('429 Rate limit reached for requests');
      expect(JSON.parse(rows[1].error_details!)).toMatchObject({ status: 429 });
    } finally {
      await database.cleanup();
    }
  });

  it('keeps working on the console alone when the table is missing', async () => {
    const database = await sqlite(false);
    try {
      const self = selfLog();
      const writer = new LogWriter({ database: () => database.kysely, clock: SYSTEM_CLOCK, batchSize: 100, flushIntervalMs: 10_000, log: self.log });
      const out = collector();
      const logger = new WorkflowLogger(logContext(writer), 't-missing', writer, out.write);
      logger.start(STAGES.WORKFLOW_START);
      await writer.flush();
      expect(writer.getStats()).toMatchObject({ tableMissing: true, persisted: 0, pending: 0 });
      expect(self.entries).toEqual([{ level: 'warn', message: expect.stringContaining('missing') }]);
      // Later events still reach the console; rows are not piled up while the table is absent.
      logger.complete(STAGES.WORKFLOW_START, { durationMs: 1 });
      logger.start(STAGES.PROFILE_RETRIEVAL);
      await writer.flush();
      expect(out.lines).toHaveLength(3);
      expect(writer.getStats()).toMatchObject({ pending: 0, dropped: 3 });
      expect(self.entries).toHaveLength(1);
    } finally {
      await database.cleanup();
    }
  });

  it('survives a failing database: calls return at once, the failure is logged, rows are retried when it recovers', async () => {
    const healthy = await sqlite(true);
    // The same file opened read-only: every write fails with SQLITE_READONLY.
    const readonly = sqliteKysely(new Database(healthy.file, { readonly: true }));
    try {
      let current = readonly;
      const self = selfLog();
      const writer = new LogWriter({ database: () => current, clock: SYSTEM_CLOCK, batchSize: 2, flushIntervalMs: 10_000, log: self.log });
      const out = collector();
      const logger = new WorkflowLogger(logContext(writer), 't-failing', writer, out.write);
      const results = [logger.start(STAGES.WORKFLOW_START), logger.complete(STAGES.WORKFLOW_START, { durationMs: 3 }), logger.start(STAGES.PROFILE_RETRIEVAL)];
      // Synchronous: nothing for the workflow to await.
      expect(results).toEqual([undefined, undefined, undefined]);
      await writer.flush();
      expect(self.entries[0]).toEqual({ level: 'error', message: 'workflow log rows not persisted; will retry' });
      expect(writer.getStats()).toMatchObject({ pending: 3, persisted: 0, failedFlushes: 1, tableMissing: false });
      expect(writer.getStats().lastError).toMatch(/readonly/);
      expect(out.lines).toHaveLength(3);

      current = healthy.kysely;
      await writer.close();
      expect(writer.getStats()).toMatchObject({ pending: 0, persisted: 3 });
      const rows = await healthy.kysely.selectFrom('orchestrator_processing_log').select(['step_number', 'status']).orderBy('id').execute();
      expect(rows).toEqual([
        { step_number: 0, status: 'started' },
        { step_number: 0, status: 'completed' },
        { step_number: 1, status: 'started' },
      ]);
    } finally {
      await readonly.destroy();
      await healthy.cleanup();
    }
  });

  it('console logging never throws, even when stdout does', () => {
    const writer = new LogWriter({
      database: () => {
        throw new Error('no database');
      },
      clock: SYSTEM_CLOCK,
      batchSize: 100,
      flushIntervalMs: 10_000,
    });
    const logger = new WorkflowLogger(logContext(writer), 't-stdout', writer, () => {
      throw new Error('EPIPE');
    });
    expect(() => logger.fail(STAGES.STORAGE_PROCESSING, new Error('boom'))).not.toThrow();
  });
});
