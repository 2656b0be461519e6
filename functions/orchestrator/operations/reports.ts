import type { LiveUser } from '../../../shared/auth/live-session';
import { json } from '../../../shared/http/handler';
import type { Infer } from '../../../shared/http/schemas';
import { op } from '../context';
import { idempotencyKeyOf } from '../report/idempotency';
import { myReports } from '../report/my-reports';
import { cancelOwnReport } from '../report/owner-cancel';
import { reportStatusFor } from '../report/status';
import { reportQuotaStatus } from '../report/quota';
import { checkReportRequest } from '../report/submission';
import { submitReport } from '../report/submit';
import type * as s from '../schemas';

/** POST orchestrator/api/reports: stores the request, enqueues it, answers 202 with where to follow it (Idempotency-Key: a repeat answers the same report). */
export const createReport = op<LiveUser, Infer<typeof s.REPORT_BODY.schema>>(
  "Requests a report: takes one of the period's quota, queues the execution, answers where to follow it (Idempotency-Key header: the same key and body answer the same report, 24 hours)",
  async ({ principal, body, ctx, request }) => {
    const key = idempotencyKeyOf(request.headers.get('idempotency-key'));
    const { trackingId, statusUrl, quota, replayed } = await submitReport(ctx, principal, checkReportRequest(body), key);
    return json(
      202,
      { success: true, trackingId, status: 'processing', statusUrl, quota },
      { Location: statusUrl, ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}) },
    );
  },
);

/** GET orchestrator/api/reports: the signed-in user's reports, newest first, with the period's quota. */
export const listMyReports = op<LiveUser, unknown, Infer<typeof s.MY_REPORTS_QUERY>>(
  "The signed-in user's reports, newest first, a page at a time (cursor), by status, with download links and the current period's quota",
  async ({ principal, query, ctx }) => json(200, await myReports(ctx, principal, query), { 'Cache-Control': 'no-store' }),
);

/** POST orchestrator/api/reports/{trackingId}/cancel: the owner only; anyone else gets the same 404 as an unknown id. */
export const cancelMyReport = op<LiveUser, unknown, unknown, Infer<typeof s.TRACKING_PARAM>>(
  'Cancels a report of yours still processing: it ends failed (CANCELLED) and goes back to the quota of its period (repeating it changes nothing)',
  async ({ principal, params, meta, ctx }) => json(200, await cancelOwnReport(ctx, principal, params.trackingId, meta)),
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
