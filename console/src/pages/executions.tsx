import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import {
  identityApi,
  orchestratorApi,
  type ErrorFilter,
  type ExecutionsAnswer,
  type FoundExecution,
  type SearchAnswer,
  type SearchSort,
  type StatusFilter,
} from '../api';
import { AsyncView, Empty, ErrorMessage, useAsync } from '../components/async';
import { ConfirmButton } from '../components/confirm';
import { CopyButton } from '../components/copy';
import { PageTitle, StatusBadge } from '../components/layout';
import { download, toCsv } from '../csv';
import { count as counted, formatDateTime, formatDuration, formatNumber } from '../format';
import { paths } from '../paths';
import { useEmails } from '../users';

const STATUSES: StatusFilter[] = ['all', 'processing', 'completed', 'failed'];
const ERRORS: ErrorFilter[] = [
  'AI_SERVICE',
  'RATE_LIMIT',
  'TIMEOUT',
  'SQL_CONNECTION',
  'DATABASE_CONSTRAINT',
  'SCHEMA_MISSING',
  'BLOB_CONNECTION',
  'OTHER',
  'CANCELLED',
];
const SORTS: { value: SearchSort; label: string }[] = [
  { value: 'newest', label: 'Newest first' },
  { value: 'oldest', label: 'Oldest first' },
  { value: 'longest', label: 'Longest first' },
  { value: 'company', label: 'Company (A-Z)' },
];
const FIELDS = [
  { value: 'tracking', label: 'Tracking id' },
  { value: 'company', label: 'Company' },
  { value: 'email', label: 'Requester email' },
] as const;
type Field = (typeof FIELDS)[number]['value'];
const RANGES = [
  { value: '', label: 'Any time', ms: 0 },
  { value: '24h', label: 'Last 24 hours', ms: 24 * 3600_000 },
  { value: '7d', label: 'Last 7 days', ms: 7 * 24 * 3600_000 },
  { value: '30d', label: 'Last 30 days', ms: 30 * 24 * 3600_000 },
  { value: 'custom', label: 'From… to…', ms: 0 },
] as const;
type Range = (typeof RANGES)[number]['value'];
const REFRESH_MS = 10_000;
const DEFAULT_LIMIT = 25;
/** The administration API flags an execution processing for more than 10 minutes as long-running. */
const LONG_RUNNING_SECONDS = 600;

interface Filters {
  /** One user's executions (a user's page links here with their id). */
  requester: string;
  field: Field;
  q: string;
  status: StatusFilter;
  error: ErrorFilter | '';
  range: Range;
  /** A custom range, as the datetime-local inputs hold it (the browser's local time). */
  from: string;
  to: string;
  sort: SearchSort;
  limit: number;
  cursor: string;
}

const pick = <T extends string>(values: readonly T[], value: string | undefined, fallback: T): T => (values.includes(value as T) ? (value as T) : fallback);

function filtersFrom(query: Record<string, string>): Filters {
  return {
    requester: (query.requester ?? '').slice(0, 64),
    field: pick(
      FIELDS.map((f) => f.value),
      query.field,
      'company',
    ),
    q: (query.q ?? '').slice(0, 320),
    status: pick(STATUSES, query.status, 'all'),
    error: pick<ErrorFilter | ''>(['', ...ERRORS], query.error, ''),
    range: pick(
      RANGES.map((r) => r.value),
      query.range,
      '',
    ),
    from: query.from ?? '',
    to: query.to ?? '',
    sort: pick(
      SORTS.map((s) => s.value),
      query.sort,
      'newest',
    ),
    limit: Math.min(100, Math.max(1, Number.parseInt(query.limit ?? '', 10) || DEFAULT_LIMIT)),
    cursor: query.cursor ?? '',
  };
}

const DEFAULTS = filtersFrom({});

/** The filters as the address holds them: only what differs from the defaults. */
function addressOf(path: string, filters: Filters): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value !== DEFAULTS[key as keyof Filters]) params.set(key, String(value));
  const qs = params.toString();
  return `${path}${qs ? `?${qs}` : ''}`;
}

