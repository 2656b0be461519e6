import { PLAN_IDS } from '../../shared/plan-ids';
import { PAGING, anyObject, arr, bool, dateTime, int, nullable, num, obj, oneOfValues, pageLimit, pagePaging, query, str } from '../../shared/http/schemas';
import { HEALTH_STATUSES } from './admin/execution-view';
import { TIMEFRAMES, type Timeframe } from './admin/time-windows';
import { NAICS_SECTORS } from './report/industries';
// The health route's schemas live apart, so a cold instance's first health call loads them without the rest of this module's imports.
export { HEALTH_OR_SCHEMA, HEALTH_QUERY } from './health-schemas';
import { CANCELLED as CANCELLED_PATTERN, ERROR_PATTERNS } from './workflow/error-classification';

/**
 * Every input and answer schema of the orchestrator (its route table, routes.ts, and its queue
 * message), with the values its inputs take. The schema is the validator, and the handlers' and
 * domain functions' input types are inferred from it (Infer, BodyOf...): none is written by hand.
 */

const TRACKING_ID = str({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: "The execution's tracking id" });
const STATUS = oneOfValues(['processing', 'completed', 'failed']);
const HEALTH_STATUS = oneOfValues(HEALTH_STATUSES);
const SEARCH = str({ maxLength: 100 });

/** The executions a list shows: all, or those of one status. */
export const EXECUTION_STATUS_FILTERS = ['all', 'completed', 'failed', 'processing'] as const;
export type ExecutionStatusFilter = (typeof EXECUTION_STATUS_FILTERS)[number];
/** What the finder's error filter takes: the classified patterns, and the mark of an execution an administrator cancelled. */
export const ERROR_FILTERS = [...ERROR_PATTERNS, CANCELLED_PATTERN] as const;
export const SEARCH_SORTS = ['newest', 'oldest', 'longest', 'company'] as const;
export type SearchSort = (typeof SEARCH_SORTS)[number];
/** requested_by takes up to this many user ids (the console resolves an email search at identity into them). */
export const MAX_REQUESTERS = 25;
export const TREND_THEMES = ['professional', 'executive', 'corporate'] as const;
export type TrendTheme = (typeof TREND_THEMES)[number];
/** wide: 24 columns, 960 x 320 (a desktop); narrow: 24 rows, 380 x 720 (a phone, where 24 columns have no room for their labels). */
export const TREND_LAYOUTS = ['wide', 'narrow'] as const;
export type TrendLayout = (typeof TREND_LAYOUTS)[number];

const shortText = { type: 'string', minLength: 1, maxLength: 300 } as const;

/** A report request (POST api/reports), also checked again when a run reads it back from the execution. */
export const REPORT_REQUEST = {
  type: 'object',
  additionalProperties: false,
  required: ['company_name', 'industry_id', 'profile'],
  properties: {
    company_name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
    industry_id: { type: 'string', enum: Object.keys(NAICS_SECTORS) },
    locale: { type: 'string', minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$' },
    profile: {
      type: 'object',
      additionalProperties: false,
      properties: {
        description: { type: 'string', maxLength: 2000 },
        employees: { type: 'integer', minimum: 0, maximum: 10_000_000 },
        founded_year: { type: 'integer', minimum: 1800, maximum: 2100 },
        currency: { type: 'string', pattern: '^[A-Z]{3}$' },
        revenue_history: {
          type: 'array',
          maxItems: 30,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['year', 'revenue'],
            properties: {
              year: { type: 'integer', minimum: 1900, maximum: 2100 },
              revenue: { type: 'number', minimum: 0, maximum: 1e15 },
              net_income: { type: 'number', minimum: -1e15, maximum: 1e15 },
            },
          },
        },
        goals: { type: 'array', maxItems: 10, items: shortText },
        challenges: { type: 'array', maxItems: 10, items: shortText },
        key_metrics: {
          type: 'object',
          maxProperties: 20,
          propertyNames: { pattern: '^[A-Za-z][A-Za-z0-9_ ]{0,59}$' },
          additionalProperties: { type: 'number', minimum: -1e15, maximum: 1e15 },
        },
      },
    },
  },
} as const;

