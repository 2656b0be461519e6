import type { Updateable } from 'kysely';
import { validate } from '../../../shared/http/body';
import type { AiProvider } from '../ai';
import type { OrchestratorContext } from '../context';
import type { ExecutionsTable } from '../db/tables';
import { analyse, type ReportAnalysis } from '../report/analysis';
import type { ReportDocument, WrittenSection } from '../report/pdf';
import type { ReportAsset } from '../report/report-store';
import type { ReportRequest } from '../report/submission';
import { fetchVisuals } from '../report/visuals';
import { REPORT_REQUEST } from '../schemas';
import { DependencyError, messageOf, type Classification } from './error-classification';
import { claimExecution, completeExecution, failExecution, findExecution, holdsExecution, recordProgress, type Execution, type RunLease } from './executions';
import { PLAN_REPORTS, sectionsFor, STAGES, stepsFor, type Step } from './stages';
import { PendingRows, WorkflowLogger } from './workflow-logger';
import { messages } from '../i18n/catalogue';

// The document libraries (the Typst compiler and its fonts, pptxgenjs) load with the first report
// rendered, not with the service: the admin, status and health routes never need them.
const pdf = () => require('../report/pdf') as typeof import('../report/pdf');
const presentation = () => require('../report/presentation') as typeof import('../report/presentation');
const pageData = () => require('../share/page-data') as typeof import('../share/page-data');

export interface StepResult {
  step_number: number;
  step_name: string;
  status: 'completed' | 'failed';
  duration_ms: number;
  tokens_used: number | null;
}

export interface RunResult {
  trackingId: string;
  /** skipped: nothing to do (unknown, already finished, or another run holds it). */
  outcome: 'completed' | 'failed' | 'skipped';
  reason?: string;
  steps: StepResult[];
  totalSteps: number;
  totalDurationMs: number;
}

/**
 * The run no longer holds the execution (an administrator cancelled or retried it, or another run
 * took it over after its lease lapsed): the run ends without writing anything more.
 */
class RunStopped extends Error {}

/** The reason a stopped run answers. */
export const RUN_STOPPED = 'this run no longer holds the execution (cancelled, retried or taken over)';

class StepFailed extends Error {
  constructor(
    readonly step: Step,
    readonly error: unknown,
    readonly classification: Classification,
  ) {
    super(messageOf(error));
  }
}

interface StepWork<T> {
  value: T;
  tokensUsed?: number | null;
  metadata?: Record<string, unknown>;
  /** Extra execution columns written with this step's progress. */
  columns?: Updateable<ExecutionsTable>;
  /** WORKFLOW_COMPLETE: the stored report files the completed execution links to. */
  assets?: ReportAsset[];
}

const slug = (name: string) =>
  name
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60) || 'company';

/** One run of one execution through every stage, WORKFLOW_START to WORKFLOW_COMPLETE. */
class Run {
  readonly results: StepResult[] = [];
  private completed = 0;
  private readonly steps: Step[];

  /** Log rows of this run not yet committed: they go into SQL with the progress that follows them. */
  readonly pending = new PendingRows();
  private readonly logger: WorkflowLogger;
  /** What every write of this run is compared with: the attempt its claim took. */
  readonly lease: RunLease;

  constructor(
    private readonly ctx: OrchestratorContext,
    private readonly execution: Execution,
    private readonly ai: AiProvider,
  ) {
    this.steps = stepsFor(execution.plan);
    this.logger = new WorkflowLogger(ctx, execution.tracking_id, this.pending);
    this.lease = { trackingId: execution.tracking_id, attempt: execution.attempts };
  }

  get totalSteps(): number {
    return this.steps.length;
  }

