import { useLocation } from 'preact-iso';
import { useDraft } from '../../address';
import { orchestratorApi } from '../../api';
import { AsyncView, useAsync } from '../../components/async';
import { PageTitle } from '../../components/layout';
import { BulkRetry } from './bulk-retry';
import { FilterForm, RequesterFilter } from './filter-form';
import { addressOf, filtersFrom, narrows, rangeOf, type Filters } from './filters';
import { ExecutionList } from './list';
import { usePages } from './paging';
import { find } from './search';
import { Summary } from './summary';

const REFRESH_MS = 10_000;

/** Executions found by id, company, requester, status, error and time; the filters live in the address, so a refresh, a reload and a shared link keep them. */
export function Executions() {
  const { query, path, route } = useLocation();
  const filters = filtersFrom(query);
  const key = addressOf('', filters);
  const [draft, setDraft] = useDraft(filters, key);
  const list = useAsync(() => find(filters), [key], REFRESH_MS);
  const summary = useAsync(() => orchestratorApi.executions('all', 1, ''), [], REFRESH_MS);

  const go = (next: Filters) => route(addressOf(path, next), true);
  const pages = usePages(filters.cursor, (cursor) => go({ ...filters, cursor }));
  const submit = (event: Event) => {
    event.preventDefault();
    pages.reset();
    go({ ...draft, q: draft.q.trim(), cursor: '' });
  };
  const set = <K extends keyof Filters>(name: K, value: Filters[K]) => setDraft((d) => ({ ...d, [name]: value }));
  const range = rangeOf(filters);

  return (
    <>
      <PageTitle title="Executions">Executions</PageTitle>
      {filters.requester && <RequesterFilter id={filters.requester} onClear={() => go({ ...filters, requester: '', cursor: '' })} />}
      <FilterForm draft={draft} set={set} onSubmit={submit} />
      <AsyncView state={list} what="executions">
        {(data) => <ExecutionList data={data} filtered={narrows(filters)} pages={pages} />}
      </AsyncView>
      {filters.status === 'failed' && range.from && range.to && <BulkRetry from={range.from} to={range.to} onDone={list.reload} />}
      <AsyncView state={summary} what="the 24-hour summary">
        {(data) => <Summary data={data} />}
      </AsyncView>
    </>
  );
}
