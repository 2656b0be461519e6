import { Empty } from '../../components/async';
import { count as counted, formatDateTime } from '../../format';
import { useEmails } from '../../users';
import { exportCsv } from './export';
import { Pager, type Pages } from './paging';
import { Rows } from './rows';
import type { Found } from './search';

/** A page of executions found: how many and when, the CSV download, the rows (or why there are none) and the pager. */
export function ExecutionList({ data, filtered, pages }: { data: Found; filtered: boolean; pages: Pages }) {
  const emails = useEmails(data.executions.map((e) => e.requested_by));
  return (
    <section aria-labelledby="found-heading">
      <h2 id="found-heading">Executions found</h2>
      <p class="toolbar" role="status" aria-live="polite">
        <span>
          Page {pages.page}: {counted(data.executions.length, 'execution')}. Updated {formatDateTime(data.generated_at)}; refreshes every 10 seconds.
        </span>
        <button type="button" class="secondary" onClick={() => exportCsv(data.executions, emails)} disabled={data.executions.length === 0}>
          Download this list (CSV)
        </button>
      </p>
      {data.executions.length === 0 ? (
        <Empty>
          {data.noRequester ? 'No user’s email contains that text.' : filtered ? 'No execution matches the filter.' : 'No report has been ordered yet.'}
        </Empty>
      ) : (
        <Rows executions={data.executions} emails={emails} />
      )}
      <Pager pages={pages} nextCursor={data.next_cursor} />
    </section>
  );
}
