import { useEffect, useState } from 'preact/hooks';
import { orchestratorApi, type Alert, type HourlyTrend, type Overview as OverviewData, type TrendLayout } from '../api';
import { AsyncView, Empty, ErrorMessage, Loading, useAsync } from '../components/async';
import { PageTitle, StatusBadge } from '../components/layout';
import { browserTimeZone, formatDateTime, formatDuration, formatHour, formatNumber } from '../format';
import { paths } from '../paths';
import { executionsHref } from './executions/filters';

const THEMES = ['professional', 'executive', 'corporate'] as const;
const REFRESH_MS = 30_000;

/** What to do about each alert, in the console: where to go (the API's own recommendation names API paths). */
const ADVICE: Record<string, { text: string; href: string; link: string }> = {
  FAILURE_RATE: { text: 'Fix the most frequent error pattern first.', href: `${paths.failures}?timeframe=24h`, link: 'Open the failure analysis' },
  AI_SERVICE_ISSUES: {
    text: 'Check the AI endpoint, its deployment name, key and quota; RATE_LIMIT errors call for a higher quota or fewer executions at once.',
    href: paths.diagnostics,
    link: 'Check the AI provider’s health',
  },
  SCHEMA_MISSING: { text: 'The processing log lacks columns the workflow logger writes.', href: paths.diagnostics, link: 'Run the schema check' },
  DATABASE_ISSUES: { text: 'Check Azure SQL availability, its limits and the connection pool size.', href: paths.diagnostics, link: 'See the service health' },
  STORAGE_ISSUES: {
    text: 'Check the storage account, its firewall and the managed identity’s roles.',
    href: paths.diagnostics,
    link: 'See the service health',
  },
  LONG_RUNNING: {
    text: 'A stuck step usually waits on the AI service: look at their steps, and cancel or retry them.',
    href: executionsHref({ status: 'processing', sort: 'oldest' }),
    link: 'List the processing executions',
  },
};

function Advice({ alert }: { alert: Alert }) {
  const advice = ADVICE[alert.type];
  if (!advice) return <p>Recommendation: {alert.recommendation}</p>;
  return (
    <p>
      {advice.text} <a href={advice.href}>{advice.link}</a>
    </p>
  );
}

/** Whether the viewport matches a media query, following changes (a phone turned sideways). */
function useMedia(query: string): boolean {
  const [matches, setMatches] = useState(() => matchMedia(query).matches);
  useEffect(() => {
    const list = matchMedia(query);
    const follow = () => setMatches(list.matches);
    list.addEventListener('change', follow);
    return () => list.removeEventListener('change', follow);
  }, [query]);
  return matches;
}

export function Overview() {
  const overview = useAsync(() => orchestratorApi.overview(), [], REFRESH_MS);
  return (
    <>
      <PageTitle title="Overview">Overview</PageTitle>
      <AsyncView state={overview} what="the overview">
        {(data) => <OverviewBody data={data} reload={overview.reload} loading={overview.loading} />}
      </AsyncView>
    </>
  );
}

