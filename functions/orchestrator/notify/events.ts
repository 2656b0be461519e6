import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import { markSqlWork } from '../../../shared/sql/idle';
import type { NotifyEventType, OrchestratorTables } from '../db/tables';
import { cancelledByOwner } from '../workflow/cancel-words';

/** The Table Storage marker (shared/sql/idle.ts) of notifications to send: the dispatcher timer skips SQL while it is idle. */
export const NOTIFY_WORK = 'orchestrator-notify';
export const markNotifyWork = (now: Date) => markSqlWork(NOTIFY_WORK, now);

/** An id with a prefix and 128 random bits (evt_…, we_…, wd_…). */
export const newId = (prefix: string): string => `${prefix}_${randomBytes(16).toString('hex')}`;

/** What a report-finished event says (the webhook body's `data` adds the report's link). */
export interface EventData {
  status: 'completed' | 'failed';
  company: string;
  /** A failed report's kind (its error pattern); the client's words for it are made when the notice is. */
  errorPattern?: string | null;
  /** The owner cancelled it themselves: told so, not that it failed on our side. */
  byOwner?: boolean;
  /** The report's locale (its request's): the e-mail is in the report's language. Absent in events recorded before it was kept: English. */
  locale?: string;
}

/** The locale a stored request asked for, if any. */
function requestLocale(submission: string): string | undefined {
  try {
    const locale = (JSON.parse(submission) as { locale?: unknown }).locale;
    return typeof locale === 'string' ? locale : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Records that the execution finished, in the transaction that finishes it (a transactional
 * outbox): the notice cannot be lost once the report is, and a notice that fails to go out never
 * touches the report. The dispatcher (notify/dispatch.ts) sends it.
 */
export async function recordReportFinished(trx: Transaction<OrchestratorTables>, trackingId: string, at: string): Promise<void> {
  const execution = await trx
    .selectFrom('orchestrator_executions')
    .select(['requested_by', 'plan', 'company_name', 'processing_status', 'error_pattern', 'error_message', 'submission'])
    .where('tracking_id', '=', trackingId)
    .executeTakeFirst();
  if (!execution || execution.processing_status === 'processing') return;
  const type: NotifyEventType = execution.processing_status === 'completed' ? 'report.completed' : 'report.failed';
  const locale = requestLocale(execution.submission);
  const data: EventData = {
    status: execution.processing_status,
    company: execution.company_name,
    ...(locale ? { locale } : {}),
    ...(type === 'report.failed' ? { errorPattern: execution.error_pattern, ...(cancelledByOwner(execution) ? { byOwner: true } : {}) } : {}),
  };
  await trx
    .insertInto('orchestrator_notify_events')
    .values({
      id: newId('evt'),
      tracking_id: trackingId,
      user_id: execution.requested_by,
      plan: execution.plan,
      type,
      data: JSON.stringify(data),
      created_at: at,
      state: 'pending',
      next_at: at,
      email_state: 'pending',
      email_error: null,
    })
    .execute();
}
