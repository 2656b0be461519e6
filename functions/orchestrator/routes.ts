import { ADMIN, USER } from '../../shared/auth/guards';
import { Code } from '../../shared/http/errors';
import { PUBLIC, refusal, RETRY_AFTER, routes } from '../../shared/http/route';
import { orchestratorContext } from './context';
import { HEALTH } from './health-route';
import * as admin from './operations/admin';
import { consoleConfigFile, consoleFiles, trendChartSvg } from './operations/console';
import { testEnhancedOrchestrator, testWorkflowLogger } from './operations/diagnostics';
import { cancelMyReport, createReport, getQuota, getReport, listMyReports } from './operations/reports';
import * as notify from './operations/notifications';
import { createShareOp, listSharesOp, revokeShareOp, sharedPageOp, sharedPdfOp } from './operations/shares';
import * as s from './schemas';

const route = routes('orchestrator', orchestratorContext);

/** The refusals the execution actions share: an unknown tracking id, a queue that did not take the work (nothing changed) or identity not answering the guard. */
const NO_EXECUTION = refusal([Code.EXECUTION_NOT_FOUND]);
const QUEUE_DOWN = refusal([Code.QUEUE_UNAVAILABLE, Code.IDENTITY_UNAVAILABLE], { headers: RETRY_AFTER });