function OverviewBody({ data, reload, loading }: { data: OverviewData; reload: () => void; loading: boolean }) {
  const { health, alerts, failures, trends } = data.dashboard;
  return (
    <>
      <p class="toolbar">
        <span>Updated {formatDateTime(data.generated_at)}</span>
        <button type="button" onClick={reload} disabled={loading}>
          {loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </p>
      <section aria-labelledby="health-heading">
        <h2 id="health-heading">Health (last 7 days)</h2>
        <dl class="metrics">
          <div>
            <dt>Health score</dt>
            <dd data-metric="score">
              {health.score} <StatusBadge status={health.status} />
            </dd>
          </div>
          <div>
            <dt>Success rate</dt>
            <dd data-metric="success-rate">{health.success_rate}%</dd>
          </div>
          <div>
            <dt>Average processing time</dt>
            <dd data-metric="avg-time">{formatDuration(health.avg_processing_time_ms)}</dd>
          </div>
          <div>
            <dt>Total executions</dt>
            <dd data-metric="total">{formatNumber(health.total_executions)}</dd>
          </div>
        </dl>
        {health.total_executions === 0 && <Empty>No report executions in the last 7 days yet.</Empty>}
      </section>
      <section aria-labelledby="alerts-heading">
        <h2 id="alerts-heading">Alerts</h2>
        {alerts.length === 0 ? (
          <Empty>No alerts.</Empty>
        ) : (
          <ul class="alerts">
            {alerts.map((a) => (
              <li key={a.type} class={`alert alert-${a.level.toLowerCase()}`}>
                <p>
                  <StatusBadge status={a.level} /> <strong>{a.message}</strong>
                </p>
                <Advice alert={a} />
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="sources-heading">
        <h2 id="sources-heading">Failures by source (last 24 hours)</h2>
        {failures.total_errors === 0 ? (
          <Empty>No failed steps in the last 24 hours.</Empty>
        ) : (
          <table class="stack">
            <caption class="visually-hidden">Failed steps per error source</caption>
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">Failed steps</th>
                <th scope="col">Share</th>
                <th scope="col">Latest</th>
              </tr>
            </thead>
            <tbody>
              {failures.by_source.map((s) => (
                <tr key={s.error_source}>
                  <th scope="row" data-label="Source">
                    {s.error_source}
                  </th>
                  <td data-label="Failed steps">{formatNumber(s.error_count)}</td>
                  <td data-label="Share">{s.percentage}%</td>
                  <td data-label="Latest">{formatDateTime(s.latest_occurrence)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p>
          <a href={paths.failures}>Open the failure analysis</a>
        </p>
      </section>
      <TrendChart hourly={trends.hourly} generatedAt={data.generated_at} />
    </>
  );
}

/** The 24-hour trend drawn by the visual service (through the orchestrator, which holds its token), with the numbers as a table. */
function TrendChart({ hourly, generatedAt }: { hourly: HourlyTrend[]; generatedAt: string }) {
  const [theme, setTheme] = useState<(typeof THEMES)[number]>('professional');
  const [image, setImage] = useState<{ url?: string; error?: Error; loading: boolean }>({ loading: true });
  const [attempt, setAttempt] = useState(0);
  // On a phone the 24 hours are rows, not columns: 24 column labels have no room at 390 px.
  const layout: TrendLayout = useMedia('(max-width: 40rem)') ? 'narrow' : 'wide';
  useEffect(() => {
    let url: string | undefined;
    let live = true;
    setImage((s) => ({ url: s.url, loading: true }));
    orchestratorApi.trendChart(theme, browserTimeZone(), layout).then(
      (blob) => {
        url = URL.createObjectURL(blob);
        if (live) setImage({ url, loading: false });
      },
      (error: Error) => live && setImage({ error, loading: false }),
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [theme, generatedAt, attempt, layout]);
  const total = hourly.reduce((sum, h) => sum + h.executions, 0);
  return (
    <section aria-labelledby="trend-heading">
      <h2 id="trend-heading">Executions per hour (last 24 hours)</h2>
      <p>
        <label for="trend-theme">Chart theme </label>
        <select id="trend-theme" value={theme} onChange={(e) => setTheme(e.currentTarget.value as typeof theme)}>
          {THEMES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </p>
      {image.error ? (
        <ErrorMessage error={image.error} retry={() => setAttempt((n) => n + 1)} what="the trend chart" />
      ) : image.url ? (
        <img
          class="chart"
          src={image.url}
          alt={`Bar chart of executions per hour over the last 24 hours by status: ${total} in all. The table below has the numbers.`}
          width={layout === 'narrow' ? 380 : 960}
          height={layout === 'narrow' ? 720 : 320}
        />
      ) : (
        <Loading what="the trend chart" />
      )}
      <details>
        <summary>Hourly numbers</summary>
        <table class="stack">
          <thead>
            <tr>
              <th scope="col">Hour</th>
              <th scope="col">Executions</th>
              <th scope="col">Completed</th>
              <th scope="col">Failed</th>
              <th scope="col">Processing</th>
              <th scope="col">Average time</th>
            </tr>
          </thead>
          <tbody>
            {hourly.map((h) => (
              <tr key={h.hour}>
                <th scope="row" data-label="Hour">
                  {formatHour(h.hour)}
                </th>
                <td data-label="Executions">{h.executions}</td>
                <td data-label="Completed">{h.completed}</td>
                <td data-label="Failed">{h.failed}</td>
                <td data-label="Processing">{h.processing}</td>
                <td data-label="Average time">{formatDuration(h.avg_duration_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
