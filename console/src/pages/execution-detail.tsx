import { useState } from 'preact/hooks';
import { orchestratorApi, type AdminAction, type LogRow, type StatusAnswer } from '../api';
import { AsyncView, Empty, useAsync } from '../components/async';
import { ConfirmButton } from '../components/confirm';
import { CopyButton } from '../components/copy';
import { PageTitle, StatusBadge } from '../components/layout';
import { Outcome, refused, type Result } from '../components/outcome';
import { formatDateTime, formatDuration, formatNumber, formatTime } from '../format';
import { paths } from '../paths';
import { useEmails } from '../users';

type Execution = StatusAnswer['data']['execution'];
const CANCELLED = 'CANCELLED';

/** One execution: what to do about it, its steps as one row each (a Gantt bar per step), progress, who ordered it, its files and submission. */
export function ExecutionDetail({ trackingId }: { trackingId: string }) {
  const status = useAsync(() => orchestratorApi.status(trackingId), [trackingId], 10_000);
  return (
    <>
      <PageTitle title={`Execution ${trackingId}`}>Execution {trackingId}</PageTitle>
      <p class="toolbar">
        <a href={paths.executions}>Back to executions</a>
        <CopyButton value={trackingId} what="tracking id" />
      </p>
      <AsyncView state={status} what="the execution">
        {(data) => <Detail data={data} reload={status.reload} />}
      </AsyncView>
    </>
  );
}

/** What ended the execution, for the label of its end time. */
function ending(execution: Execution): string {
  if (execution.processing_status === 'completed') return 'Completed';
  if (execution.processing_status === 'failed') return execution.error?.error_pattern === CANCELLED ? 'Cancelled' : 'Failed';
  return 'Finished';
}

function Detail({ data, reload }: { data: StatusAnswer; reload: () => void }) {
  const { execution, processing_metrics: metrics, logs, downloads, visuals, submission, actions } = data.data;
  const emails = useEmails(execution.requested_by ? [execution.requested_by] : []);
  const requester = execution.requested_by;
  const failed = execution.processing_status === 'failed';
  const cancelled = failed && execution.error?.error_pattern === CANCELLED;
  return (
    <>
      <Actions execution={execution} onDone={reload} />
      <section aria-labelledby="facts-heading">
        <h2 id="facts-heading">Summary</h2>
        <dl class="facts">
          <dt>Company</dt>
          <dd>{execution.company_name}</dd>
          <dt>Status</dt>
          <dd data-field="status">
            <StatusBadge status={cancelled ? 'cancelled' : execution.processing_status} />
          </dd>
          <dt>Health</dt>
          <dd>
            <StatusBadge status={execution.health_status} />
          </dd>
          <dt>Progress</dt>
          <dd data-field="progress">
            <progress max={100} value={metrics.progress_percentage} aria-label="Progress" /> {metrics.progress_percentage}% ({metrics.completed_steps} of{' '}
            {metrics.total_steps} steps)
            {metrics.current_step && `, now at ${metrics.current_step}`}
          </dd>
          <dt>Attempts</dt>
          <dd>{execution.attempts}</dd>
          <dt>Plan</dt>
          <dd>{execution.plan ?? '—'}</dd>
          <dt>Requested by</dt>
          <dd data-field="requested-by">{requester ? <a href={paths.user(requester)}>{emails.get(requester) ?? requester}</a> : '—'}</dd>
          <dt>Created</dt>
          <dd>{formatDateTime(execution.created_at)}</dd>
          <dt>Started</dt>
          <dd>{formatDateTime(execution.started_at)}</dd>
          {execution.processing_status !== 'processing' && (
            <>
              <dt data-field="ended-label">{ending(execution)}</dt>
              <dd>{formatDateTime(execution.completed_at)}</dd>
            </>
          )}
          <dt>Duration</dt>
          <dd>{formatDuration(execution.duration_ms)}</dd>
          <dt>Visuals</dt>
          <dd>
            {visuals.status ?? '—'}
            {visuals.error && `: ${visuals.error}`}
          </dd>
          {execution.error && (
            <>
              <dt>Error</dt>
              <dd>
                {execution.error.error_pattern} {execution.error.error_source && `(${execution.error.error_source})`} at{' '}
                {execution.error.step ?? 'an unknown step'}: {execution.error.message}
              </dd>
            </>
          )}
        </dl>
      </section>
      <section aria-labelledby="steps-heading">
        <h2 id="steps-heading">Steps</h2>
        {logs.length === 0 ? <Empty>No step has been logged yet.</Empty> : <Runs logs={logs} processing={execution.processing_status === 'processing'} />}
      </section>
      <section aria-labelledby="downloads-heading">
        <h2 id="downloads-heading">Downloads</h2>
        {downloads.length === 0 ? (
          <Empty>
            {execution.processing_status === 'completed'
              ? 'No report files are stored for this execution.'
              : execution.processing_status === 'processing'
                ? 'The report files appear here when the execution completes.'
                : `No report: the execution ${cancelled ? 'was cancelled' : 'failed'}. Retry it to produce one.`}
          </Empty>
        ) : (
          <ul>
            {downloads.map((d) => (
              <li key={d.url}>
                <a href={d.url} rel="noopener noreferrer" download={d.fileName}>
                  {d.fileName}
                </a>{' '}
                ({d.kind}, {formatNumber(Math.round(d.size / 1024))} KB; link valid until {formatDateTime(d.expiresAt)})
              </li>
            ))}
          </ul>
        )}
      </section>
      <ActionHistory actions={actions} trackingId={execution.tracking_id} />
      <section aria-labelledby="submission-heading">
        <h2 id="submission-heading">Submission</h2>
        <pre class="json" tabIndex={0}>
          {JSON.stringify(submission, null, 2)}
        </pre>
      </section>
    </>
  );
}