/** The orchestrator's whole HTTP surface: one route per line (id, method, path, who may call, what it takes and answers, handler). */
// prettier-ignore
export const ROUTES = [
  HEALTH,
  route('reports-create', 'POST', 'api/reports', USER, { body: s.REPORT_BODY, 202: { schema: s.ACCEPTED, headers: { Location: { description: 'The report status URL (statusUrl)', schema: { type: 'string', format: 'uri' } }, 'Idempotent-Replayed': { description: 'true when the Idempotency-Key already made this report (nothing new was made or counted)', schema: { type: 'string' } } } }, 400: refusal([Code.VALIDATION_FAILED, Code.INVALID_JSON, Code.INVALID_IDEMPOTENCY_KEY]), 422: refusal([Code.IDEMPOTENCY_KEY_REUSED]), 429: refusal([Code.REPORT_QUOTA_EXCEEDED], { headers: RETRY_AFTER }), 503: refusal([Code.QUEUE_UNAVAILABLE, Code.IDENTITY_UNAVAILABLE], { headers: RETRY_AFTER }) }, createReport),
  route('reports-list', 'GET', 'api/reports', USER, { query: s.MY_REPORTS_QUERY, 200: s.MY_REPORTS }, listMyReports),
  route('quota', 'GET', 'api/quota', USER, { 200: s.QUOTA }, getQuota),
  route('reports-get', 'GET', 'api/reports/{trackingId}', USER, { params: s.TRACKING_PARAM, 200: s.REPORT_STATUS, 404: refusal([Code.REPORT_NOT_FOUND]) }, getReport),
  route('reports-cancel', 'POST', 'api/reports/{trackingId}/cancel', USER, { params: s.TRACKING_PARAM, body: s.OPTIONAL_EMPTY_BODY, 200: s.CANCELLED, 404: refusal([Code.REPORT_NOT_FOUND]), 409: refusal([Code.EXECUTION_NOT_CANCELLABLE]) }, cancelMyReport),
  route('reports-shares-create', 'POST', 'api/reports/{trackingId}/shares', USER, { params: s.TRACKING_PARAM, body: s.SHARE_BODY, 201: s.SHARE_CREATED, 404: refusal([Code.REPORT_NOT_FOUND]), 409: refusal([Code.REPORT_NOT_SHAREABLE]) }, createShareOp),
  route('reports-shares-list', 'GET', 'api/reports/{trackingId}/shares', USER, { params: s.TRACKING_PARAM, 200: s.SHARE_LIST, 404: refusal([Code.REPORT_NOT_FOUND]) }, listSharesOp),
  route('reports-shares-revoke', 'POST', 'api/reports/{trackingId}/shares/{shareId}/revoke', USER, { params: s.SHARE_PARAM, body: s.OPTIONAL_EMPTY_BODY, 200: s.SHARE_REVOKED, 404: refusal([Code.REPORT_NOT_FOUND, Code.SHARE_NOT_FOUND]) }, revokeShareOp),
  route('shared-report-page', 'GET', 'r/{token}', PUBLIC, { params: s.SHARE_TOKEN_PARAM, 200: s.SHARED_PAGE, 404: s.SHARED_PAGE_UNKNOWN, 410: s.SHARED_PAGE_GONE }, sharedPageOp),
  route('shared-report-pdf', 'GET', 'r/{token}/pdf', PUBLIC, { params: s.SHARE_TOKEN_PARAM, 303: s.SHARED_PDF, 404: s.SHARED_PAGE_UNKNOWN, 410: s.SHARED_PAGE_GONE }, sharedPdfOp),
  route('test-workflow-logger', 'POST', 'test-workflow-logger', ADMIN, { body: s.OPTIONAL_EMPTY_BODY, 200: s.LOGGER_TEST }, testWorkflowLogger),
  route('test-enhanced-orchestrator', 'POST', 'test-enhanced-orchestrator', ADMIN, { body: s.OPTIONAL_EMPTY_BODY, 200: s.ENHANCED_TEST }, testEnhancedOrchestrator),
  route('admin-overview', 'GET', 'api/admin/dashboard/overview', ADMIN, { query: s.EMPTY_QUERY, 200: s.OVERVIEW }, admin.overview),
  route('admin-failures', 'GET', 'api/admin/dashboard/failures', ADMIN, { query: s.FAILURES_QUERY, 200: s.FAILURES }, admin.failures),
  route('admin-executions', 'GET', 'api/admin/dashboard/executions', ADMIN, { query: s.EXECUTIONS_QUERY, 200: s.EXECUTIONS }, admin.executions),
  route('admin-trend-chart', 'GET', 'api/admin/dashboard/trend-chart', ADMIN, { query: s.TREND_QUERY, 200: s.TREND_SVG, 502: refusal([Code.VISUAL_UNAVAILABLE]) }, trendChartSvg),
  route('admin-status', 'GET', 'api/admin/status/{trackingId}', ADMIN, { params: s.TRACKING_PARAM, 200: s.EXECUTION_STATUS, 404: refusal([Code.EXECUTION_NOT_FOUND]) }, admin.status),
  route('admin-profiles', 'GET', 'api/admin/profiles', ADMIN, { query: s.PROFILES_QUERY, 200: s.PROFILES }, admin.profiles),
  route('admin-executions-search', 'GET', 'api/admin/executions', ADMIN, { query: s.EXECUTION_SEARCH_QUERY, 200: s.EXECUTION_SEARCH }, admin.search),
  route('admin-execution-retry', 'POST', 'api/admin/executions/{trackingId}/retry', ADMIN, { params: s.TRACKING_PARAM, body: s.OPTIONAL_EMPTY_BODY, 202: s.RETRIED, 404: NO_EXECUTION, 409: refusal([Code.EXECUTION_NOT_RETRYABLE]), 503: QUEUE_DOWN }, admin.retry),
  route('admin-execution-rerun', 'POST', 'api/admin/executions/{trackingId}/rerun', ADMIN, { params: s.TRACKING_PARAM, body: s.OPTIONAL_EMPTY_BODY, 202: s.RERUN, 404: NO_EXECUTION, 409: refusal([Code.EXECUTION_NOT_FINISHED]), 503: QUEUE_DOWN }, admin.rerun),
  route('admin-execution-cancel', 'POST', 'api/admin/executions/{trackingId}/cancel', ADMIN, { params: s.TRACKING_PARAM, body: s.OPTIONAL_EMPTY_BODY, 200: s.CANCELLED, 404: NO_EXECUTION, 409: refusal([Code.EXECUTION_NOT_CANCELLABLE]) }, admin.cancel),
  route('admin-executions-retry-failed', 'POST', 'api/admin/executions/retry-failed', ADMIN, { body: s.BULK_RETRY_BODY, 200: s.BULK_RETRIED }, admin.retryFailed),
  route('notifications-preferences-get', 'GET', 'api/notifications/preferences', USER, { 200: s.NOTIFICATION_PREFERENCES }, notify.getPreferences),
  route('notifications-preferences-put', 'PUT', 'api/notifications/preferences', USER, { body: s.NOTIFICATION_PREFERENCES_BODY, 200: s.NOTIFICATION_PREFERENCES }, notify.putPreferences),
  route('webhook-endpoints-create', 'POST', 'api/webhooks/endpoints', USER, { body: s.WEBHOOK_ENDPOINT_BODY, 201: s.WEBHOOK_ENDPOINT_SECRET, 400: refusal([Code.WEBHOOK_URL_INVALID, Code.WEBHOOK_URL_NOT_ALLOWED]), 403: refusal([Code.WEBHOOKS_PLAN_REQUIRED]), 409: refusal([Code.WEBHOOK_ENDPOINT_LIMIT]) }, notify.createEndpoint),
  route('webhook-endpoints-list', 'GET', 'api/webhooks/endpoints', USER, { 200: s.WEBHOOK_ENDPOINTS }, notify.listEndpoints),
  route('webhook-endpoints-delete', 'DELETE', 'api/webhooks/endpoints/{id}', USER, { params: s.WEBHOOK_ENDPOINT_PARAM, 200: s.WEBHOOK_ENDPOINT_DELETED, 404: refusal([Code.WEBHOOK_ENDPOINT_NOT_FOUND]) }, notify.deleteEndpoint),
  route('webhook-endpoints-rotate-secret', 'POST', 'api/webhooks/endpoints/{id}/rotate-secret', USER, { params: s.WEBHOOK_ENDPOINT_PARAM, body: s.OPTIONAL_EMPTY_BODY, 200: s.WEBHOOK_ENDPOINT_SECRET, 404: refusal([Code.WEBHOOK_ENDPOINT_NOT_FOUND]) }, notify.rotateSecret),
  route('webhook-endpoint-deliveries', 'GET', 'api/webhooks/endpoints/{id}/deliveries', USER, { params: s.WEBHOOK_ENDPOINT_PARAM, query: s.WEBHOOK_DELIVERIES_QUERY, 200: s.WEBHOOK_DELIVERIES, 404: refusal([Code.WEBHOOK_ENDPOINT_NOT_FOUND]) }, notify.deliveries),
  route('webhook-delivery-resend', 'POST', 'api/webhooks/deliveries/{id}/resend', USER, { params: s.WEBHOOK_DELIVERY_PARAM, body: s.OPTIONAL_EMPTY_BODY, 200: s.WEBHOOK_DELIVERY, 404: refusal([Code.WEBHOOK_DELIVERY_NOT_FOUND]) }, notify.resend),
  route('admin-webhook-deliveries', 'GET', 'api/admin/webhooks/deliveries', ADMIN, { query: s.ADMIN_WEBHOOK_DELIVERIES_QUERY, 200: s.WEBHOOK_DELIVERIES }, notify.adminDeliveries),
  route('console-config', 'GET', 'console/config.json', PUBLIC, { 200: s.CONSOLE_CONFIG }, consoleConfigFile),
  route('console', ['GET', 'HEAD'], 'console/{*path}', PUBLIC, { params: s.CONSOLE_PATH, 200: s.CONSOLE_FILE, 304: s.NOT_MODIFIED, 308: s.REDIRECT, 404: refusal([Code.CONSOLE_FILE_NOT_FOUND]), 503: refusal([Code.CONSOLE_NOT_BUILT]) }, consoleFiles),
];

export const DESCRIPTION =
  'Report executions through fixed workflow stages (queued, logged to the console and SQL), PDF reports with charts, the administration API and console.';