/** A message of the execution queue (ORCHESTRATOR_QUEUE): the execution to run. */
export const EXECUTION_MESSAGE = {
  type: 'object',
  required: ['trackingId'],
  properties: { trackingId: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

export const REPORT_BODY = { schema: REPORT_REQUEST, limit: 64 * 1024 };
export const TRACKING_PARAM = obj({ trackingId: TRACKING_ID });
export const FAILURES_QUERY = query({ timeframe: oneOfValues(Object.keys(TIMEFRAMES) as Timeframe[], { default: '24h' }) });
export const EXECUTIONS_QUERY = query({ limit: PAGING.limit, status: oneOfValues(EXECUTION_STATUS_FILTERS, { default: 'all' }), search: SEARCH });
export const PROFILES_QUERY = query({ ...pagePaging(20), status: oneOfValues(EXECUTION_STATUS_FILTERS, { default: 'all' }), search: SEARCH });
export const TREND_QUERY = query({
  theme: oneOfValues(TREND_THEMES, { default: 'professional' }),
  tz: str({ maxLength: 64, default: 'UTC' }),
  layout: oneOfValues(TREND_LAYOUTS, { default: 'wide', description: 'wide: 24 columns (960 x 320); narrow: 24 rows (380 x 720), for a phone' }),
});
export const EMPTY_QUERY = query({});
const USER_ID = '[A-Za-z0-9._:@-]{1,64}';
export const EXECUTION_SEARCH_QUERY = query({
  tracking_id: str({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Executions whose tracking id starts with this' }),
  company: str({ minLength: 1, maxLength: 100, description: 'Executions of companies whose name contains this, ignoring case, as plain text' }),
  requested_by: str({
    pattern: `^${USER_ID}(,${USER_ID}){0,${MAX_REQUESTERS - 1}}$`,
    description: `Executions requested by these users: up to ${MAX_REQUESTERS} user ids, comma-separated (the console finds them at identity from an email)`,
  }),
  status: oneOfValues(EXECUTION_STATUS_FILTERS, { default: 'all' }),
  error: oneOfValues(ERROR_FILTERS, { description: 'The classified error pattern of a failed execution, or CANCELLED' }),
  from: dateTime({ description: 'Created at or after this time' }),
  to: dateTime({ description: 'Created before this time' }),
  sort: oneOfValues(SEARCH_SORTS, { default: 'newest', description: 'newest or oldest first (creation), longest first (duration), or by company' }),
  limit: pageLimit(25),
  cursor: str({ maxLength: 500, description: 'next_cursor of the previous page (same filters and sort)' }),
});
/** A bulk retry retries at most this many executions per call. */
const BULK_RETRY_MAX = 500;
export const BULK_RETRY_BODY = {
  schema: obj(
    {
      from: dateTime({ description: 'Failed executions created at or after this time' }),
      to: dateTime({ description: '... and before this time' }),
      limit: int({ minimum: 1, maximum: BULK_RETRY_MAX, default: 100, description: 'At most this many are retried by this call, oldest first' }),
      dryRun: bool({ default: false, description: 'Only count them' }),
    },
    { optional: ['limit', 'dryRun'], closed: true },
  ),
  limit: 1024,
};
export const OPTIONAL_EMPTY_BODY = { schema: anyObject({ maxProperties: 0 }), limit: 1024, optional: true };
export const CONSOLE_PATH = obj({ path: str() }, { optional: ['path'] });

export const ACCEPTED = obj({
  success: bool(),
  trackingId: str(),
  status: oneOfValues(['processing']),
  statusUrl: str(),
  quota: obj({ limit: nullable(int()), count: int(), resetsAt: dateTime(), period: oneOfValues(['billing_period', 'calendar_month']) }),
});
export const REPORT_STATUS = obj({
  success: bool(),
  trackingId: str(),
  status: STATUS,
  company_name: str(),
  industry_id: str(),
  plan: oneOfValues(PLAN_IDS),
  progress_percentage: num(),
  health_status: HEALTH_STATUS,
  current_step: nullable(obj({ step_number: int(), step_name: nullable(str()) })),
  total_steps: int(),
  attempts: int(),
  created_at: dateTime(),
  started_at: nullable(dateTime()),
  completed_at: nullable(dateTime()),
  duration_ms: nullable(int()),
  visuals: obj({ status: nullable(str()), error: nullable(str()) }),
  error: nullable(anyObject()),
  downloadLinks: arr(obj({ kind: str(), url: str(), fileName: str(), contentType: str(), expiresAt: dateTime() })),
});
export const LOGGER_TEST = obj({
  success: bool(),
  version: str(),
  trackingId: str(),
  totalDurationMs: int(),
  steps: arr(anyObject()),
  persistence: anyObject(),
  logSearchTips: arr(str()),
});
export const ENHANCED_TEST = obj({
  success: bool(),
  message: str(),
  trackingId: str(),
  diagnostic: obj({ enhancedAdminHandlerUsed: bool(), workflowLoggerActive: bool(), version: str() }),
  workflowTracking: obj({ totalSteps: int(), completedSteps: int(), totalDuration: int() }),
});
/** An execution as the administration answers list it. */
const EXECUTION_ROW_FIELDS = {
  tracking_id: str(),
  processing_status: STATUS,
  company_name: str(),
  industry_id: str(),
  progress_percentage: num(),
  health_status: HEALTH_STATUS,
  duration_ms: nullable(int()),
  running_seconds: int(),
  current_step: nullable(obj({ step_number: int(), step_name: nullable(str()) })),
  attempts: int(),
  created_at: dateTime(),
  started_at: nullable(dateTime()),
  completed_at: nullable(dateTime()),
  error: nullable(obj({ message: nullable(str()), error_pattern: nullable(str()), error_source: nullable(str()), step: nullable(str()) })),
};
const EXECUTION_ROW = obj(EXECUTION_ROW_FIELDS, { optional: ['running_seconds'] });
/** A row of the processing log. */
const LOG_ROW = obj({
  id: int(),
  step_name: str(),
  step_number: int(),
  status: str(),
  duration_ms: nullable(int()),
  tokens_used: nullable(int()),
  error_message: nullable(str()),
  metadata: nullable(str()),
  timestamp: dateTime(),
  error_pattern: nullable(str()),
  error_source: nullable(str()),
  error_details: nullable(str()),
});
/** What an administrator did to an execution (orchestrator_admin_actions). */
const ADMIN_ACTION = obj({
  id: int(),
  at: dateTime(),
  action: oneOfValues(['execution.retry', 'execution.rerun', 'execution.cancel', 'executions.retry_failed']),
  tracking_id: nullable(str()),
  related_tracking_id: nullable(str({ description: 'A re-run: the new execution' })),
  actor: obj({ id: str(), email: str() }),
  result: oneOfValues(['success', 'failure']),
  reason: nullable(str({ description: 'The error code of a refusal' })),
  details: nullable(anyObject()),
});
const PROCESSING_METRICS = obj({ progress_percentage: num(), completed_steps: int(), total_steps: int(), current_step: nullable(str()) });
export const OVERVIEW = obj({
  success: bool(),
  generated_at: dateTime(),
  dashboard: obj({
    health: obj({
      score: int(),
      status: oneOfValues(['EXCELLENT', 'GOOD', 'FAIR', 'POOR']),
      total_executions: int(),
      success_rate: num(),
      avg_processing_time_ms: int(),
      completed: int(),
      failed: int(),
      processing: int(),
    }),
    failures: obj({
      total_errors: int(),
      by_source: arr(obj({ error_source: str(), error_count: int(), percentage: num(), latest_occurrence: nullable(dateTime()) })),
      by_pattern: arr(obj({ error_pattern: str(), error_count: int(), latest_occurrence: nullable(dateTime()) })),
    }),
    alerts: arr(obj({ level: oneOfValues(['HIGH', 'MEDIUM']), type: str(), message: str(), recommendation: str() })),
    long_running_count: int(),
    trends: obj({
      window: str(),
      interval: str(),
      hourly: arr(obj({ hour: dateTime(), executions: int(), completed: int(), failed: int(), processing: int(), avg_duration_ms: nullable(int()) })),
    }),
  }),
});
export const FAILURES = obj({
  success: bool(),
  timeframe: oneOfValues(Object.keys(TIMEFRAMES)),
  since: dateTime(),
  generated_at: dateTime(),
  failure_analysis: obj({
    total_errors: int(),
    error_patterns: arr(obj({ error_pattern: str(), occurrences: int(), latest_occurrence: nullable(dateTime()), sample_messages: nullable(str()) })),
    error_sources: arr(obj({ error_source: str(), error_count: int() })),
    troubleshooting_recommendations: arr(obj({ issue: str(), count: int(), recommendation: str(), priority: oneOfValues(['HIGH', 'MEDIUM', 'LOW']) })),
    step_failures: arr(obj({ step_number: nullable(int()), step_name: nullable(str()), failures: int(), percentage: num(), latest_failure: dateTime() })),
    affected_clients: obj({
      failed_executions: int(),
      clients: arr(obj({ company_name: str(), tracking_id: str(), failed_at: dateTime(), error_pattern: nullable(str()), error_message: nullable(str()) })),
    }),
  }),
});
export const EXECUTIONS = obj({
  success: bool(),
  generated_at: dateTime(),
  filters: anyObject(),
  executions: obj({
    summary: obj({ total: int(), completed: int(), failed: int(), processing: int(), average_duration_ms: nullable(int()), long_running_count: int() }),
    recent: arr(EXECUTION_ROW),
    long_running: arr(
      obj({
        tracking_id: str(),
        running_seconds: int(),
        processing_status: STATUS,
        company_name: str(),
        current_step: nullable(str()),
        running_since: dateTime(),
      }),
    ),
  }),
});
export const EXECUTION_STATUS = obj({
  success: bool(),
  trackingId: str(),
  status: STATUS,
  data: obj({
    execution: obj(
      { ...EXECUTION_ROW_FIELDS, plan: nullable(str()), requested_by: nullable(str()), updated_at: dateTime() },
      { optional: ['running_seconds'] },
    ),
    visuals: obj({ status: nullable(str()), error: nullable(str()) }),
    submission: anyObject({ description: 'The report request as submitted' }),
    logs: arr(LOG_ROW),
    processing_metrics: PROCESSING_METRICS,
    downloads: arr(obj({ kind: str(), fileName: str(), contentType: str(), size: int(), url: str(), expiresAt: dateTime() })),
    downloadLinks: arr(str()),
    actions: arr(ADMIN_ACTION, { description: 'Retries, re-runs and cancellations naming this execution, newest first (at most 50)' }),
  }),
  processing_metrics: PROCESSING_METRICS,
  downloadLinks: arr(str()),
});
export const EXECUTION_SEARCH = obj({
  success: bool(),
  generated_at: dateTime(),
  filters: anyObject(),
  executions: arr(obj({ ...EXECUTION_ROW_FIELDS, requested_by: str() }, { optional: ['running_seconds'] })),
  next_cursor: nullable(str({ description: 'The cursor of the next page; null on the last page' })),
});
export const RETRIED = obj({
  success: bool(),
  trackingId: str(),
  status: oneOfValues(['processing']),
  retried: bool({ description: 'False when it was already processing: nothing was queued again' }),
});
export const RERUN = obj({
  success: bool(),
  trackingId: str({ description: 'The new execution' }),
  rerunOf: str(),
  status: oneOfValues(['processing']),
  repeated: bool({ description: 'True when this Idempotency-Key already made the re-run: the same execution' }),
});
export const CANCELLED = obj({
  success: bool(),
  trackingId: str(),
  status: oneOfValues(['failed']),
  cancelled: bool({ description: 'False when it had already been cancelled' }),
});
export const BULK_RETRIED = obj({
  success: bool(),
  dryRun: bool(),
  from: dateTime(),
  to: dateTime(),
  matched: int({ description: 'Failed executions in the range before this call' }),
  retried: int(),
  trackingIds: arr(str()),
  remaining: int({ description: 'Failed executions still in the range (the next call retries them)' }),
});
export const PROFILES = obj({
  success: bool(),
  profiles: arr(
    obj({
      company_name: str(),
      industry_id: str(),
      execution_count: int(),
      last_submission_at: nullable(dateTime()),
      latest_status: STATUS,
      latest_tracking_id: str(),
    }),
  ),
  pagination: obj({ page: int(), limit: int(), total: int(), totalPages: int() }),
});
export const CONSOLE_CONFIG = obj({ services: obj({ identity: str(), payment: str(), orchestrator: str(), visual: str() }) });
export const CONSOLE_FILE = {
  description: 'A file of the console (index.html for every page path)',
  content: {
    'text/html': str(),
    'text/javascript': str(),
    'text/css': str(),
    'image/svg+xml': str(),
    'image/png': str({ format: 'binary' }),
    'application/json': anyObject(),
  },
};
export const REDIRECT = { description: 'The folder form of the address', headers: { Location: { description: 'The console folder', schema: str() } } };
export const NOT_MODIFIED = { description: 'The cached copy is current (ETag)' };
export const TREND_SVG = {
  description: 'The 24-hour hourly trend as SVG',
  content: { 'image/svg+xml': str() },
  headers: { 'X-Cache': { description: "HIT or MISS in the visual service's cache", schema: str() } },
};

// ---- telling the client a report is ready (notify/): e-mail preferences, webhook endpoints and deliveries
const NOTIFY_ID = str({ pattern: '^[A-Za-z0-9_]{1,64}$' });
export const NOTIFICATION_PREFERENCES_BODY = {
  schema: obj({ email: bool({ description: 'true: e-mail me when a report completes or fails (the default); false: do not' }) }, { closed: true }),
  limit: 1024,
};
export const NOTIFICATION_PREFERENCES = obj({
  email: bool(),
  address: nullable(str({ description: 'Where the e-mails go: the address of your last report request (null before any)' })),
  updatedAt: nullable(dateTime()),
});
export const WEBHOOK_ENDPOINT_BODY = {
  schema: obj(
    {
      url: str({ minLength: 1, maxLength: 2048, description: 'An https URL whose host resolves to public addresses only' }),
      description: str({ maxLength: 200 }),
    },
    { optional: ['description'], closed: true },
  ),
  limit: 4096,
};
const ENDPOINT_FIELDS = {
  id: str({ description: 'we_…' }),
  url: str(),
  description: nullable(str()),
  createdAt: dateTime(),
  previousSecretExpiresAt: nullable(dateTime({ description: 'Until when the secret before the last rotation signs too (a second v1 signature)' })),
};
export const WEBHOOK_ENDPOINT = obj(ENDPOINT_FIELDS);
export const WEBHOOK_ENDPOINT_SECRET = obj({
  ...ENDPOINT_FIELDS,
  secret: str({ pattern: '^whsec_', description: 'The signing secret: shown only in this answer; keep it' }),
});
export const WEBHOOK_ENDPOINTS = obj({ endpoints: arr(WEBHOOK_ENDPOINT) });
export const WEBHOOK_ENDPOINT_DELETED = obj({ success: bool(), id: str(), deleted: bool() });
export const WEBHOOK_ENDPOINT_PARAM = obj({ id: NOTIFY_ID });
export const WEBHOOK_DELIVERY_PARAM = obj({ id: NOTIFY_ID });
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const WEBHOOK_DELIVERIES_QUERY = query({ ...PAGING });
export const ADMIN_WEBHOOK_DELIVERIES_QUERY = query({
  status: oneOfValues(['all', ...WEBHOOK_DELIVERY_STATUSES] as const, { default: 'all' }),
  userId: str({ pattern: '^[A-Za-z0-9._:@-]{1,64}$', description: 'Deliveries to endpoints of this user' }),
  ...PAGING,
});
export const WEBHOOK_DELIVERY = obj({
  id: str({ description: 'wd_…' }),
  endpointId: str(),
  userId: str(),
  eventId: str({ description: 'evt_…: the event body’s id' }),
  eventType: oneOfValues(['report.completed', 'report.failed']),
  trackingId: str(),
  status: oneOfValues(WEBHOOK_DELIVERY_STATUSES),
  attempts: int(),
  nextAttemptAt: nullable(dateTime()),
  lastStatusCode: nullable(int()),
  lastError: nullable(str()),
  createdAt: dateTime(),
  updatedAt: dateTime(),
  payload: str({ description: 'The JSON body every try sends (and signs)' }),
  tries: arr(
    obj({
      attempt: int(),
      at: dateTime(),
      durationMs: int(),
      statusCode: nullable(int()),
      responseExcerpt: nullable(str({ description: 'The first 500 characters of the answer' })),
      error: nullable(str()),
      outcome: oneOfValues(['succeeded', 'failed']),
    }),
  ),
});
export const WEBHOOK_DELIVERIES = obj({ deliveries: arr(WEBHOOK_DELIVERY), limit: int(), offset: int() });
/** The report quota of the current billing period: the paid period, or the calendar month (UTC) for free and plans without an end. */
export const QUOTA = obj({
  limit: nullable(int({ description: 'Reports allowed in the period; null is unlimited' })),
  used: int(),
  remaining: nullable(int()),
  resetsAt: dateTime(),
  period: oneOfValues(['billing_period', 'calendar_month']),
});

/** GET api/reports: the signed-in user's reports, newest first, a page at a time (issue 51). */
export const MY_REPORTS_QUERY = query({
  status: oneOfValues(EXECUTION_STATUS_FILTERS, { default: 'all' }),
  limit: pageLimit(20),
  cursor: str({ maxLength: 500, description: 'next_cursor of the previous page (same status filter)' }),
});
const DOWNLOAD_LINK = obj({ kind: str({ description: 'pdf, or the deck' }), url: str(), fileName: str(), contentType: str(), expiresAt: dateTime() });
export const MY_REPORTS = obj({
  success: bool(),
  reports: arr(
    obj({
      trackingId: str(),
      company: str(),
      status: STATUS,
      progress: num(),
      createdAt: dateTime(),
      completedAt: nullable(dateTime()),
      downloadLinks: arr(DOWNLOAD_LINK, {
        description: 'Completed reports: fresh read-only links (the PDF, and the deck where the plan makes one); empty otherwise',
      }),
    }),
  ),
  next_cursor: nullable(str({ description: 'The cursor of the next page; null on the last page' })),
  quota: QUOTA,
});
// Share links of a report and its shared page (issue 51, item 5; share/).
export const SHARE_PARAM = obj({
  trackingId: TRACKING_ID,
  shareId: str({ pattern: '^shr_[0-9a-f]{24}$', minLength: 28, maxLength: 28, description: 'The share link, as its creation or the list names it' }),
});
export const SHARE_TOKEN_PARAM = obj({
  token: str({ maxLength: 200, description: 'The share token of the link (43 characters of base64url); anything else is an unknown link' }),
});
export const SHARE_BODY = {
  schema: obj({ expiresInDays: int({ minimum: 1, maximum: 30, description: 'How many days the link opens the report, 1 to 30' }) }, { closed: true }),
  limit: 1024,
};
const SHARE_FIELDS = {
  shareId: str(),
  trackingId: str(),
  status: oneOfValues(['active', 'expired', 'revoked']),
  createdAt: dateTime(),
  expiresAt: dateTime(),
  revokedAt: nullable(dateTime()),
  views: int({ description: 'Page views counted while the link was valid' }),
  lastViewedAt: nullable(dateTime()),
};
export const SHARE_CREATED = obj({
  success: bool(),
  ...SHARE_FIELDS,
  token: str({ description: 'The token, shown this once: only its SHA-256 is kept' }),
  url: str({ format: 'uri', description: "The report's web page (no account needed)" }),
  pdfUrl: str({ format: 'uri', description: "The report's PDF through the link (a redirect to a short-lived storage link)" }),
});
export const SHARE_LIST = obj({ success: bool(), trackingId: str(), shares: arr(obj(SHARE_FIELDS)) });
export const SHARE_REVOKED = obj({ success: bool(), share: obj(SHARE_FIELDS) });
export const SHARED_PAGE = { description: 'The report as a web page (HTML, no script)', content: { 'text/html': str() } };
export const SHARED_PAGE_GONE = { description: 'A page saying the link expired or was revoked', content: { 'text/html': str() } };
export const SHARED_PAGE_UNKNOWN = { description: 'A page saying no report is shared at this address', content: { 'text/html': str() } };
export const SHARED_PDF = {
  description: "The report's PDF: a redirect to a read-only storage link of ORCHESTRATOR_DOWNLOAD_LINK_MINUTES",
  headers: { Location: { description: 'The PDF (signed, read-only, short-lived)', schema: str() } },
};
