import type { FoundExecution } from '../../api';
import { download, toCsv } from '../../csv';

/** Offers the executions on screen as a CSV file, the requester as their email where it is known. */
export function exportCsv(executions: FoundExecution[], emails: Map<string, string | null>): void {
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
      executions.map((e) => [
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
}
