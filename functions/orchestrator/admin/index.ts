import type { LiveUser } from '../../../shared/auth/live-session';
import { json } from '../../../shared/http/handler';
import { op } from '../../../shared/http/route';
import { executionsMonitor, type ExecutionStatusFilter } from './executions';
import { failureAnalysis } from './failures';
import { dashboardOverview } from './overview';
import { clientProfiles } from './profiles';
import { executionStatus } from './status';
import type { Timeframe } from './time-windows';

/** The administration API's operations (`orchestrator/api/admin/...`); the route table says who may call them. */
export const overview = op<LiveUser>('Health score and band, 7-day success rate, processing time, failures by source, alerts, 24-hour trends', async () =>
  json(200, await dashboardOverview(new Date())),
);

export const failures = op<LiveUser, unknown, { timeframe: Timeframe }>(
  'Failures in a timeframe: error patterns, sources, failing steps, affected clients, timeline, recommendations',
  async ({ query }) => json(200, await failureAnalysis(new Date(), query.timeframe)),
);

export const executions = op<LiveUser, unknown, { limit: number; status: ExecutionStatusFilter; search?: string }>(
  'Recent executions with a summary and the long-running ones',
  async ({ query }) => json(200, await executionsMonitor(new Date(), query.limit, query.status, query.search?.trim() ?? '')),
);

export const status = op<LiveUser, unknown, unknown, { trackingId: string }>(
  'One execution: its submission, processing log, metrics and download links',
  async ({ params }) => json(200, await executionStatus(params.trackingId, new Date())),
);

export const profiles = op<LiveUser, unknown, { page: number; limit: number; status: ExecutionStatusFilter; search?: string }>(
  'Client companies with their executions, a page at a time',
  async ({ query }) => json(200, await clientProfiles({ page: query.page, limit: query.limit, status: query.status, search: query.search?.trim() ?? '' })),
);
