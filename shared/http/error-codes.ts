/**
 * The one list of error codes. Every error answer of every service carries one of these in `code`
 * (the envelope `{ error, message, code, timestamp }`): a client switches on the code, a person
 * reads the message. The error factories (errors.ts) accept only a code listed here, and only with
 * a status the code is listed with; the API documents give the list as the envelope's `code` enum
 * and docs/architecture.md shows it as a table (`npm run docs:generate`).
 *
 * A code is stable: once published, its meaning and status do not change. Add a code here before
 * answering with it.
 */
import type { ServiceName } from '../config';

export interface ErrorCodeEntry {
  /** The status the code is answered with; several when the same refusal reaches the caller by different routes. */
  status: number | readonly number[];
  /** Who answers it: every service, or the ones named. */
  by: 'all' | readonly ServiceName[];
  /** The `error` field when it is not the status's own name: the name clients already know this error by. */
  error?: string;
  /** One line: what happened, and what the caller can do. */
  meaning: string;
}

const IDENTITY = ['identity'] as const;
const PAYMENT = ['payment'] as const;
const ORCHESTRATOR = ['orchestrator'] as const;
const VISUAL = ['visual'] as const;
/** Services that take identity's access tokens and ask identity whether the session is still live. */
const TOKEN_USERS = ['payment', 'orchestrator'] as const;

