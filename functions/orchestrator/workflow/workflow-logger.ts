import type { Kysely } from 'kysely';
import { type OrchestratorConfig, orchestratorConfig } from '../settings';
import { member } from '../../../shared/platform';
import { DATABASE } from '../../../shared/sql/db';
import type { OrchestratorTables } from '../db/tables';
import { classifyError, messageOf, type Classification } from './error-classification';
import { LogWriter } from './log-writer';
import type { LogRow } from '../db/tables';
import type { Step } from './stages';

export const WORKFLOW_LOGGER_VERSION = '1.0';

export type StepStatus = 'started' | 'completed' | 'failed';
const SYMBOL: Record<StepStatus, string> = { started: '🚀', completed: '✅', failed: '❌' };

/** The console line of every step: message WORKFLOW_<step number>_<STAGE NAME> after a status symbol, level, data { tracking_id, step_name, step_number, status, metadata } and timestamp. */
export interface WorkflowConsoleLine {
  message: string;
  level: 'INFO' | 'ERROR';
  data: { tracking_id: string; step_name: string; step_number: number; status: StepStatus; metadata: Record<string, unknown> };
  timestamp: string;
}

export interface StepOutcome {
  durationMs?: number;
  tokensUsed?: number | null;
  metadata?: Record<string, unknown>;
}

/** Where a logger hands its rows: the shared batch writer, or a run's own pending rows. */
export interface LogSink {
  add(row: LogRow): void;
}

/**
 * The rows of one run not yet in SQL. The runner writes them in the same transaction as the
 * execution's progress, so after a crash the log never lags what the execution says it did.
 */
export class PendingRows implements LogSink {
  private rows: LogRow[] = [];

  add(row: LogRow): void {
    this.rows.push(row);
  }

  /** The rows so far; forget them with `written` once they are committed. */
  peek(): LogRow[] {
    return [...this.rows];
  }

  written(count: number): void {
    this.rows.splice(0, count);
  }
}

/**
 * The platform's one batch writer of log rows (one per instance, like the database pool). Its
 * flushes run on a timer, outside any invocation, so it writes to its own platform's database.
 */
export const WORKFLOW_LOG_WRITER = member(
  'workflow log writer',
  (platform) =>
    new LogWriter({
      database: () => platform.get(DATABASE) as Kysely<OrchestratorTables>,
      clock: platform.clock,
      batchSize: orchestratorConfig(platform).ORCHESTRATOR_LOG_BATCH_SIZE,
      flushIntervalMs: orchestratorConfig(platform).ORCHESTRATOR_LOG_FLUSH_MS,
    }),
  (writer) => writer.close(),
);

const writeStdout = (line: string) => process.stdout.write(line);

/** What a workflow logger reads: LOG_LEVEL, the clock its lines are stamped by, and the batch writer its rows go to by default. */
export interface WorkflowLogContext {
  readonly config: Pick<OrchestratorConfig, 'LOG_LEVEL'>;
  now(): Date;
  readonly logWriter: LogSink;
}

/** INFO step lines follow LOG_LEVEL like every other log line; failures are always written. */
const consoleInfoEnabled = (level: OrchestratorConfig['LOG_LEVEL']) => level === 'debug' || level === 'info';

/**
 * Logs the steps of one execution: each start, completion and failure is one console JSON line
 * (synchronous, always) and one row handed to the batch writer (never awaited here). Failures are
 * classified once, here, into error_pattern and error_source.
 */
export class WorkflowLogger {
  /** Read once per logger (one per execution run), not per line: the path must stay cheap. */
  private readonly infoEnabled: boolean;
  private readonly now: () => Date;

  /** Rows go to `writer` (a run's pending rows), else to the context's batch writer. */
  constructor(
    ctx: WorkflowLogContext,
    readonly trackingId: string,
    private readonly writer: LogSink = ctx.logWriter,
    private readonly writeLine: (line: string) => void = writeStdout,
  ) {
    this.infoEnabled = consoleInfoEnabled(ctx.config.LOG_LEVEL);
    this.now = () => ctx.now();
  }

  start(step: Step, metadata: Record<string, unknown> = {}): void {
    this.record(step, 'started', { metadata });
  }