  /**
   * Runs one step. Its completion row is committed in one transaction with the execution's
   * progress (or, for WORKFLOW_COMPLETE, with the completion itself), together with the rows logged
   * since the last commit; a failed commit is this step's failure. Until WORKFLOW_COMPLETE flips the
   * status, progress stays below 100.
   */
  private async step<T>(step: Step, work: () => Promise<StepWork<T>>, startMetadata: Record<string, unknown> = {}): Promise<T> {
    this.logger.start(step, startMetadata);
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const outcome = await work();
      const durationMs = elapsed();
      const completion = this.logger.completion(step, { durationMs, tokensUsed: outcome.tokensUsed ?? null, metadata: outcome.metadata });
      const rows = [...this.pending.peek(), completion.row];
      const progress = Math.min(99, Math.round(((this.completed + 1) / this.steps.length) * 100));
      const written =
        step === STAGES.WORKFLOW_COMPLETE
          ? await completeExecution(this.ctx, this.lease, this.execution.started_at ?? this.ctx.now(), outcome.assets ?? [], rows)
          : await recordProgress(this.ctx, this.lease, step, progress, outcome.columns ?? {}, rows);
      if (!written) throw new RunStopped();
      this.pending.written(rows.length - 1);
      completion.announce();
      this.completed++;
      this.results.push({
        step_number: step.number,
        step_name: step.name,
        status: 'completed',
        duration_ms: durationMs,
        tokens_used: outcome.tokensUsed ?? null,
      });
      return outcome.value;
    } catch (error) {
      if (error instanceof RunStopped) throw error;
      const durationMs = elapsed();
      const inner = error instanceof StepFailed ? error : undefined;
      if (inner) this.logger.failedWithin(step, inner.step, inner.message, { durationMs });
      const classification = inner ? inner.classification : this.logger.fail(step, error, { durationMs });
      this.results.push({ step_number: step.number, step_name: step.name, status: 'failed', duration_ms: durationMs, tokens_used: null });
      throw inner ?? new StepFailed(step, error, classification);
    }
  }

  async execute(): Promise<void> {
    const ex = this.execution;
    await this.step(STAGES.WORKFLOW_START, async () => ({
      value: undefined,
      metadata: { attempt: ex.attempts, plan: ex.plan, total_steps: this.steps.length },
    }));

    const request = await this.step(STAGES.PROFILE_RETRIEVAL, async () => {
      const submission = validate<ReportRequest>(REPORT_REQUEST, JSON.parse(ex.submission), 'stored submission');
      return {
        value: submission,
        metadata: { company_name: submission.company_name, industry_id: submission.industry_id, profile_fields: Object.keys(submission.profile) },
      };
    });

    await this.step(STAGES.STATUS_UPDATE, async () => ({
      value: undefined,
      metadata: { processing_status: 'processing', health_status: 'HEALTHY' },
      columns: { health_status: 'HEALTHY' },
    }));

    const analysis = await this.step(STAGES.DATA_PREPARATION, async () => {
      const value = analyse(request);
      return { value, metadata: { years: value.years.length, cagr_pct: value.cagrPct, trend: value.trend } };
    });

    const sections = await this.step(
      STAGES.AI_ORCHESTRATION,
      async () => {
        const written: WrittenSection[] = [];
        let tokens = 0;
        for (const section of sectionsFor(ex.plan)) {
          const draft = await this.step(section, async () => {
            const value = await this.ai.writeSection(section, analysis);
            const characters = [...value.content.paragraphs, ...value.content.bullets].reduce((n, text) => n + text.length, 0);
            return {
              value,
              tokensUsed: value.tokensUsed,
              metadata: {
                provider: this.ai.name,
                model: value.model,
                characters,
                ...(value.structuredOutput ? { structured_output: value.structuredOutput } : {}),
              },
            };
          });
          tokens += draft.tokensUsed ?? 0;
          written.push({
            id: section.id,
            title: messages(analysis.locale).t(`section.${section.id}`),
            content: draft.content,
            model: draft.model,
            structuredOutput: draft.structuredOutput,
          });
        }
        return { value: written, tokensUsed: tokens || null, metadata: { provider: this.ai.name, sections: written.length } };
      },
      { provider: this.ai.name, sections: sectionsFor(ex.plan).length },
    );

    const { files, page } = await this.step(STAGES.PDF_ENHANCEMENT, () => this.render(ex, analysis, sections));

    const assets = await this.step(STAGES.STORAGE_PROCESSING, async () => {
      // Files are not in SQL: a run that no longer holds the execution uploads none (and its attempt in the blob name keeps a late upload off the files of the run that does).
      if (!(await holdsExecution(this.ctx, this.lease))) throw new RunStopped();
      const reports = this.ctx.reports;
      const stored: ReportAsset[] = [];
      for (const file of files) stored.push(await reports.store(this.lease, file.asset, file.content));
      // The shared page's data goes beside the files it shows (the same attempt's folder).
      await reports.storePage(this.lease, page);
      return {
        value: stored,
        metadata: { container: reports.container, blobs: stored.map((a) => a.blob), bytes: stored.reduce((n, a) => n + a.size, 0) },
        columns: { assets: JSON.stringify(stored) },
      };
    });

    await this.step(STAGES.WORKFLOW_COMPLETE, async () => ({ value: undefined, assets, metadata: { processing_status: 'completed', assets: assets.length } }));
  }

  private async render(
    ex: Execution,
    analysis: ReportAnalysis,
    sections: WrittenSection[],
  ): Promise<StepWork<{ files: { asset: Omit<ReportAsset, 'blob' | 'size'>; content: Buffer }[]; page: Buffer }>> {
    const visuals = await fetchVisuals(this.ctx.visual, analysis, { presentation: PLAN_REPORTS[ex.plan].presentation });
    const document: ReportDocument = {
      trackingId: ex.tracking_id,
      plan: ex.plan,
      generatedAt: this.ctx.now(),
      analysis,
      sections,
      visuals,
      offline: this.ai.offline,
    };
    const name = slug(analysis.companyName);
    const rendered = await pdf().renderReportPdf(this.ctx, document);
    const files: { asset: Omit<ReportAsset, 'blob' | 'size'>; content: Buffer }[] = [
      { asset: { kind: 'pdf', fileName: `${name}-report.pdf`, contentType: 'application/pdf' }, content: rendered.bytes },
    ];
    if (PLAN_REPORTS[ex.plan].presentation) {
      files.push({
        asset: {
          kind: 'presentation',
          fileName: `${name}-presentation.pptx`,
          contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
        },
        content: await presentation().renderPresentation(document),
      });
    }
    // Charts the typesetter refused count as visuals the report went without.
    const visualsStatus = rendered.chartsDropped ? (visuals.infographic ? 'partial' : 'skipped') : visuals.status;
    const visualsError = [visuals.error, rendered.chartsDropped].filter(Boolean).join('; ') || null;
    const page = Buffer.from(JSON.stringify(pageData().pageDataOf(document, rendered.chartsDropped !== null)));
    return {
      value: { files, page },
      metadata: {
        visuals_status: visualsStatus,
        visuals_error: visualsError,
        charts: rendered.chartsDropped ? 0 : visuals.charts.length,
        infographic: visuals.infographic !== null,
        pdf_pages: rendered.pages,
        files: files.map((f) => ({ kind: f.asset.kind, bytes: f.content.length })),
      },
      columns: { visuals_status: visualsStatus, visuals_error: visualsError },
    };
  }
}