export const ERROR_CODES = {
  // Every service: the request's shape, the host's rules, failures of the service itself.
  VALIDATION_FAILED: {
    status: 400,
    by: 'all',
    meaning:
      'A path parameter, query parameter or body field is missing, of the wrong type, out of range or not allowed; the message and `details` name the field.',
  },
  INVALID_JSON: { status: 400, by: 'all', meaning: 'The body is empty or is not valid JSON.' },
  JSON_TOO_DEEP: { status: 400, by: 'all', meaning: 'The JSON body is nested deeper than the limit (`maxDepth`).' },
  JSON_KEY_NOT_ALLOWED: {
    status: 400,
    by: 'all',
    meaning: 'The JSON body holds the key __proto__, constructor or prototype (at any depth), which no route accepts; `field` names where.',
  },
  NOT_FOUND: { status: 404, by: 'all', meaning: 'Nothing is at this address (for example a file the API reference page does not have).' },
  METHOD_NOT_ALLOWED: { status: 405, by: 'all', meaning: 'The path exists but does not take this method; the Allow header lists the methods it takes.' },
  PAYLOAD_TOO_LARGE: { status: 413, by: 'all', meaning: 'The body is larger than the route accepts; the message gives the limit in bytes.' },
  HOST_INVALID: {
    status: 400,
    by: 'all',
    meaning:
      "The Host header is not a valid host name; the host refuses the request before any function runs (the dev host; Azure's front end answers its own 400).",
  },
  INTERNAL: { status: 500, by: 'all', meaning: 'An unexpected failure in the service; the answer carries `requestId`, which finds the failure in the logs.' },
  SERVICE_MISCONFIGURED: {
    status: 503,
    by: 'all',
    meaning: 'The service is stopped because a setting it needs is missing or is an unresolved Key Vault reference; `problems` names the settings.',
  },

  // Access tokens: identity checks them, and every service that takes them answers the same codes.
  AUTH_REQUIRED: { status: 401, by: 'all', meaning: 'The route needs a Bearer token and the request has none.' },
  AUTH_TOKEN_INVALID: {
    status: 401,
    by: 'all',
    meaning: 'The Bearer token is not valid (signature, issuer, audience, or a token another service does not accept); sign in again.',
  },
  AUTH_TOKEN_EXPIRED: {
    status: 401,
    by: ['identity', 'payment', 'orchestrator'],
    meaning: 'The access token has expired; get a new one with the refresh token.',
  },
  AUTH_SESSION_REVOKED: {
    status: 401,
    by: ['identity', 'payment', 'orchestrator'],
    meaning: "The token's session has ended (signed out, revoked by an admin, or the account was deactivated); sign in again.",
  },
  AUTH_USER_INACTIVE: {
    status: [401, 403],
    by: ['identity', 'payment', 'orchestrator'],
    meaning: 'The account is inactive: 401 when identity finds it so, 403 when the token itself says so.',
  },
  ADMIN_REQUIRED: { status: 403, by: ['identity', 'payment', 'orchestrator'], meaning: 'The route needs the admin or super_admin role.' },
  PERMISSION_DENIED: { status: 403, by: IDENTITY, meaning: 'The admin lacks the permission the route names.' },
  IDENTITY_UNAVAILABLE: {
    status: 503,
    by: TOKEN_USERS,
    meaning: "Identity could not be asked whether the token's session is still live (a token is never trusted unchecked); try again shortly.",
  },

  // identity: sign-in, tokens, users, roles, sessions, plans.
  AUTH_SERVICE_TOKEN_INVALID: {
    status: 401,
    by: IDENTITY,
    error: 'Invalid service token',
    meaning: 'The service admin token on the plan route is missing, malformed, not signed with the service secret, or expired.',
  },
  LOGIN_RATE_LIMITED: {
    status: 429,
    by: IDENTITY,
    meaning: 'Too many sign-in requests from this network or for this address; Retry-After says when to try again.',
  },
  OTP_RESEND_COOLDOWN: { status: 429, by: IDENTITY, meaning: 'A code was sent to this address moments ago; Retry-After says when a new one can be sent.' },
  EMAIL_THROTTLED: {
    status: 503,
    by: IDENTITY,
    meaning:
      'The e-mail service is refusing to send for now (throttled, or a temporary SMTP refusal): no code was sent and none is pending; Retry-After says when to ask again.',
  },
  OTP_INVALID: { status: 401, by: IDENTITY, meaning: 'The sign-in code is wrong, already used, or none was requested.' },
  OTP_EXPIRED: { status: 401, by: IDENTITY, meaning: 'The sign-in code has expired; request a new one.' },
  OTP_ATTEMPTS_EXCEEDED: { status: 401, by: IDENTITY, meaning: 'Too many wrong tries for this code; request a new one.' },
  ACCOUNT_INACTIVE: { status: 403, by: IDENTITY, meaning: 'The sign-in code was right but the account is inactive.' },
  REFRESH_TOKEN_INVALID: { status: 401, by: IDENTITY, meaning: 'The refresh token is unknown or its session has ended; sign in again.' },
  REFRESH_TOKEN_EXPIRED: { status: 401, by: IDENTITY, meaning: 'The refresh token, or its session, has reached its maximum age; sign in again.' },
  REFRESH_TOKEN_ROTATED: { status: 401, by: IDENTITY, meaning: 'The refresh token was rotated moments ago (a parallel refresh); use the newest one.' },
  REFRESH_TOKEN_REUSED: { status: 401, by: IDENTITY, meaning: 'An already used refresh token came back after the grace period; the whole session is revoked.' },
  USER_NOT_FOUND: { status: 404, by: IDENTITY, meaning: 'No user has this id.' },
  USER_EXISTS: { status: 409, by: IDENTITY, meaning: 'Another user already has this email address.' },
  ROLE_UNKNOWN: { status: 400, by: IDENTITY, meaning: 'The body names a role that does not exist.' },
  ROLE_NOT_FOUND: { status: 404, by: IDENTITY, meaning: 'No role has this id.' },
  ROLE_NOT_ASSIGNED: { status: 404, by: IDENTITY, meaning: 'The user does not hold the role being removed.' },
  BASE_ROLE: { status: 409, by: IDENTITY, meaning: 'The base user role cannot be removed; grant another role instead.' },
  SESSION_NOT_FOUND: { status: 404, by: IDENTITY, meaning: 'No session has this id.' },
  SUPER_ADMIN_REQUIRED: {
    status: 403,
    by: IDENTITY,
    meaning: 'Only a super_admin may create, change or grant a privileged (admin or super_admin) account or role.',
  },
  PERMISSION_ESCALATION: { status: 403, by: IDENTITY, meaning: 'An admin may not grant permissions they do not hold.' },
  CANNOT_DEACTIVATE_SELF: { status: 409, by: IDENTITY, meaning: 'An admin may not deactivate their own account.' },
  CANNOT_DELETE_SELF: { status: 409, by: IDENTITY, meaning: 'An admin may not delete their own account.' },
  LAST_SUPER_ADMIN: { status: 409, by: IDENTITY, meaning: 'The change would leave no active super_admin.' },
  PRIVILEGED_ACCOUNT: { status: 403, by: IDENTITY, meaning: 'The payment service may not deactivate an admin or super_admin account.' },
  PLAN_TIMESTAMP_IN_FUTURE: {
    status: 400,
    by: IDENTITY,
    meaning: "The plan update's `timestamp` is more than 5 minutes ahead of the server clock (`maxSkewSeconds`); send the time the change was requested.",
  },
  PLAN_UPDATE_STALE: {
    status: 409,
    by: IDENTITY,
    meaning: 'A plan update requested later than this one was already applied; the answer gives the current plan.',
  },

  // payment: PaymentIntents and the Stripe webhook.
  UNKNOWN_PLAN: { status: 400, by: PAYMENT, meaning: 'planType is not a plan of the plan table.' },
  PLAN_NOT_PURCHASABLE: { status: 400, by: PAYMENT, meaning: 'The plan costs nothing and cannot be bought.' },
  AMOUNT_MISMATCH: { status: 400, by: PAYMENT, meaning: "amount is not the plan's price; the answer gives the expected amount and currency." },
  INVALID_IDEMPOTENCY_KEY: { status: 400, by: ['payment', 'orchestrator'], meaning: 'The Idempotency-Key header is not 8 to 200 printable ASCII characters.' },
  USER_MISMATCH: { status: 403, by: PAYMENT, meaning: 'userId in the body is not the signed-in user.' },
  STRIPE_ERROR: { status: 502, by: PAYMENT, meaning: 'Stripe refused the request.' },
  SUBSCRIPTION_EXISTS: {
    status: 409,
    by: PAYMENT,
    meaning:
      'The user already has a subscription that bills them: change its plan (POST /payment/subscription/change) or cancel it rather than subscribing twice.',
  },
  NO_SUBSCRIPTION: { status: 404, by: PAYMENT, meaning: 'The user has no subscription that bills them.' },
  NO_BILLING_ACCOUNT: {
    status: 404,
    by: PAYMENT,
    meaning: 'The user has never subscribed or paid, so there is no billing account (Stripe Customer) to manage.',
  },
  STRIPE_NOT_CONFIGURED: {
    status: 503,
    by: PAYMENT,
    meaning: 'No usable Stripe secret key is set (STRIPE_SECRET_KEY: unset, an unresolved Key Vault reference, or no secret key); the message says which.',
  },
  STRIPE_UNAVAILABLE: { status: 503, by: PAYMENT, meaning: 'Stripe could not be reached; try again shortly.' },
  WEBHOOK_SIGNATURE_MISSING: { status: 400, by: PAYMENT, meaning: 'The webhook request has no Stripe-Signature header.' },
  WEBHOOK_SIGNATURE_INVALID: {
    status: 400,
    by: PAYMENT,
    meaning: 'The Stripe-Signature does not verify against the webhook secret, or its timestamp is outside the 300-second window.',
  },
  PAYMENT_NOT_FOUND: { status: 404, by: PAYMENT, meaning: 'No payment has this PaymentIntent id (administration API).' },
  PAYMENT_NOT_IN_REVIEW: {
    status: 409,
    by: PAYMENT,
    meaning: 'Only a payment in manual review is approved or rejected; this one is not (the answer gives its sync state and, when decided, the decision).',
  },

  // orchestrator: report executions, the administration API and console.
  REPORT_QUOTA_EXCEEDED: {
    status: 429,
    by: ORCHESTRATOR,
    meaning: "The plan's monthly report quota is used up; the answer gives the limit, the count and when it resets.",
  },
  QUEUE_UNAVAILABLE: {
    status: 503,
    by: ORCHESTRATOR,
    meaning: 'The report could not be queued (nothing was kept, the quota was given back); try again shortly.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    by: ORCHESTRATOR,
    meaning: 'This Idempotency-Key was sent with another request body in the last 24 hours; send a new key for a new request.',
  },
  REPORT_NOT_FOUND: { status: 404, by: ORCHESTRATOR, meaning: 'No report has this tracking id, or it belongs to another user.' },
  EXECUTION_NOT_FOUND: { status: 404, by: ORCHESTRATOR, meaning: 'No execution has this tracking id (administration API).' },
  SHARE_NOT_FOUND: { status: 404, by: ORCHESTRATOR, meaning: 'The report has no share link with this id.' },
  REPORT_NOT_SHAREABLE: {
    status: 409,
    by: ORCHESTRATOR,
    meaning: 'Only a completed report made with its web page (every report since share links) can be shared.',
  },
  EXECUTION_NOT_RETRYABLE: { status: 409, by: ORCHESTRATOR, meaning: 'Only a failed execution is retried; a completed one can be re-run as a new execution.' },
  EXECUTION_NOT_FINISHED: {
    status: 409,
    by: ORCHESTRATOR,
    meaning: 'The execution is still processing: cancel it, or wait for it to finish, before re-running it.',
  },
  EXECUTION_NOT_CANCELLABLE: { status: 409, by: ORCHESTRATOR, meaning: 'Only a processing execution can be cancelled; this one has already finished.' },
  VISUAL_UNAVAILABLE: { status: 502, by: ORCHESTRATOR, meaning: 'The visual service could not draw the trend chart, or answered without a usable SVG image.' },
  INVALID_PATH: {
    status: 400,
    by: ORCHESTRATOR,
    meaning: 'The console file path is refused (too long, a backslash or control character, "." or ".." or empty segments).',
  },
  CONSOLE_FILE_NOT_FOUND: { status: 404, by: ORCHESTRATOR, meaning: 'The console has no file at this path.' },
  CONSOLE_NOT_BUILT: { status: 503, by: ORCHESTRATOR, meaning: 'The administration console was not built (run npm run build).' },
  WEBHOOK_URL_INVALID: {
    status: 400,
    by: ORCHESTRATOR,
    meaning: 'The webhook endpoint URL is not an absolute https URL (http only on a local host), carries a user name, password or fragment, or is too long.',
  },
  WEBHOOK_URL_NOT_ALLOWED: {
    status: 400,
    by: ORCHESTRATOR,
    meaning:
      'The webhook endpoint host does not resolve, or resolves to an address webhooks are not sent to (loopback, private, link-local, CGNAT, metadata, multicast or reserved); `kind` names which.',
  },
  WEBHOOKS_PLAN_REQUIRED: { status: 403, by: ORCHESTRATOR, meaning: 'Webhooks come with the Pro and Enterprise plans; the caller is on another plan.' },
  WEBHOOK_ENDPOINT_LIMIT: {
    status: 409,
    by: ORCHESTRATOR,
    meaning: 'The user already has the most webhook endpoints allowed (the answer gives the limit); delete one first.',
  },
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, by: ORCHESTRATOR, meaning: 'No webhook endpoint has this id, or it belongs to another user.' },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, by: ORCHESTRATOR, meaning: 'No webhook delivery has this id, or it belongs to another user.' },

  // visual: charts, infographics, presentations, diagrams, the cache and the QuickChart endpoint.
  RESOURCE_NOT_FOUND: {
    status: 404,
    by: VISUAL,
    error: 'Resource not found',
    meaning: 'No such resource under /api/v1/ (charts, infographics, presentations, diagrams).',
  },
  OPERATION_NOT_FOUND: { status: 404, by: VISUAL, meaning: 'The resource exists but has no such operation; the message names the one it has.' },
  INVALID_CHARTS_ARRAY: { status: 400, by: VISUAL, error: 'Invalid charts array', meaning: '`charts` is missing, not an array, or empty.' },
  INVALID_INFOGRAPHICS_ARRAY: { status: 400, by: VISUAL, meaning: '`infographics` is missing, not an array, or empty.' },
  INVALID_DIAGRAMS_ARRAY: { status: 400, by: VISUAL, meaning: '`diagrams` is missing, not an array, or empty.' },
  INVALID_DIAGRAM: {
    status: 400,
    by: VISUAL,
    error: 'Invalid diagram',
    meaning:
      'A diagram is malformed (a node id used twice, an edge to no node, a link or file reference) or its DOT source does not parse; `diagramId` names it.',
  },
  CHART_NOT_RENDERABLE: {
    status: 400,
    by: VISUAL,
    error: 'Invalid chart specification',
    meaning: 'The chart is well-formed but Chart.js cannot draw it; `details` says why.',
  },
  IMAGE_TOO_LARGE: {
    status: 400,
    by: VISUAL,
    meaning:
      "The image would hold more than 16 megapixels (a diagram's size, pad or ratio, an infographic's rows); nothing was drawn. `details` gives the size and `maxPixels`.",
  },
  TOO_MANY_TICKS: {
    status: 400,
    by: VISUAL,
    meaning: 'An axis of the chart would have more ticks than the limit (5,000 per axis by default); `field` names the axis, nothing was drawn.',
  },
  SVG_TOO_LARGE: {
    status: 400,
    by: VISUAL,
    meaning: 'The SVG would be larger than the limit (4 MiB); nothing was stored. `details` gives `maxBytes`: draw fewer elements or ask for PNG.',
  },
  LIMIT_EXCEEDED: { status: 413, by: VISUAL, meaning: 'More items (charts, infographics, slides, diagrams) in one request than the limit.' },
  RENDER_FAILED: { status: 500, by: VISUAL, error: 'Chart rendering failed', meaning: 'The renderer failed or timed out on an item; `details` names it.' },
  RENDERER_BUSY: { status: 503, by: VISUAL, meaning: 'Every renderer is busy and the queue is full; retry after `retryAfter` seconds.' },
  CACHE_ENTRY_NOT_FOUND: { status: 404, by: VISUAL, meaning: 'No cached result has this key (never rendered, or expired).' },
  VERSION_NOT_SUPPORTED: { status: 400, by: VISUAL, meaning: 'The QuickChart `version` is not 2, 3 or 4.' },
  INVALID_CHART: { status: 400, by: VISUAL, meaning: 'The QuickChart `chart` is neither JSON nor JavaScript object-literal syntax.' },
  CHART_BASE64_INVALID: { status: 400, by: VISUAL, meaning: 'The QuickChart `chart` is not valid base64 (encoding=base64).' },
  CHART_TEXT_TOO_LARGE: {
    status: 413,
    by: VISUAL,
    meaning:
      'The QuickChart `chart` is JavaScript object-literal (JSON5) text longer than 262,144 characters; send it as JSON, which is read up to the body limit.',
  },
  CHART_NOT_DATA: {
    status: 400,
    by: VISUAL,
    meaning: 'The QuickChart `chart` contains JavaScript (a function, call or expression), which is never evaluated.',
  },
  CHART_OPTION_UNSUPPORTED: {
    status: 400,
    by: VISUAL,
    meaning: 'A Chart.js 2 option of the QuickChart `chart` has no Chart.js 4 equivalent; `field` names it.',
  },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

type Statuses<E> = E extends { status: infer S } ? (S extends readonly (infer N)[] ? N : S) : never;
/** The statuses `C` is answered with. */
export type StatusOf<C extends ErrorCode> = Statuses<(typeof ERROR_CODES)[C]>;
/** The codes listed with status `S`: what a factory for that status accepts. */
export type CodeFor<S extends number> = { [C in ErrorCode]: S extends StatusOf<C> ? C : never }[ErrorCode];

/** Each code by name (`Code.USER_NOT_FOUND`), so a throw site names a listed code and a typo does not compile. */
export const Code = Object.fromEntries(Object.keys(ERROR_CODES).map((code) => [code, code])) as { readonly [C in ErrorCode]: C };

export const isErrorCode = (value: unknown): value is ErrorCode => typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);

/** The statuses a code is listed with, the first being its usual one. */
export function statusesOf(code: ErrorCode): readonly number[] {
  const { status } = ERROR_CODES[code] as ErrorCodeEntry;
  return typeof status === 'number' ? [status] : status;
}
