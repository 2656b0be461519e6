import type { ExecutionsAnswer } from '../../api';
import { Empty } from '../../components/async';
import { formatDateTime, formatDuration, formatNumber } from '../../format';
import { paths } from '../../paths';

/** The last 24 hours in figures, and the executions processing for more than 10 minutes. */
export function Summary({ data }: { data: ExecutionsAnswer }) {
  const { summary, long_running: longRunning } = data.executions;
  return (
    <>
      <section aria-labelledby="summary-heading">
        <h2 id="summary-heading">Last 24 hours</h2>
        <dl class="metrics">
          <div>
            <dt>Executions</dt>
            <dd>{formatNumber(summary.total)}</dd>
          </div>
          <div>
            <dt>Completed</dt>
            <dd>{formatNumber(summary.completed)}</dd>
          </div>
          <div>
            <dt>Failed</dt>
            <dd>{formatNumber(summary.failed)}</dd>
          </div>
          <div>
            <dt>Processing</dt>
            <dd>{formatNumber(summary.processing)}</dd>
          </div>
          <div>
            <dt>Average time</dt>
            <dd>{formatDuration(summary.average_duration_ms)}</dd>
          </div>
          <div>
            <dt>Long-running</dt>
            <dd>{formatNumber(summary.long_running_count)}</dd>
          </div>
        </dl>
      </section>
      <section aria-labelledby="long-heading">
        <h2 id="long-heading">Long-running (processing for more than 10 minutes)</h2>
        {longRunning.length === 0 ? (
          <Empty>None.</Empty>
        ) : (
          <ul>
            {longRunning.map((l) => (
              <li key={l.tracking_id}>
                <a href={paths.execution(l.tracking_id)}>{l.tracking_id}</a> {l.company_name}: {formatDuration(l.running_seconds * 1000)} at{' '}
                {l.current_step ?? 'an unknown step'}, since {formatDateTime(l.running_since)}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