/** Retry (failed), re-run (finished: a new execution) and cancel (processing, asks first). */
function Actions({ execution, onDone }: { execution: Execution; onDone: () => void }) {
  const [outcome, setOutcome] = useState<Result & { link?: string }>();
  const [rerunKey] = useState(() => crypto.randomUUID());
  const act = async (work: () => Promise<{ text: string; link?: string }>) => {
    try {
      setOutcome({ ok: true, ...(await work()) });
    } catch (error) {
      setOutcome(refused(error));
    }
    onDone();
  };
  const id = execution.tracking_id;
  const status = execution.processing_status;
  return (
    <section aria-labelledby="actions-heading">
      <h2 id="actions-heading">Actions</h2>
      <div class="actions">
        {status === 'failed' && (
          <button
            type="button"
            onClick={() =>
              void act(async () => {
                const answer = await orchestratorApi.retry(id);
                return { text: answer.retried ? 'Retry queued: the execution runs again under its tracking id.' : 'It is already running again.' };
              })
            }
          >
            Retry
          </button>
        )}
        {status !== 'processing' && (
          <ConfirmButton
            label="Re-run as a new execution"
            title="Re-run this execution?"
            confirmLabel="Re-run it"
            onConfirm={() =>
              act(async () => {
                const answer = await orchestratorApi.rerun(id, rerunKey);
                return { text: `Re-run queued as ${answer.trackingId}.`, link: answer.trackingId };
              })
            }
          >
            <p>
              Its submission runs again as a new execution with its own tracking id, for the same user and plan, calling the AI provider again. This one stays
              as it is.
            </p>
          </ConfirmButton>
        )}
        {status === 'processing' && (
          <ConfirmButton
            label="Cancel"
            title="Cancel this execution?"
            confirmLabel="Cancel the execution"
            danger
            onConfirm={() =>
              act(async () => {
                const answer = await orchestratorApi.cancel(id);
                return { text: answer.cancelled ? 'Cancelled: the run stops at its next step.' : 'It had already been cancelled.' };
              })
            }
          >
            <p>It ends as failed (cancelled) and its run stops at the next step. Its owner gets no report unless it is retried.</p>
          </ConfirmButton>
        )}
      </div>
      <Outcome result={outcome}> {outcome?.link && <a href={paths.execution(outcome.link)}>Open {outcome.link}</a>}</Outcome>
    </section>
  );
}

interface StepRow {
  key: string;
  number: number | null;
  name: string | null;
  status: string;
  start: number | null;
  end: number | null;
  durationMs: number | null;
  tokens: number | null;
  failure?: LogRow;
}

/** The log split into runs (each starts at a WORKFLOW_START; a retry is a new run under the same tracking id), each step one row. */
function runsOf(logs: LogRow[]): StepRow[][] {
  const runs: LogRow[][] = [];
  for (const row of logs) {
    if ((row.step_number === 0 && row.status === 'started') || runs.length === 0) runs.push([]);
    runs[runs.length - 1].push(row);
  }
  return runs.map((rows) => {
    const steps = new Map<string, StepRow>();
    for (const row of rows) {
      const key = `${row.step_number}:${row.step_name}`;
      const at = Date.parse(row.timestamp);
      const step = steps.get(key) ?? {
        key,
        number: row.step_number,
        name: row.step_name,
        status: row.status,
        start: null,
        end: null,
        durationMs: null,
        tokens: null,
      };
      if (row.status === 'started') step.start = at;
      else {
        step.status = row.status;
        step.end = at;
        step.durationMs = row.duration_ms;
        step.tokens = row.tokens_used;
        if (row.status === 'failed') step.failure = row;
        if (step.start === null) step.start = row.duration_ms === null ? at : at - row.duration_ms;
      }
      steps.set(key, step);
    }
    return [...steps.values()];
  });
}

