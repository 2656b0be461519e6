import { useEffect, useState } from 'preact/hooks';
import { orchestratorApi, type HourlyTrend, type Overview as OverviewData } from '../api';
import { AsyncView, Empty, ErrorMessage, Loading, useAsync } from '../components/async';
import { PageTitle, StatusBadge } from '../components/layout';
import { browserTimeZone, formatDateTime, formatDuration, formatHour, formatNumber } from '../format';
import { paths } from '../paths';

const THEMES = ['professional', 'executive', 'corporate'] as const;

export function Overview() {
  const overview = useAsync(() => orchestratorApi.overview(), []);
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
                <p>Recommendation: {a.recommendation}</p>
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
          <table>
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
                  <th scope="row">{s.error_source}</th>
                  <td>{formatNumber(s.error_count)}</td>
                  <td>{s.percentage}%</td>
                  <td>{formatDateTime(s.latest_occurrence)}</td>
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
  useEffect(() => {
    let url: string | undefined;
    let live = true;
    setImage((s) => ({ url: s.url, loading: true }));
    orchestratorApi.trendChart(theme, browserTimeZone()).then(
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
  }, [theme, generatedAt, attempt]);
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
          width={960}
          height={320}
        />
      ) : (
        <Loading what="the trend chart" />
      )}
      <details>
        <summary>Hourly numbers</summary>
        <table>
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
                <th scope="row">{formatHour(h.hour)}</th>
                <td>{h.executions}</td>
                <td>{h.completed}</td>
                <td>{h.failed}</td>
                <td>{h.processing}</td>
                <td>{formatDuration(h.avg_duration_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}
