import type { FoundExecution } from '../../api';
import { CopyButton } from '../../components/copy';
import { StatusBadge } from '../../components/layout';
import { formatDateTime, formatDuration } from '../../format';
import { paths } from '../../paths';

/** The administration API flags an execution processing for more than 10 minutes as long-running. */
const LONG_RUNNING_SECONDS = 600;

/** The executions found, one row each (a card each on a phone: `stack`), the requester named by their email once it is known. */
export function Rows({ executions, emails }: { executions: FoundExecution[]; emails: Map<string, string | null> }) {
  return (
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
        {executions.map((e) => (
          <Row key={e.tracking_id} execution={e} email={emails.get(e.requested_by)} />
        ))}
      </tbody>
    </table>
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
      <td data-label="Requested by">
        <a href={paths.user(e.requested_by)}>{email || e.requested_by}</a>
      </td>
      <td data-label="Created">{formatDateTime(e.created_at)}</td>
      <td data-label="Duration">{formatDuration(e.duration_ms)}</td>
      <td data-label="Error">{e.error ? `${e.error.error_pattern ?? 'ERROR'}: ${e.error.message ?? ''}` : '—'}</td>
    </tr>
  );
}
