import { orchestratorApi, type LogRow, type StatusAnswer } from '../api';
import { AsyncView, Empty, useAsync } from '../components/async';
import { PageTitle, StatusBadge } from '../components/layout';
import { formatDateTime, formatDuration, formatNumber } from '../format';
import { paths } from '../paths';

/** One execution: its stages as a timeline from the processing log, progress, attempts, health, submission and downloads. */
export function ExecutionDetail({ trackingId }: { trackingId: string }) {
  const status = useAsync(() => orchestratorApi.status(trackingId), [trackingId], 10_000);
  return (
    <>
      <PageTitle title={`Execution ${trackingId}`}>Execution {trackingId}</PageTitle>
      <p>
        <a href={paths.executions}>Back to executions</a>
      </p>
      <AsyncView state={status} what="the execution">
        {(data) => <Detail data={data} />}
      </AsyncView>
    </>
  );
}

function Detail({ data }: { data: StatusAnswer }) {
  const { execution, processing_metrics: metrics, logs, downloads, visuals, submission } = data.data;
  return (
    <>
      <section aria-labelledby="facts-heading">
        <h2 id="facts-heading">Summary</h2>
        <dl class="facts">
          <dt>Company</dt>
          <dd>{execution.company_name}</dd>
          <dt>Status</dt>
          <dd data-field="status">
            <StatusBadge status={execution.processing_status} />
          </dd>
          <dt>Health</dt>
          <dd>
            <StatusBadge status={execution.health_status} />
          </dd>
          <dt>Progress</dt>
          <dd>
            <progress max={100} value={metrics.progress_percentage} aria-label="Progress" /> {metrics.progress_percentage}% ({metrics.completed_steps} of{' '}
            {metrics.total_steps} steps)
            {metrics.current_step && `, now at ${metrics.current_step}`}
          </dd>
          <dt>Attempts</dt>
          <dd>{execution.attempts}</dd>
          <dt>Plan</dt>
          <dd>{execution.plan ?? '—'}</dd>
          <dt>Requested by</dt>
          <dd>{execution.requested_by ? <a href={paths.user(execution.requested_by)}>{execution.requested_by}</a> : '—'}</dd>
          <dt>Created</dt>
          <dd>{formatDateTime(execution.created_at)}</dd>
          <dt>Completed</dt>
          <dd>{formatDateTime(execution.completed_at)}</dd>
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
      <section aria-labelledby="timeline-heading">
        <h2 id="timeline-heading">Timeline</h2>
        {logs.length === 0 ? <Empty>No step has been logged yet.</Empty> : <Timeline logs={logs} />}
      </section>
      <section aria-labelledby="downloads-heading">
        <h2 id="downloads-heading">Downloads</h2>
        {downloads.length === 0 ? (
          <Empty>
            {execution.processing_status === 'completed'
              ? 'No report files are stored for this execution.'
              : 'The report files appear here when the execution completes.'}
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
      <section aria-labelledby="submission-heading">
        <h2 id="submission-heading">Submission</h2>
        <pre class="json" tabIndex={0}>
          {JSON.stringify(submission, null, 2)}
        </pre>
      </section>
    </>
  );
}

/** The processing log in write order: one entry per logged step event. */
function Timeline({ logs }: { logs: LogRow[] }) {
  return (
    <ol class="timeline">
      {logs.map((row) => (
        <li key={row.id} class={`step step-${row.status}`} data-step={row.step_name}>
          <p>
            <strong>
              {row.step_number}. {row.step_name}
            </strong>{' '}
            <StatusBadge status={row.status} /> <time dateTime={row.timestamp}>{formatDateTime(row.timestamp)}</time>
          </p>
          <p class="step-facts">
            Duration {formatDuration(row.duration_ms)}
            {row.tokens_used !== null && `; ${formatNumber(row.tokens_used)} tokens`}
          </p>
          {row.error_message && (
            <div class="step-error">
              <p>
                {row.error_pattern && <StatusBadge status={row.error_pattern} />} {row.error_source && `${row.error_source}: `}
                {row.error_message}
              </p>
              {row.error_details && (
                <details>
                  <summary>Error details</summary>
                  <pre tabIndex={0}>{row.error_details}</pre>
                </details>
              )}
            </div>
          )}
        </li>
      ))}
    </ol>
  );
}