function Runs({ logs, processing }: { logs: LogRow[]; processing: boolean }) {
  const runs = runsOf(logs);
  const latest = runs[runs.length - 1];
  // The step where the failure was classified (a stage it failed inside only passes it on), else any failed row (a cancellation).
  const failedStep = latest.find((s) => s.failure?.error_pattern) ?? latest.find((s) => s.failure);
  return (
    <>
      {failedStep?.failure && (
        <div class="step-error" data-failed-step={failedStep.name}>
          <p>
            <strong>
              Failed at step {failedStep.number}, {failedStep.name}
            </strong>{' '}
            ({formatTime(failedStep.failure.timestamp)}): {failedStep.failure.error_pattern && <StatusBadge status={failedStep.failure.error_pattern} />}{' '}
            {failedStep.failure.error_source && `${failedStep.failure.error_source}: `}
            {failedStep.failure.error_message}
          </p>
          {failedStep.failure.error_details && (
            <details>
              <summary>Error details</summary>
              <pre tabIndex={0}>{failedStep.failure.error_details}</pre>
            </details>
          )}
        </div>
      )}
      {runs.length > 1 && <p>Run {runs.length} (the latest; earlier runs below).</p>}
      <StepTable steps={latest} processing={processing} caption={`Steps of run ${runs.length}`} />
      {runs.slice(0, -1).map((run, i) => (
        <details key={i}>
          <summary>Earlier run {i + 1}</summary>
          <StepTable steps={run} processing={false} caption={`Steps of run ${i + 1}`} />
        </details>
      ))}
    </>
  );
}

/** One row per step: start, end and duration to the millisecond, and a bar placing it in the run's time. */
function StepTable({ steps, processing, caption }: { steps: StepRow[]; processing: boolean; caption: string }) {
  const now = Date.now();
  const starts = steps.map((s) => s.start).filter((t): t is number => t !== null);
  const ends = steps.map((s) => s.end ?? (processing ? now : s.start)).filter((t): t is number => t !== null);
  const from = Math.min(...starts);
  const span = Math.max(1, Math.max(...ends) - from);
  return (
    <table class="stack steps">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">Status</th>
          <th scope="col">Started</th>
          <th scope="col">Ended</th>
          <th scope="col">Duration</th>
          <th scope="col">Timeline</th>
        </tr>
      </thead>
      <tbody>
        {steps.map((s) => {
          const start = s.start ?? from;
          const end = s.end ?? (processing ? now : start);
          return (
            <tr key={s.key} data-step={s.name} data-status={s.status} class={`step-${s.status}`}>
              <th scope="row" data-label="Step">
                {s.number ?? '—'}. {s.name ?? 'unnamed'}
              </th>
              <td data-label="Status">
                <StatusBadge status={s.status} />
                {s.tokens !== null && <span class="muted"> {formatNumber(s.tokens)} tokens</span>}
              </td>
              <td data-label="Started">{s.start === null ? '—' : <time dateTime={new Date(s.start).toISOString()}>{formatTime(s.start)}</time>}</td>
              <td data-label="Ended">{s.end === null ? '—' : <time dateTime={new Date(s.end).toISOString()}>{formatTime(s.end)}</time>}</td>
              <td data-label="Duration" data-field="duration">
                {s.durationMs === null ? (s.end === null ? 'running' : '—') : `${formatNumber(s.durationMs)} ms`}
              </td>
              <td data-label="Timeline" class="gantt-cell">
                <svg class="gantt" viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
                  <rect class={`bar bar-${s.status}`} x={((start - from) / span) * 1000} y="0" width={Math.max(4, ((end - start) / span) * 1000)} height="10" />
                </svg>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

const ACTION_LABELS: Record<string, string> = {
  'execution.retry': 'Retried',
  'execution.rerun': 'Re-run',
  'execution.cancel': 'Cancelled',
  'executions.retry_failed': 'Bulk retry',
};

/** What administrators did to this execution: retries, cancellations, and re-runs made from it or of which it is one. */
function ActionHistory({ actions, trackingId }: { actions: AdminAction[]; trackingId: string }) {
  return (
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">Administrator actions</h2>
      {actions.length === 0 ? (
        <Empty>None.</Empty>
      ) : (
        <ul class="history">
          {actions.map((a) => (
            <li key={a.id} data-action={a.action}>
              <strong>{ACTION_LABELS[a.action] ?? a.action}</strong>
              {a.action === 'execution.rerun' && a.related_tracking_id && a.tracking_id === trackingId && (
                <>
                  {' '}
                  as <a href={paths.execution(a.related_tracking_id)}>{a.related_tracking_id}</a>
                </>
              )}
              {a.action === 'execution.rerun' && a.tracking_id && a.related_tracking_id === trackingId && (
                <>
                  {' '}
                  of <a href={paths.execution(a.tracking_id)}>{a.tracking_id}</a>
                </>
              )}{' '}
              by {a.actor.email}, {formatDateTime(a.at)}
              {a.result === 'failure' && (
                <>
                  {' '}
                  <StatusBadge status="refused" /> {a.reason}
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
