import type { LiveUser } from '../../../shared/auth/live-session';
import { json } from '../../../shared/http/handler';
import type { Infer } from '../../../shared/http/schemas';
import { op } from '../context';
import { reportStatusFor } from '../report/status';
import { reportQuotaStatus } from '../report/quota';
import { checkReportRequest } from '../report/submission';
import { submitReport } from '../report/submit';
import type * as s from '../schemas';

/** POST orchestrator/api/reports: stores the request, enqueues it, answers 202 with where to follow it. */
export const createReport = op<LiveUser, Infer<typeof s.REPORT_BODY.schema>>(
  "Requests a report: takes one of the month's quota, queues the execution, answers where to follow it",
  async ({ principal, body, ctx }) => {
    const { trackingId, statusUrl, quota } = await submitReport(ctx, principal, checkReportRequest(body));
    return json(202, { success: true, trackingId, status: 'processing', statusUrl, quota }, { Location: statusUrl });
  },
);

/** GET orchestrator/api/reports/{trackingId}: the owner or an admin; anyone else gets the same 404 as an unknown id. */
export const getReport = op<LiveUser, unknown, unknown, Infer<typeof s.TRACKING_PARAM>>(
  'The status of a report: progress, health, error, download links (its owner or an admin)',
  async ({ principal, params, ctx }) => json(200, await reportStatusFor(ctx, principal, params.trackingId)),
);

/** GET orchestrator/api/quota: the signed-in user's reports used and left in the current billing period (what a next request would find). */
export const getQuota = op<LiveUser>(
  "The signed-in user's report quota in the current billing period: limit, used, remaining, when it resets",
  async ({ principal, ctx }) => {
    const { count, ...status } = await reportQuotaStatus(ctx, principal, ctx.now());
    return json(200, { ...status, used: count }, { 'Cache-Control': 'no-store' });
  },
);