/** The creation-time bounds of the filters, as ISO 8601 (a preset counts back from now). */
export function rangeOf(filters: Pick<Filters, 'range' | 'from' | 'to'>, now = Date.now()): { from?: string; to?: string } {
  if (filters.range === 'custom') {
    const at = (local: string) => (local && !Number.isNaN(Date.parse(local)) ? new Date(local).toISOString() : undefined);
    return { from: at(filters.from), to: at(filters.to) };
  }
  const ms = RANGES.find((r) => r.value === filters.range)?.ms ?? 0;
  return ms ? { from: new Date(now - ms).toISOString(), to: new Date(now).toISOString() } : {};
}

type Found = SearchAnswer & { noRequester?: boolean };

/** The page of executions the filters ask for; an email is first turned into the ids of the users it matches (at identity). */
async function find(filters: Filters): Promise<Found> {
  const q = filters.q.trim();
  let requestedBy: string | undefined = filters.requester || undefined;
  if (filters.field === 'email' && q) {
    const users = await identityApi.users({ email: q, limit: 25 });
    if (users.users.length === 0)
      return { success: true, generated_at: new Date().toISOString(), filters: {}, executions: [], next_cursor: null, noRequester: true };
    const ids = users.users.map((u) => u.id).filter((id) => !filters.requester || id === filters.requester);
    if (ids.length === 0) return { success: true, generated_at: new Date().toISOString(), filters: {}, executions: [], next_cursor: null, noRequester: true };
    requestedBy = ids.join(',');
  }
  return orchestratorApi.search({
    tracking_id: filters.field === 'tracking' && q ? q : undefined,
    company: filters.field === 'company' && q ? q : undefined,
    requested_by: requestedBy,
    status: filters.status,
    error: filters.error || undefined,
    ...rangeOf(filters),
    sort: filters.sort,
    limit: filters.limit,
    cursor: filters.cursor || undefined,
  });
}

