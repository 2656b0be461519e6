import type { ErrorFilter, SearchSort, StatusFilter } from '../../api';
import { paths } from '../../paths';
import { useEmails } from '../../users';
import { ERRORS, FIELDS, RANGES, SORTS, STATUSES, limitOf, type Field, type Filters, type Range } from './filters';

type SetFilter = <K extends keyof Filters>(name: K, value: Filters[K]) => void;

/** The filters being edited (the draft): they apply, and reach the address, with Apply. */
export function FilterForm({ draft, set, onSubmit }: { draft: Filters; set: SetFilter; onSubmit: (event: Event) => void }) {
  return (
    <form class="filters" onSubmit={onSubmit} role="search" aria-label="Find executions">
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
          onInput={(e) => set('limit', limitOf(e.currentTarget.valueAsNumber))}
        />
      </div>
      <button type="submit">Apply</button>
    </form>
  );
}

/** The one-user filter (a user's page links here with their id), named by the user's email, with the way back to every requester. */
export function RequesterFilter({ id, onClear }: { id: string; onClear: () => void }) {
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
