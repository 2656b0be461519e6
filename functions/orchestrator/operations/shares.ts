import type { LiveUser } from '../../../shared/auth/live-session';
import { json } from '../../../shared/http/handler';
import type { Infer } from '../../../shared/http/schemas';
import { op } from '../context';
import { createShare, listShares, revokeShare } from '../share/shares';
import { sharedPage, sharedPdf } from '../share/view';
import type * as s from '../schemas';

/** POST orchestrator/api/reports/{trackingId}/shares: a new share link (its token shown this once); the owner only. */
export const createShareOp = op<LiveUser, Infer<typeof s.SHARE_BODY.schema>, unknown, Infer<typeof s.TRACKING_PARAM>>(
  'Creates a link to the report as a web page, valid 1 to 30 days; the token is shown once (the owner only)',
  async ({ principal, params, body, ctx }) => json(201, await createShare(ctx, principal, params.trackingId, body.expiresInDays)),
);

/** GET orchestrator/api/reports/{trackingId}/shares: the report's links with their view counts; the owner only. */
export const listSharesOp = op<LiveUser, unknown, unknown, Infer<typeof s.TRACKING_PARAM>>(
  "The report's share links, newest first, with their status and view counts (the owner only)",
  async ({ principal, params, ctx }) => json(200, await listShares(ctx, principal, params.trackingId)),
);

/** POST orchestrator/api/reports/{trackingId}/shares/{shareId}/revoke: the link answers 410 from now on; the owner only. */
export const revokeShareOp = op<LiveUser, unknown, unknown, Infer<typeof s.SHARE_PARAM>>(
  'Revokes a share link: its page answers 410 from now on (the owner only; revoking again answers the same)',
  async ({ principal, params, ctx }) => json(200, await revokeShare(ctx, principal, params.trackingId, params.shareId)),
);

/** GET orchestrator/r/{token}: the shared report page, no account needed; each view is counted. */
export const sharedPageOp = op<undefined, unknown, unknown, Infer<typeof s.SHARE_TOKEN_PARAM>>(
  'The shared report as a web page (no account): 404 page for an unknown link, 410 page for an expired or revoked one',
  async ({ params, ctx }) => sharedPage(ctx, params.token),
);

/** GET orchestrator/r/{token}/pdf: the shared report's PDF (a redirect to a short-lived read-only link). */
export const sharedPdfOp = op<undefined, unknown, unknown, Infer<typeof s.SHARE_TOKEN_PARAM>>(
  "The shared report's PDF: a redirect to a short-lived read-only link (404 or 410 page as the web page)",
  async ({ params, ctx }) => sharedPdf(ctx, params.token),
);
