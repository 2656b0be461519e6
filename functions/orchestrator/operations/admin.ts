import type { LiveUser } from '../../../shared/auth/live-session';
import { Code, badRequest } from '../../../shared/http/errors';
import { json } from '../../../shared/http/handler';
import { op } from '../../../shared/http/route';
import type { Infer } from '../../../shared/http/schemas';
import type * as s from '../schemas';
import { executionsMonitor } from './executions';
import { failureAnalysis } from './failures';
import { dashboardOverview } from './overview';
import { clientProfiles } from './profiles';
import { executionStatus } from './status';
import { cancelExecution, rerunExecution, retryExecution, retryFailed as retryFailedIn, type BulkRetryInput } from './actions';
import { searchExecutions, type ExecutionSearch } from './search';

/** The administration API's operations (`orchestrator/api/admin/...`); the route table says who may call them. */
export const overview = op<LiveUser>(
  'Health score and band, 7-day success rate, processing time, failures by source, alerts, 24-hour trends',
  async ({ ctx }) => json(200, await dashboardOverview(ctx.now())),
);

export const failures = op<LiveUser, unknown, Infer<typeof s.FAILURES_QUERY>>(
  'Failures in a timeframe: error patterns, sources, failing steps, affected clients, timeline, recommendations',
  async ({ ctx, query }) => json(200, await failureAnalysis(ctx.now(), query.timeframe)),
);

export const executions = op<LiveUser, unknown, Infer<typeof s.EXECUTIONS_QUERY>>(
  'Recent executions with a summary and the long-running ones',
  async ({ ctx, query }) => json(200, await executionsMonitor(ctx.now(), query.limit, query.status, query.search?.trim() ?? '')),
);

export const status = op<LiveUser, unknown, unknown, Infer<typeof s.TRACKING_PARAM>>(
  'One execution: its submission, processing log, metrics and download links',
  async ({ ctx, params }) => json(200, await executionStatus(params.trackingId, ctx.now())),
);

export const profiles = op<LiveUser, unknown, Infer<typeof s.PROFILES_QUERY>>('Client companies with their executions, a page at a time', async ({ query }) =>
  json(200, await clientProfiles({ page: query.page, limit: query.limit, status: query.status, search: query.search?.trim() ?? '' })),
);

type SearchQuery = Omit<ExecutionSearch, 'trackingId' | 'requestedBy'> & { tracking_id?: string; requested_by?: string };

export const search = op<LiveUser, unknown, SearchQuery>(
  'Executions found by tracking id, company, requester, status, error and time range, sorted, a page at a time (cursor)',
  async ({ ctx, query: { tracking_id, requested_by, ...rest } }) =>
    json(200, await searchExecutions({ ...rest, trackingId: tracking_id, requestedBy: requested_by }, ctx.now())),
);

type Tracking = Infer<typeof s.TRACKING_PARAM>;

export const retry = op<LiveUser, unknown, unknown, Tracking>(
  'Runs a failed execution again under the same tracking id (repeating it while it runs changes nothing); audited',
  async ({ principal, params, meta, ctx }) => json(202, await retryExecution(principal, params.trackingId, meta, ctx.log)),
);

/** An Idempotency-Key: up to 100 letters, digits and `-_.:`; a repeat with the same key answers the first re-run. */
function idempotencyKey(value: string | null): string | undefined {
  if (value === null) return undefined;
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(value)) {
    throw badRequest('The Idempotency-Key header takes 1-100 letters, digits, ".", "_", ":" or "-".', Code.VALIDATION_FAILED, {
      details: [{ field: 'Idempotency-Key', problem: 'invalid' }],
    });
  }
  return value;
}

export const rerun = op<LiveUser, unknown, unknown, Tracking>(
  "Runs a finished execution's submission again as a new execution, linked to it (Idempotency-Key header: a repeat answers the same one); audited",
  async ({ principal, params, meta, ctx, request }) =>
    json(202, await rerunExecution(principal, params.trackingId, idempotencyKey(request.headers.get('idempotency-key')), meta, ctx.log)),
);

export const cancel = op<LiveUser, unknown, unknown, Tracking>(
  'Cancels a processing execution: it ends failed (CANCELLED) and its run stops at the next step (repeating it changes nothing); audited',
  async ({ principal, params, meta, ctx }) => json(200, await cancelExecution(principal, params.trackingId, meta, ctx.log)),
);

export const retryFailed = op<LiveUser, Partial<BulkRetryInput> & Pick<BulkRetryInput, 'from' | 'to'>>(
  'Retries the failed executions created in a time range, oldest first, a batch per call (dryRun counts them); audited',
  async ({ principal, body, meta, ctx }) =>
    json(200, await retryFailedIn(principal, { from: body.from, to: body.to, limit: body.limit ?? 100, dryRun: body.dryRun ?? false }, meta, ctx.log)),
);
