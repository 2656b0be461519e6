import type { LiveUser } from '../../../shared/auth/live-session';
import { Code, badRequest } from '../../../shared/http/errors';
import { json } from '../../../shared/http/handler';
import type { Infer } from '../../../shared/http/schemas';
import { cancelExecution, rerunExecution, retryExecution, retryFailed as retryFailedIn } from '../admin/actions';
import { executionsMonitor } from '../admin/executions';
import { failureAnalysis } from '../admin/failures';
import { dashboardOverview } from '../admin/overview';
import { clientProfiles } from '../admin/profiles';
import { searchExecutions } from '../admin/search';
import { executionStatus } from '../admin/status';
import { op } from '../context';
import type * as s from '../schemas';

/** The administration API's operations (`orchestrator/api/admin/...`); the route table says who may call them and what they take. */

export const overview = op<LiveUser>(
  'Health score and band, 7-day success rate, processing time, failures by source, alerts, 24-hour trends',
  async ({ ctx }) => json(200, await dashboardOverview(ctx, ctx.now())),
);

export const failures = op<LiveUser, unknown, Infer<typeof s.FAILURES_QUERY>>(
  'Failures in a timeframe: error patterns, sources, failing steps, affected clients, timeline, recommendations',
  async ({ ctx, query }) => json(200, await failureAnalysis(ctx, ctx.now(), query.timeframe)),
);

export const executions = op<LiveUser, unknown, Infer<typeof s.EXECUTIONS_QUERY>>(
  'Recent executions with a summary and the long-running ones',
  async ({ ctx, query }) => json(200, await executionsMonitor(ctx, ctx.now(), query)),
);

type Tracking = Infer<typeof s.TRACKING_PARAM>;

export const status = op<LiveUser, unknown, unknown, Tracking>(
  'One execution: its submission, processing log, metrics and download links',
  async ({ ctx, params }) => json(200, await executionStatus(ctx, params.trackingId, ctx.now())),
);

export const profiles = op<LiveUser, unknown, Infer<typeof s.PROFILES_QUERY>>(
  'Client companies with their executions, a page at a time',
  async ({ ctx, query }) => json(200, await clientProfiles(ctx, query)),
);

export const search = op<LiveUser, unknown, Infer<typeof s.EXECUTION_SEARCH_QUERY>>(
  'Executions found by tracking id, company, requester, status, error and time range, sorted, a page at a time (cursor)',
  async ({ ctx, query }) => json(200, await searchExecutions(ctx, query, ctx.now())),
);

export const retry = op<LiveUser, unknown, unknown, Tracking>(
  'Runs a failed execution again under the same tracking id (repeating it while it runs changes nothing); audited',
  async ({ principal, params, meta, ctx }) => json(202, await retryExecution(ctx, principal, params.trackingId, meta)),
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
    json(202, await rerunExecution(ctx, principal, params.trackingId, idempotencyKey(request.headers.get('idempotency-key')), meta)),
);

export const cancel = op<LiveUser, unknown, unknown, Tracking>(
  'Cancels a processing execution: it ends failed (CANCELLED) and its run stops at the next step (repeating it changes nothing); audited',
  async ({ principal, params, meta, ctx }) => json(200, await cancelExecution(ctx, principal, params.trackingId, meta)),
);

export const retryFailed = op<LiveUser, Infer<typeof s.BULK_RETRY_BODY.schema>>(
  'Retries the failed executions created in a time range, oldest first, a batch per call (dryRun counts them); audited',
  async ({ principal, body, meta, ctx }) => json(200, await retryFailedIn(ctx, principal, body, meta)),
);
