import type { PlatformClient } from '../../../client';
import type { operations } from '../../../client/openapi/orchestrator';
import { ApiError, call, type Ok, type ServiceName } from './http';

export type ExecutionStatus = 'processing' | 'completed' | 'failed';
export type StatusFilter = 'all' | ExecutionStatus;
export type Timeframe = '24h' | '7d' | '30d';
export type TrendTheme = 'professional' | 'executive' | 'corporate';

/** The administration answers as the orchestrator's API document types them: the console's views are its types. */
export type Overview = Ok<operations['admin-overview']>;
export type HourlyTrend = Overview['dashboard']['trends']['hourly'][number];
export type Alert = Overview['dashboard']['alerts'][number];
export type ExecutionsAnswer = Ok<operations['admin-executions']>;
export type ExecutionRow = ExecutionsAnswer['executions']['recent'][number];
export type StatusAnswer = Ok<operations['admin-status']>;
export type LogRow = StatusAnswer['data']['logs'][number];
export type FailuresAnswer = Ok<operations['admin-failures']>;
export type SearchQuery = NonNullable<operations['admin-executions-search']['parameters']['query']>;
export type SearchAnswer = Ok<operations['admin-executions-search']>;
export type FoundExecution = SearchAnswer['executions'][number];
export type SearchSort = NonNullable<SearchQuery['sort']>;
export type ErrorFilter = NonNullable<SearchQuery['error']>;
export type AdminAction = StatusAnswer['data']['actions'][number];
export type BulkRetryAnswer = Ok<operations['admin-executions-retry-failed']>;
export type TrendLayout = 'wide' | 'narrow';
export type WebhookDeliveriesQuery = NonNullable<operations['admin-webhook-deliveries']['parameters']['query']>;
export type WebhookDeliveriesAnswer = Ok<operations['admin-webhook-deliveries']>;
export type WebhookDelivery = WebhookDeliveriesAnswer['deliveries'][number];
export type WebhookDeliveryStatus = NonNullable<WebhookDeliveriesQuery['status']>;

export interface ProfilesAnswer {
  profiles: {
    company_name: string;
    industry_id: string | null;
    execution_count: number;
    last_submission_at: string | null;
    latest_status: ExecutionStatus;
    latest_tracking_id: string;
  }[];
  pagination: { page: number; limit: number; total: number; totalPages: number };
}

export interface HealthAnswer {
  service: string;
  status: 'healthy' | 'degraded' | 'unhealthy' | 'stopped';
  /** What is wrong, one line each: the failing dependencies (degraded, unhealthy) or the settings to fix (stopped). */
  problems?: string[];
  timestamp: string;
  dependencies: Record<string, { ok: boolean; latencyMs: number; detail?: string; error?: string }>;
}

const tracking = (trackingId: string) => ({ params: { path: { trackingId } } });

export const orchestratorApi = {
  overview: (): Promise<Overview> => call('orchestrator', (c) => c.orchestrator.GET('/orchestrator/api/admin/dashboard/overview')),
  /** The overview's trend chart (SVG), shown from a blob: an <img> could not send the token. */
  trendChart: (theme: TrendTheme, tz: string, layout: TrendLayout): Promise<Blob> =>
    call('orchestrator', (c) =>
      c.orchestrator.GET('/orchestrator/api/admin/dashboard/trend-chart', { params: { query: { theme, tz, layout } }, parseAs: 'text' }),
    ).then((svg) => new Blob([svg], { type: 'image/svg+xml' })),
  search: (query: SearchQuery): Promise<SearchAnswer> =>
    call('orchestrator', (c) => c.orchestrator.GET('/orchestrator/api/admin/executions', { params: { query } })),
  retry: (trackingId: string) =>
    call('orchestrator', (c) => c.orchestrator.POST('/orchestrator/api/admin/executions/{trackingId}/retry', { ...tracking(trackingId), body: {} })),
  /** `key` makes a repeated click (or a retried request) answer the same new execution. */
  rerun: (trackingId: string, key: string) =>
    call('orchestrator', (c) =>
      c.orchestrator.POST('/orchestrator/api/admin/executions/{trackingId}/rerun', { ...tracking(trackingId), body: {}, headers: { 'Idempotency-Key': key } }),
    ),
  cancel: (trackingId: string) =>
    call('orchestrator', (c) => c.orchestrator.POST('/orchestrator/api/admin/executions/{trackingId}/cancel', { ...tracking(trackingId), body: {} })),
  retryFailed: (from: string, to: string, dryRun: boolean): Promise<BulkRetryAnswer> =>
    call('orchestrator', (c) => c.orchestrator.POST('/orchestrator/api/admin/executions/retry-failed', { body: { from, to, dryRun, limit: 100 } })),
  executions: (status: StatusFilter, limit: number, search: string): Promise<ExecutionsAnswer> =>
    call('orchestrator', (c) =>
      c.orchestrator.GET('/orchestrator/api/admin/dashboard/executions', { params: { query: { status, limit, search: search || undefined } } }),
    ),
  profiles: (search: string, status: StatusFilter, limit: number): Promise<ProfilesAnswer> =>
    call('orchestrator', (c) => c.orchestrator.GET('/orchestrator/api/admin/profiles', { params: { query: { search: search || undefined, status, limit } } })),
  status: (trackingId: string): Promise<StatusAnswer> =>
    call('orchestrator', (c) => c.orchestrator.GET('/orchestrator/api/admin/status/{trackingId}', tracking(trackingId))),
  failures: (timeframe: Timeframe): Promise<FailuresAnswer> =>
    call('orchestrator', (c) => c.orchestrator.GET('/orchestrator/api/admin/dashboard/failures', { params: { query: { timeframe } } })),
  schemaCheck: (): Promise<Record<string, unknown>> =>
    call('orchestrator', (c) => c.orchestrator.GET('/orchestrator/health', { params: { query: { schema: 'check' } } })),
  testWorkflowLogger: (): Promise<Record<string, unknown>> =>
    call('orchestrator', (c) => c.orchestrator.POST('/orchestrator/test-workflow-logger', { body: {} })),
  /** Every user's webhook deliveries (newest first) and a re-send of one. */
  webhookDeliveries: (query: WebhookDeliveriesQuery): Promise<WebhookDeliveriesAnswer> =>
    call('orchestrator', (c) => c.orchestrator.GET('/orchestrator/api/admin/webhooks/deliveries', { params: { query } })),
  resendWebhook: (id: string): Promise<WebhookDelivery> =>
    call('orchestrator', (c) => c.orchestrator.POST('/orchestrator/api/webhooks/deliveries/{id}/resend', { params: { path: { id } }, body: {} })),
  testEnhancedOrchestrator: (): Promise<Record<string, unknown>> =>
    call('orchestrator', (c) => c.orchestrator.POST('/orchestrator/test-enhanced-orchestrator', { body: {} })),
};

/** A service's public health: an unhealthy one answers 503 with the same body, which is what the diagnostics page shows. */
export async function serviceHealth(service: ServiceName): Promise<HealthAnswer> {
  const health = (c: PlatformClient) => {
    switch (service) {
      case 'identity':
        return c.identity.GET('/identity/health');
      case 'payment':
        return c.payment.GET('/payment/health');
      case 'orchestrator':
        return c.orchestrator.GET('/orchestrator/health');
      case 'visual':
        return c.visual.GET('/visual/health');
    }
  };
  return call<object>(service, health, false).then(
    (a) => a as HealthAnswer,
    (error: unknown) => {
      if (error instanceof ApiError && error.body.dependencies) return error.body as unknown as HealthAnswer;
      throw error;
    },
  );
}
