import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { orchestratorApi, type ExecutionsAnswer, type StatusFilter } from '../api';
import { AsyncView, Empty, useAsync } from '../components/async';
import { PageTitle, StatusBadge } from '../components/layout';
import { formatDateTime, formatDuration, formatNumber } from '../format';
import { paths } from '../paths';

const STATUSES: StatusFilter[] = ['all', 'processing', 'completed', 'failed'];
const REFRESH_MS = 10_000;
/** The administration API flags an execution processing for more than 10 minutes as long-running. */
const LONG_RUNNING_SECONDS = 600;

function filtersFrom(query: Record<string, string>) {
  const status = (STATUSES as string[]).includes(query.status) ? (query.status as StatusFilter) : 'all';
  const limit = Math.min(100, Math.max(1, Number.parseInt(query.limit ?? '', 10) || 25));
  return { status, limit, search: (query.search ?? '').slice(0, 100) };
}

/** Executions, newest first; the filter lives in the address, so the 10-second refresh and a reload keep it. */
export function Executions() {
  const { query, path, route } = useLocation();
  const filters = filtersFrom(query);
  const [search, setSearch] = useState(filters.search);
  const [limit, setLimit] = useState(String(filters.limit));
  const executions = useAsync(
    () => orchestratorApi.executions(filters.status, filters.limit, filters.search),
    [filters.status, filters.limit, filters.search],
    REFRESH_MS,
  );

  const apply = (next: Partial<typeof filters>) => {
    const merged = { ...filters, ...next };
    const params = new URLSearchParams();
    if (merged.status !== 'all') params.set('status', merged.status);
    if (merged.search) params.set('search', merged.search);
    if (merged.limit !== 25) params.set('limit', String(merged.limit));
    const qs = params.toString();
    route(`${path}${qs ? `?${qs}` : ''}`, true);
  };
  const submit = (event: Event) => {
    event.preventDefault();
    const n = Number.parseInt(limit, 10);
    apply({ search: search.trim(), limit: Number.isInteger(n) ? Math.min(100, Math.max(1, n)) : 25 });
  };

  return (
    <>
      <PageTitle title="Executions">Executions</PageTitle>
      <form class="filters" onSubmit={submit} role="search" aria-label="Filter executions">
        <div>
          <label for="status-filter">Status</label>
          <select id="status-filter" value={filters.status} onChange={(e) => apply({ status: e.currentTarget.value as StatusFilter })}>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="company-search">Company</label>
          <input id="company-search" type="search" maxLength={100} value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        </div>
        <div>
          <label for="page-size">Page size (1-100)</label>
          <input id="page-size" type="number" min={1} max={100} required value={limit} onInput={(e) => setLimit(e.currentTarget.value)} />
        </div>
        <button type="submit">Apply</button>
      </form>
      <AsyncView state={executions} what="executions">
        {(data) => <ExecutionsBody data={data} filtered={filters.status !== 'all' || !!filters.search} />}
      </AsyncView>
    </>
  );
}

function ExecutionsBody({ data, filtered }: { data: ExecutionsAnswer; filtered: boolean }) {
  const { summary, recent, long_running: longRunning } = data.executions;
  const longIds = new Set(longRunning.map((l) => l.tracking_id));
  return (
    <>
      <p class="toolbar" role="status" aria-live="polite">
        Updated {formatDateTime(data.generated_at)}; refreshes every 10 seconds.
      </p>
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
      <section aria-labelledby="recent-heading">
        <h2 id="recent-heading">Newest executions</h2>
        {recent.length === 0 ? (
          <Empty>{filtered ? 'No execution matches the filter.' : 'No report has been ordered yet.'}</Empty>
        ) : (
          <div class="table-scroll">
            <table class="executions">
              <thead>
                <tr>
                  <th scope="col">Tracking id</th>
                  <th scope="col">Company</th>
                  <th scope="col">Status</th>
                  <th scope="col">Progress</th>
                  <th scope="col">Current step</th>
                  <th scope="col">Duration</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Created</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {recent.map((e) => {
                  const long = longIds.has(e.tracking_id) || (e.running_seconds ?? 0) > LONG_RUNNING_SECONDS;
                  return (
                    <tr key={e.tracking_id} data-tracking-id={e.tracking_id} data-status={e.processing_status}>
                      <th scope="row">
                        <a href={paths.execution(e.tracking_id)}>{e.tracking_id}</a>
                      </th>
                      <td>{e.company_name}</td>
                      <td>
                        <StatusBadge status={e.processing_status} /> {long && <StatusBadge status="long-running" />}
                      </td>
                      <td>
                        <progress max={100} value={e.progress_percentage} aria-label={`Progress of ${e.tracking_id}`} /> {e.progress_percentage}%
                      </td>
                      <td>{e.current_step ? `${e.current_step.step_number} ${e.current_step.step_name}` : '—'}</td>
                      <td>{formatDuration(e.duration_ms)}</td>
                      <td>{e.attempts}</td>
                      <td>{formatDateTime(e.created_at)}</td>
                      <td>{e.error ? `${e.error.error_pattern ?? 'ERROR'}: ${e.error.message ?? ''}` : '—'}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
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
