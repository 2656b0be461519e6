import type { LogRow, OrchestratorTables } from '../db/tables';
import type { Kysely } from 'kysely';
import { createLogger, type Logger } from '../../../shared/logging';
import type { Clock } from '../../../shared/platform';
import { classifyError, messageOf } from './error-classification';

export interface LogWriterOptions {
  /** The database, resolved at each flush so a host restart or a test can point it elsewhere. */
  database: () => Kysely<OrchestratorTables>;
  /** The time its backoff, its missing-table pause and the rows it stamps are reckoned in (the platform's clock). */
  clock: Clock;
  batchSize: number;
  flushIntervalMs: number;
  /** Rows kept for retry while the database fails; beyond it the oldest are dropped (and counted). */
  maxBufferedRows?: number;
  /** While the table is missing rows are not kept; the table is looked for again after this long. */
  missingTableRecheckMs?: number;
  log?: Logger;
}

export interface LogWriterStats {
  pending: number;
  persisted: number;
  dropped: number;
  failedFlushes: number;
  tableMissing: boolean;
  lastError: string | null;
}

const MAX_BACKOFF_MS = 30_000;

/**
 * The SQL side, loaded with the first flush: the writer is made by the health check too (it reads
 * the writer's counts), which on a cold start's first probe loads no query builder.
 */
const logRows = () => require('./log-rows') as typeof import('./log-rows');

/**
 * Writes workflow log rows in batches off the workflow's path. `add` only appends to memory; a
 * timer or a full batch writes them. A failing database never reaches the caller: the failure is
 * logged, the rows are retried with backoff (bounded), and a missing table switches the logger to
 * console-only until the table appears.
 */
export class LogWriter {
  private buffer: LogRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private backoffMs = 0;
  private retryAt = 0;
  private missingUntil = 0;
  private readonly log: Logger;
  private readonly stats = { persisted: 0, dropped: 0, failedFlushes: 0, lastError: null as string | null };

  constructor(private readonly options: LogWriterOptions) {
    this.log = options.log ?? createLogger({ component: 'workflow-log-writer' });
  }

  private nowMs(): number {
    return this.options.clock.now().getTime();
  }

  add(row: LogRow): void {
    if (this.tableMissing()) {
      this.stats.dropped++;
      return;
    }
    this.buffer.push(row);
    const max = this.options.maxBufferedRows ?? 10_000;
    if (this.buffer.length > max) {
      this.stats.dropped += this.buffer.length - max;
      this.buffer.splice(0, this.buffer.length - max);
    }
    if (this.buffer.length >= this.options.batchSize && this.nowMs() >= this.retryAt) this.schedule(0);
    else this.schedule(Math.max(this.options.flushIntervalMs, this.retryAt - this.nowMs()));
  }

  private schedule(delayMs: number): void {
    if (this.timer && delayMs > 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }

  /** Writes everything buffered now (end of an invocation, shutdown, tests). Never throws. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeAll());
    return this.flushing;
  }

  getStats(): LogWriterStats {
    return { pending: this.buffer.length, ...this.stats, tableMissing: this.tableMissing() };
  }

  private async writeAll(): Promise<void> {
    while (this.buffer.length) {
      const batch = this.buffer.slice(0, this.options.batchSize);
      try {
        await this.insert(batch);
      } catch (error) {
        this.onFailure(batch.length, error);
        return;
      }
      this.buffer.splice(0, batch.length);
      this.stats.persisted += batch.length;
      this.backoffMs = 0;
      this.retryAt = 0;
    }
  }

  private async insert(rows: LogRow[]): Promise<void> {
    await this.options
      .database()
      .transaction()
      .execute((trx) => logRows().insertLogRows(trx, rows, this.options.clock.now()));
  }

  /** Whether the log table was found missing recently: rows are then not written, only the console lines. */
  tableMissing(): boolean {
    return this.nowMs() < this.missingUntil;
  }

  /** Rows that could not be written because the log table is missing (here, or in a caller's transaction). */
  reportMissingTable(error: unknown, droppedRows: number): void {
    this.stats.dropped += droppedRows;
    this.stats.lastError = messageOf(error);
    const wasMissing = this.tableMissing();
    this.missingUntil = this.nowMs() + (this.options.missingTableRecheckMs ?? 60_000);
    if (!wasMissing)
      this.log.warn('workflow log table is missing or incompatible; logging to the console only', {
        error_pattern: 'SCHEMA_MISSING',
        error: this.stats.lastError,
      });
  }

  private onFailure(rows: number, error: unknown): void {
    const { pattern } = classifyError(error);
    this.stats.failedFlushes++;
    this.stats.lastError = messageOf(error);
    if (pattern === 'SCHEMA_MISSING') {
      const dropped = this.buffer.length;
      this.buffer = [];
      this.reportMissingTable(error, dropped);
      return;
    }
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs ? this.backoffMs * 2 : 1000);
    this.retryAt = this.nowMs() + this.backoffMs;
    this.log.error('workflow log rows not persisted; will retry', {
      rows,
      buffered: this.buffer.length,
      retryInMs: this.backoffMs,
      error_pattern: pattern,
      error: this.stats.lastError,
    });
    this.schedule(this.backoffMs);
  }

  /** Stops the timer and writes what is left (service shutdown). */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.retryAt = 0;
    await this.flush();
  }
}