/** Executions found by id, company, requester, status, error and time; the filters live in the address, so a refresh, a reload and a shared link keep them. */
export function Executions() {
  const { query, path, route } = useLocation();
  const filters = filtersFrom(query);
  const key = addressOf('', filters);
  const [draft, setDraft] = useState(filters);
  // The form follows the address when it changes (Apply, Back, a shared link), in the render that
  // sees the change: an effect ran after the first paint too and wiped what was typed in between.
  const [draftKey, setDraftKey] = useState(key);
  if (draftKey !== key) {
    setDraftKey(key);
    setDraft(filters);
  }
  // Cursors of the pages before this one (Previous goes back through them).
  const [earlier, setEarlier] = useState<string[]>([]);
  const list = useAsync(() => find(filters), [key], REFRESH_MS);
  const summary = useAsync(() => orchestratorApi.executions('all', 1, ''), [], REFRESH_MS);

  const go = (next: Filters) => route(addressOf(path, next), true);
  const submit = (event: Event) => {
    event.preventDefault();
    setEarlier([]);
    go({ ...draft, q: draft.q.trim(), cursor: '' });
  };
  const set = <K extends keyof Filters>(name: K, value: Filters[K]) => setDraft((d) => ({ ...d, [name]: value }));
  const range = rangeOf(filters);

  return (
    <>
      <PageTitle title="Executions">Executions</PageTitle>
      {filters.requester && <RequesterFilter id={filters.requester} onClear={() => go({ ...filters, requester: '', cursor: '' })} />}
      <form class="filters" onSubmit={submit} role="search" aria-label="Find executions">
        <div>
          <label for="find-field">Find by</label>
          <select id="find-field" value={draft.field} onChange={(e) => set('field', e.currentTarget.value as Field)}>
            {FIELDS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </div>
        <div class="grow">
          <label for="find-text">Text to find</label>
          <input id="find-text" type="search" maxLength={320} value={draft.q} onInput={(e) => set('q', e.currentTarget.value)} />
        </div>
        <div>
          <label for="status-filter">Status</label>
          <select id="status-filter" value={draft.status} onChange={(e) => set('status', e.currentTarget.value as StatusFilter)}>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="error-filter">Error</label>
          <select id="error-filter" value={draft.error} onChange={(e) => set('error', e.currentTarget.value as ErrorFilter | '')}>
            <option value="">any</option>
            {ERRORS.map((code) => (
              <option key={code} value={code}>
                {code}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="range-filter">Created</label>
          <select id="range-filter" value={draft.range} onChange={(e) => set('range', e.currentTarget.value as Range)}>
            {RANGES.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
        {draft.range === 'custom' && (
          <>
            <div>
              <label for="range-from">From</label>
              <input id="range-from" type="datetime-local" value={draft.from} onInput={(e) => set('from', e.currentTarget.value)} />
            </div>
            <div>
              <label for="range-to">To</label>
              <input id="range-to" type="datetime-local" value={draft.to} onInput={(e) => set('to', e.currentTarget.value)} />
            </div>
          </>
        )}
        <div>
          <label for="sort">Order</label>
          <select id="sort" value={draft.sort} onChange={(e) => set('sort', e.currentTarget.value as SearchSort)}>
            {SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="page-size">Page size</label>
          <input
            id="page-size"
            type="number"
            min={1}
            max={100}
            required
            value={draft.limit}
            onInput={(e) => set('limit', Math.min(100, Math.max(1, e.currentTarget.valueAsNumber || DEFAULT_LIMIT)))}
          />
        </div>
        <button type="submit">Apply</button>
      </form>
      <AsyncView state={list} what="executions">
        {(data) => (
          <ExecutionList
            data={data}
            filtered={addressOf('', { ...filters, sort: 'newest', limit: DEFAULT_LIMIT, cursor: '' }) !== ''}
            page={earlier.length + 1}
            onNext={() => {
              setEarlier([...earlier, filters.cursor]);
              go({ ...filters, cursor: data.next_cursor ?? '' });
            }}
            onPrevious={() => {
              go({ ...filters, cursor: earlier.at(-1) ?? '' });
              setEarlier(earlier.slice(0, -1));
            }}
            onFirst={() => {
              setEarlier([]);
              go({ ...filters, cursor: '' });
            }}
          />
        )}
      </AsyncView>
      {filters.status === 'failed' && range.from && range.to && <BulkRetry from={range.from} to={range.to} onDone={list.reload} />}
      <AsyncView state={summary} what="the 24-hour summary">
        {(data) => <Summary data={data} />}
      </AsyncView>
    </>
  );
}

function RequesterFilter({ id, onClear }: { id: string; onClear: () => void }) {
  const email = useEmails([id]).get(id);
  return (
    <p class="toolbar">
      <span>
        Requested by <a href={paths.user(id)}>{email ?? id}</a>
      </span>
      <button type="button" class="secondary" onClick={onClear}>
        Show every requester
      </button>
    </p>
  );
}

function ExecutionList(props: { data: Found; filtered: boolean; page: number; onNext: () => void; onPrevious: () => void; onFirst: () => void }) {
  const { data } = props;
  const emails = useEmails(data.executions.map((e) => e.requested_by));
  const exportCsv = () =>
    download(
      `executions-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}.csv`,
      toCsv(
        [
          'tracking_id',
          'company',
          'status',
          'progress_percent',
          'requested_by',
          'created_at',
          'completed_at',
          'duration_ms',
          'attempts',
          'error_pattern',
          'error_message',
        ],
        data.executions.map((e) => [
          e.tracking_id,
          e.company_name,
          e.processing_status,
          e.progress_percentage,
          emails.get(e.requested_by) ?? e.requested_by,
          e.created_at,
          e.completed_at,
          e.duration_ms,
          e.attempts,
          e.error?.error_pattern,
          e.error?.message,
        ]),
      ),
    );
  return (
    <section aria-labelledby="found-heading">
      <h2 id="found-heading">Executions found</h2>
      <p class="toolbar" role="status" aria-live="polite">
        <span>
          Page {props.page}: {counted(data.executions.length, 'execution')}. Updated {formatDateTime(data.generated_at)}; refreshes every 10 seconds.
        </span>
        <button type="button" class="secondary" onClick={exportCsv} disabled={data.executions.length === 0}>
          Download this list (CSV)
        </button>
      </p>
      {data.executions.length === 0 ? (
        <Empty>
          {data.noRequester ? 'No user’s email contains that text.' : props.filtered ? 'No execution matches the filter.' : 'No report has been ordered yet.'}
        </Empty>
      ) : (
        <table class="stack executions">
          <thead>
            <tr>
              <th scope="col">Tracking id</th>
              <th scope="col">Company</th>
              <th scope="col">Status</th>
              <th scope="col">Progress</th>
              <th scope="col">Requested by</th>
              <th scope="col">Created</th>
              <th scope="col">Duration</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {data.executions.map((e) => (
              <Row key={e.tracking_id} execution={e} email={emails.get(e.requested_by)} />
            ))}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label="Pages of executions">
        <button type="button" class="secondary" disabled={props.page === 1} onClick={props.onFirst}>
          First page
        </button>
        <button type="button" class="secondary" disabled={props.page === 1} onClick={props.onPrevious}>
          Previous page
        </button>
        <button type="button" class="secondary" disabled={!data.next_cursor} onClick={props.onNext}>
          Next page
        </button>
      </nav>
    </section>
  );
}

function Row({ execution: e, email }: { execution: FoundExecution; email: string | null | undefined }) {
  const long = (e.running_seconds ?? 0) > LONG_RUNNING_SECONDS;
  return (
    <tr data-tracking-id={e.tracking_id} data-status={e.processing_status}>
      <th scope="row" data-label="Tracking id">
        <span class="id-cell">
          <a href={paths.execution(e.tracking_id)}>{e.tracking_id}</a> <CopyButton value={e.tracking_id} what="tracking id" />
        </span>
      </th>
      <td data-label="Company">{e.company_name}</td>
      <td data-label="Status">
        <StatusBadge status={e.processing_status} /> {long && <StatusBadge status="long-running" />}
      </td>
      <td data-label="Progress">
        <progress max={100} value={e.progress_percentage} aria-label={`Progress of ${e.tracking_id}`} /> {e.progress_percentage}%
      </td>
      <td data-label="Requested by">{email ? <a href={paths.user(e.requested_by)}>{email}</a> : <a href={paths.user(e.requested_by)}>{e.requested_by}</a>}</td>
      <td data-label="Created">{formatDateTime(e.created_at)}</td>
      <td data-label="Duration">{formatDuration(e.duration_ms)}</td>
      <td data-label="Error">{e.error ? `${e.error.error_pattern ?? 'ERROR'}: ${e.error.message ?? ''}` : '—'}</td>
    </tr>
  );
}

/** Retries the failed executions created in the range shown, after saying how many and asking. */
function BulkRetry({ from, to, onDone }: { from: string; to: string; onDone: () => void }) {
  const matched = useAsync(() => orchestratorApi.retryFailed(from, to, true), [from.slice(0, 16), to.slice(0, 16)]);
  const batch = Math.min(100, matched.data?.matched ?? 0);
  const [result, setResult] = useState<{ text: string; ok: boolean }>();
  const retry = async () => {
    try {
      const answer = await orchestratorApi.retryFailed(from, to, false);
      setResult({ ok: true, text: `Retried ${counted(answer.retried, 'failed execution')}; ${formatNumber(answer.remaining)} still failed in the range.` });
    } catch (error) {
      setResult({ ok: false, text: `Refused: ${(error as Error).message}` });
    }
    matched.reload();
    onDone();
  };
  return (
    <section aria-labelledby="bulk-heading">
      <h2 id="bulk-heading">Retry the failures of this time range</h2>
      {matched.error && <ErrorMessage error={matched.error} retry={matched.reload} what="the failed executions of the range" />}
      {matched.data && (
        <p data-field="bulk-count">
          {counted(matched.data.matched, 'failed execution')} created from {formatDateTime(from)} to {formatDateTime(to)} (diagnostic runs aside). A retry runs
          each again under its tracking id, 100 at a time, oldest first.
        </p>
      )}
      <ConfirmButton
        label={`Retry ${counted(batch, 'failed execution')}`}
        title="Retry the failed executions?"
        confirmLabel="Retry them"
        disabled={batch === 0}
        onConfirm={retry}
      >
        <p>
          {counted(batch, 'failed execution')} created from {formatDateTime(from)} to {formatDateTime(to)} will run again, each calling the AI provider. Their
          owners keep their tracking ids.
        </p>
      </ConfirmButton>
      {result && (
        <p class={result.ok ? 'notice' : 'error'} role="status">
          {result.text}
        </p>
      )}
    </section>
  );
}

function Summary({ data }: { data: ExecutionsAnswer }) {
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