/**
 * Runs an execution if it is there to run. At-least-once safe: a finished execution is left
 * alone; one another delivery is working on (recent progress) is left to it; one whose run died
 * (no progress for the lease) is restarted from the first stage as the next attempt, with its own
 * files. Every write of the run names its attempt, so a run superseded meanwhile writes nothing more.
 */
export async function runExecution(ctx: OrchestratorContext, trackingId: string, options: { ai?: AiProvider } = {}): Promise<RunResult> {
  const started = performance.now();
  const skipped = (reason: string, totalSteps = 0): RunResult => ({ trackingId, outcome: 'skipped', reason, steps: [], totalSteps, totalDurationMs: 0 });
  const execution = await findExecution(ctx, trackingId);
  if (!execution) return skipped('unknown tracking id');
  if (execution.processing_status !== 'processing') return skipped(`already ${execution.processing_status}`);
  if (!(await claimExecution(ctx, execution, ctx.now(), ctx.config.ORCHESTRATOR_LEASE_SECONDS))) return skipped('another run holds this execution');

  const claimed = { ...execution, attempts: execution.attempts + 1, started_at: execution.started_at ?? ctx.now().toISOString() };
  let ai: AiProvider;
  try {
    ai = options.ai ?? ctx.ai;
  } catch (error) {
    // A misconfigured provider is a failure of this execution, logged like any other.
    ai = { name: 'openai', offline: false, writeSection: () => Promise.reject(new DependencyError('AI_SERVICE', error)) };
  }
  const run = new Run(ctx, claimed, ai);
  try {
    await run.execute();
    return { trackingId, outcome: 'completed', steps: run.results, totalSteps: run.totalSteps, totalDurationMs: Math.round(performance.now() - started) };
  } catch (error) {
    if (error instanceof RunStopped) return skipped(RUN_STOPPED, run.totalSteps);
    if (!(error instanceof StepFailed)) throw error;
    const rows = run.pending.peek();
    try {
      const failure = { step: error.step, message: error.message, classification: error.classification };
      if (!(await failExecution(ctx, trackingId, failure, rows, run.lease.attempt))) return skipped(RUN_STOPPED, run.totalSteps);
    } catch (failure) {
      // SQL is failing: the rows go to the batch writer, which retries them; the stuck timer ends the execution.
      for (const row of rows) ctx.logWriter.add(row);
      throw failure;
    }
    return {
      trackingId,
      outcome: 'failed',
      reason: error.message,
      steps: run.results,
      totalSteps: run.totalSteps,
      totalDurationMs: Math.round(performance.now() - started),
    };
  }
}
