import { useLocation } from 'preact-iso';
import { orchestratorApi, type FailuresAnswer, type Timeframe } from '../api';
import { AsyncView, Empty, useAsync } from '../components/async';
import { PageTitle, StatusBadge } from '../components/layout';
import { count, formatDateTime, formatNumber } from '../format';
import { paths } from '../paths';
import { executionsHref } from './executions/filters';

const TIMEFRAMES: { value: Timeframe; label: string }[] = [
  { value: '24h', label: 'Last 24 hours' },
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
];

export function Failures() {
  const { query, path, route } = useLocation();
  const timeframe: Timeframe = TIMEFRAMES.some((t) => t.value === query.timeframe) ? (query.timeframe as Timeframe) : '24h';
  const failures = useAsync(() => orchestratorApi.failures(timeframe), [timeframe], 30_000);
  return (
    <>
      <PageTitle title="Failures">Failures</PageTitle>
      <fieldset class="segmented">
        <legend>Timeframe</legend>
        {TIMEFRAMES.map((t) => (
          <label key={t.value}>
            <input type="radio" name="timeframe" value={t.value} checked={timeframe === t.value} onChange={() => route(`${path}?timeframe=${t.value}`, true)} />{' '}
            {t.label}
          </label>
        ))}
      </fieldset>
      <AsyncView state={failures} what="the failure analysis">
        {(data) => <FailuresBody data={data} />}
      </AsyncView>
    </>
  );
}

function FailuresBody({ data }: { data: FailuresAnswer }) {
  const a = data.failure_analysis;
  if (a.total_errors === 0 && a.affected_clients.failed_executions === 0) {
    return <Empty>No failures since {formatDateTime(data.since)}.</Empty>;
  }
  return (
    <>
      <p>
        {count(a.total_errors, 'failed step')} and {count(a.affected_clients.failed_executions, 'failed execution')} since {formatDateTime(data.since)}.
      </p>
      <section aria-labelledby="recommendations-heading">
        <h2 id="recommendations-heading">Troubleshooting recommendations</h2>
        {a.troubleshooting_recommendations.length === 0 ? (
          <Empty>None.</Empty>
        ) : (
          <ol class="recommendations">
            {a.troubleshooting_recommendations.map((r) => (
              <li key={r.issue}>
                <StatusBadge status={r.priority} /> <strong>{r.issue}</strong> ({r.count}): {r.recommendation}
              </li>
            ))}
          </ol>
        )}
      </section>
      <section aria-labelledby="patterns-heading">
        <h2 id="patterns-heading">Error patterns</h2>
        {a.error_patterns.length === 0 ? (
          <Empty>None.</Empty>
        ) : (
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Pattern</th>
                <th scope="col">Occurrences</th>
                <th scope="col">Latest</th>
                <th scope="col">Sample messages</th>
              </tr>
            </thead>
            <tbody>
              {a.error_patterns.map((p) => (
                <tr key={p.error_pattern}>
                  <th scope="row" data-label="Pattern">
                    <a href={executionsHref({ status: 'failed', error: p.error_pattern, range: range(data.timeframe) })}>{p.error_pattern}</a>
                  </th>
                  <td data-label="Occurrences">{formatNumber(p.occurrences)}</td>
                  <td data-label="Latest">{formatDateTime(p.latest_occurrence)}</td>
                  <td data-label="Sample messages">
                    <ul class="samples">
                      {(p.sample_messages ?? '')
                        .split(' | ')
                        .filter(Boolean)
                        .map((m, i) => (
                          <li key={i}>{m}</li>
                        ))}
                    </ul>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="steps-heading">
        <h2 id="steps-heading">Failing steps</h2>
        {a.step_failures.length === 0 ? (
          <Empty>None.</Empty>
        ) : (
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col">Failures</th>
                <th scope="col">Share</th>
                <th scope="col">Latest</th>
              </tr>
            </thead>
            <tbody>
              {a.step_failures.map((s) => (
                <tr key={`${s.step_number}:${s.step_name}`}>
                  <th scope="row" data-label="Step">
                    {stepLabel(s.step_number, s.step_name)}
                  </th>
                  <td data-label="Failures">{formatNumber(s.failures)}</td>
                  <td data-label="Share">{s.percentage}%</td>
                  <td data-label="Latest">{formatDateTime(s.latest_failure)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="clients-heading">
        <h2 id="clients-heading">Failed executions</h2>
        <p>
          <a href={executionsHref({ status: 'failed', range: range(data.timeframe) })}>Find and retry the failed executions of this timeframe</a>
        </p>
        {a.affected_clients.clients.length === 0 ? (
          <Empty>None.</Empty>
        ) : (
          <ul>
            {a.affected_clients.clients.map((c) => (
              <li key={c.tracking_id}>
                <a href={paths.execution(c.tracking_id)}>{c.tracking_id}</a> {c.company_name}, {formatDateTime(c.failed_at)}: {c.error_pattern ?? 'ERROR'}{' '}
                {c.error_message}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

/** The executions page's time range of a timeframe (the same three). */
const range = (timeframe: string) => (['24h', '7d', '30d'].includes(timeframe) ? timeframe : '24h');

/** A failing step as the log names it; a failed row may carry no step number or name (a failure before any step began). */
function stepLabel(stepNumber: number | null, stepName: string | null): string {
  if (stepNumber === null) return stepName ?? 'No step recorded';
  return stepName === null ? `Step ${stepNumber}` : `${stepNumber}. ${stepName}`;
}
