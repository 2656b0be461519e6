import type { PlatformClient } from '../../../client';
import { ApiError, asView, call, type ServiceName } from './http';

export type ExecutionStatus = 'processing' | 'completed' | 'failed';
export type StatusFilter = 'all' | ExecutionStatus;
export type Timeframe = '24h' | '7d' | '30d';
export type TrendTheme = 'professional' | 'executive' | 'corporate';

export interface HourlyTrend {
  hour: string;
  executions: number;
  completed: number;
  failed: number;
  processing: number;
  avg_duration_ms: number | null;
}

export interface Alert {
  level: 'HIGH' | 'MEDIUM';
  type: string;
  message: string;
  recommendation: string;
}

export interface Overview {
  generated_at: string;
  dashboard: {
    health: {
      score: number;
      status: string;
      total_executions: number;
      success_rate: number;
      avg_processing_time_ms: number;
      completed: number;
      failed: number;
      processing: number;
    };
    failures: {
      total_errors: number;
      by_source: { error_source: string; error_count: number; percentage: number; latest_occurrence: string | null }[];
      by_pattern: { error_pattern: string; error_count: number; latest_occurrence: string | null }[];
    };
    alerts: Alert[];
    long_running_count: number;
    trends: { hourly: HourlyTrend[] };
  };
}

export interface ExecutionError {
  message: string | null;
  error_pattern: string | null;
  error_source: string | null;
  step: string | null;
}

export interface ExecutionRow {
  tracking_id: string;
  processing_status: ExecutionStatus;
  company_name: string;
  industry_id: string | null;
  progress_percentage: number;
  health_status: string;
  duration_ms: number | null;
  running_seconds?: number;
  current_step: { step_number: number; step_name: string } | null;
  attempts: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  error: ExecutionError | null;
}

export interface ExecutionsAnswer {
  generated_at: string;
  executions: {
    summary: { total: number; completed: number; failed: number; processing: number; average_duration_ms: number | null; long_running_count: number };
    recent: ExecutionRow[];
    long_running: { tracking_id: string; running_seconds: number; company_name: string; current_step: string | null; running_since: string }[];
  };
}

export interface LogRow {
  id: number;
  step_name: string;
  step_number: number;
  status: string;
  duration_ms: number | null;
  tokens_used: number | null;
  error_message: string | null;
  metadata: string | null;
  timestamp: string;
  error_pattern: string | null;
  error_source: string | null;
  error_details: string | null;
}

export interface StatusAnswer {
  trackingId: string;
  status: ExecutionStatus;
  data: {
    execution: ExecutionRow & { plan: string | null; requested_by: string | null; updated_at: string };
    visuals: { status: string | null; error: string | null };
    submission: unknown;
    logs: LogRow[];
    processing_metrics: { progress_percentage: number; completed_steps: number; total_steps: number; current_step: string | null };
    downloads: { kind: string; fileName: string; contentType: string; size: number; url: string; expiresAt: string }[];
  };
}

export interface FailuresAnswer {
  timeframe: Timeframe;
  since: string;
  generated_at: string;
  failure_analysis: {
    total_errors: number;
    error_patterns: { error_pattern: string; occurrences: number; latest_occurrence: string; sample_messages: string }[];
    error_sources: { error_source: string; error_count: number }[];
    troubleshooting_recommendations: { issue: string; count: number; priority: 'HIGH' | 'MEDIUM' | 'LOW'; recommendation: string }[];
    step_failures: { step_number: number; step_name: string; failures: number; percentage: number; latest_failure: string }[];
    affected_clients: {
      failed_executions: number;
      clients: { company_name: string; tracking_id: string; failed_at: string; error_pattern: string | null; error_message: string | null }[];
    };
  };
}

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
  status: 'healthy' | 'unhealthy';
  timestamp: string;
  dependencies: Record<string, { ok: boolean; latencyMs: number; detail?: string; error?: string }>;
}

const tracking = (trackingId: string) => ({ params: { path: { trackingId } } });

/*
 * The API documents leave parts of some answers open (the overview's trends, the executions' rows,
 * the execution status's `data`, the failure analysis's `since`, the health checks): those are read
 * as the console's views above (asView).
 */
export const orchestratorApi = {
  overview: (): Promise<Overview> => call('orchestrator', (c) => c.orchestrator.GET('/orchestrator/api/admin/dashboard/overview')).then(asView<Overview>()),
  /** The overview's trend chart (SVG), shown from a blob: an <img> could not send the token. */
  trendChart: (theme: TrendTheme, tz: string): Promise<Blob> =>
    call('orchestrator', (c) =>
      c.orchestrator.GET('/orchestrator/api/admin/dashboard/trend-chart', { params: { query: { theme, tz } }, parseAs: 'text' }),
    ).then((svg) => new Blob([svg], { type: 'image/svg+xml' })),
  executions: (status: StatusFilter, limit: number, search: string): Promise<ExecutionsAnswer> =>
    call('orchestrator', (c) =>
      c.orchestrator.GET('/orchestrator/api/admin/dashboard/executions', { params: { query: { status, limit, search: search || undefined } } }),
    ).then(asView<ExecutionsAnswer>()),
  profiles: (search: string, status: StatusFilter, limit: number): Promise<ProfilesAnswer> =>
    call('orchestrator', (c) => c.orchestrator.GET('/orchestrator/api/admin/profiles', { params: { query: { search: search || undefined, status, limit } } })),
  status: (trackingId: string): Promise<StatusAnswer> =>
    call('orchestrator', (c) => c.orchestrator.GET('/orchestrator/api/admin/status/{trackingId}', tracking(trackingId))).then(asView<StatusAnswer>()),
  failures: (timeframe: Timeframe): Promise<FailuresAnswer> =>
    call('orchestrator', (c) => c.orchestrator.GET('/orchestrator/api/admin/dashboard/failures', { params: { query: { timeframe } } })).then(
      asView<FailuresAnswer>(),
    ),
  schemaCheck: (): Promise<Record<string, unknown>> =>
    call('orchestrator', (c) => c.orchestrator.GET('/orchestrator/health', { params: { query: { schema: 'check' } } })),
  testWorkflowLogger: (): Promise<Record<string, unknown>> =>
    call('orchestrator', (c) => c.orchestrator.POST('/orchestrator/test-workflow-logger', { body: {} })),
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