  complete(step: Step, outcome: StepOutcome = {}): void {
    this.record(step, 'completed', outcome);
  }

  /**
   * A completion the caller commits itself, in the transaction that records the step's progress:
   * `row` goes into that transaction and `announce()` writes the console line once it committed,
   * so neither the log table nor the console ever says a step completed that the execution did not.
   */
  completion(step: Step, outcome: StepOutcome = {}): { row: LogRow; announce: () => void } {
    const { line, row } = this.build(step, 'completed', outcome);
    return { row, announce: () => this.print(line) };
  }

  fail(step: Step, error: unknown, outcome: StepOutcome = {}): Classification {
    const classification = classifyError(error);
    const message = messageOf(error);
    const metadata = { ...outcome.metadata, error_message: message, error_pattern: classification.pattern, error_source: classification.source };
    this.record(step, 'failed', { ...outcome, metadata }, { message, classification, details: errorDetails(error) });
    return classification;
  }

  /**
   * A step that failed because a step inside it failed (a report section inside AI_ORCHESTRATION):
   * logged failed with the inner step's message, unclassified, and `metadata.failed_step` naming
   * the inner step. The inner step's row carries the classification, so each failure counts once
   * in the error figures and among the failed steps.
   */
  failedWithin(step: Step, inner: Step, message: string, outcome: StepOutcome = {}): void {
    const metadata = { ...outcome.metadata, failed_step: inner.name, error_message: message };
    this.record(step, 'failed', { ...outcome, metadata }, { message, details: null });
  }

  private record(step: Step, status: StepStatus, outcome: StepOutcome, failure?: Failure): void {
    const { line, row } = this.build(step, status, outcome, failure);
    this.print(line);
    try {
      this.writer.add(row);
    } catch {
      // The writer only appends to memory; nothing here may interrupt the workflow either.
    }
  }

  private build(step: Step, status: StepStatus, outcome: StepOutcome, failure?: Failure): { line: WorkflowConsoleLine; row: LogRow } {
    const timestamp = this.now().toISOString();
    const metadata = {
      ...outcome.metadata,
      ...(outcome.durationMs !== undefined ? { duration_ms: outcome.durationMs } : {}),
      ...(outcome.tokensUsed ? { tokens_used: outcome.tokensUsed } : {}),
    };
    const line: WorkflowConsoleLine = {
      message: `${SYMBOL[status]} WORKFLOW_${step.number}_${step.name}`,
      level: status === 'failed' ? 'ERROR' : 'INFO',
      data: { tracking_id: this.trackingId, step_name: step.name, step_number: step.number, status, metadata },
      timestamp,
    };
    const row: LogRow = {
      tracking_id: this.trackingId,
      step_name: step.name,
      step_number: step.number,
      status,
      duration_ms: outcome.durationMs ?? null,
      tokens_used: outcome.tokensUsed ?? null,
      error_message: failure?.message ?? null,
      metadata: safeJson(metadata),
      timestamp,
      error_pattern: failure?.classification?.pattern ?? null,
      error_source: failure?.classification?.source ?? null,
      error_details: failure?.details ?? null,
    };
    return { line, row };
  }

  private print(line: WorkflowConsoleLine): void {
    try {
      if (line.level === 'ERROR' || this.infoEnabled) this.writeLine(JSON.stringify(line) + '\n');
    } catch {
      // Console logging must never fail the workflow (a closed stdout, an unserialisable value).
    }
  }
}

/** A failure as logged; without a classification for a failure that only passes on an inner step's. */
type Failure = { message: string; classification?: Classification; details: string | null };

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return '{}';
  }
}

function errorDetails(error: unknown): string {
  const e = error as { name?: string; code?: unknown; status?: unknown; stack?: string; cause?: unknown } | null;
  const cause = e?.cause as { name?: string; message?: string; code?: unknown; status?: unknown } | undefined;
  return safeJson({
    name: e?.name,
    code: e?.code,
    status: e?.status,
    cause: cause ? { name: cause.name, message: cause.message, code: cause.code, status: cause.status } : undefined,
    stack: e?.stack?.split('\n').slice(0, 6).join('\n'),
  });
}
