import type { HttpRequest } from '@azure/functions';
import { requireAdmin } from '../../../shared/auth/access-token';
import type { FunctionDefinition, HttpFunction } from '../../../shared/functions';
import { readQuery } from '../../../shared/http/body';
import { badRequest } from '../../../shared/http/errors';
import { http, json } from '../../../shared/http/handler';
import { EXECUTION_STATUS_FILTERS, executionsMonitor, type ExecutionStatusFilter } from './executions';
import { failureAnalysis } from './failures';
import { dashboardOverview } from './overview';
import { integerParam, querySchema } from './params';
import { clientProfiles } from './profiles';
import { executionStatus } from './status';
import { TIMEFRAMES, type Timeframe } from './time-windows';

const BASE = 'orchestrator/api/admin';
/** Tracking ids are at most 64 characters (the column's size) of letters, digits, '-' and '_'. */
const TRACKING_ID = /^[A-Za-z0-9_-]{1,64}$/;

const overviewQuery = querySchema({});
const failuresQuery = querySchema({ timeframe: { enum: Object.keys(TIMEFRAMES) } });
const executionsQuery = querySchema({ limit: {}, status: { enum: EXECUTION_STATUS_FILTERS }, search: { maxLength: 100 } });
const profilesQuery = querySchema({ page: {}, limit: {}, status: { enum: EXECUTION_STATUS_FILTERS }, search: { maxLength: 100 } });

/** An admin-only GET route: the caller must hold an admin or super_admin access token (401 / 403 otherwise). */
function adminGet(name: string, route: string, handle: (request: HttpRequest, now: Date) => Promise<unknown>): HttpFunction {
  return {
    kind: 'http',
    name: `orchestrator-admin-${name}`,
    route: `${BASE}/${route}`,
    methods: ['GET'],
    handler: http('orchestrator', async (request) => {
      await requireAdmin(request);
      return json(200, await handle(request, new Date()), { 'Cache-Control': 'no-store' });
    }),
  };
}

/** The administration API (`orchestrator/api/admin/...`). */
export const adminFunctions: FunctionDefinition[] = [
  adminGet('overview', 'dashboard/overview', (request, now) => {
    readQuery(request, overviewQuery);
    return dashboardOverview(now);
  }),
  adminGet('failures', 'dashboard/failures', (request, now) => {
    const query = readQuery<{ timeframe?: Timeframe }>(request, failuresQuery);
    return failureAnalysis(now, query.timeframe ?? '24h');
  }),
  adminGet('executions', 'dashboard/executions', (request, now) => {
    const query = readQuery<{ limit?: string; status?: ExecutionStatusFilter; search?: string }>(request, executionsQuery);
    return executionsMonitor(now, integerParam(query.limit, 'limit', { min: 1, max: 100, fallback: 50 }), query.status ?? 'all', query.search?.trim() ?? '');
  }),
  adminGet('status', 'status/{trackingId}', (request, now) => {
    const trackingId = request.params.trackingId ?? '';
    if (!TRACKING_ID.test(trackingId)) throw badRequest('trackingId must be 1 to 64 letters, digits, "-" or "_"', 'INVALID_TRACKING_ID');
    return executionStatus(trackingId, now);
  }),
  adminGet('profiles', 'profiles', (request) => {
    const query = readQuery<{ page?: string; limit?: string; status?: ExecutionStatusFilter; search?: string }>(request, profilesQuery);
    return clientProfiles({
      page: integerParam(query.page, 'page', { min: 1, max: 1_000_000, fallback: 1 }),
      limit: integerParam(query.limit, 'limit', { min: 1, max: 100, fallback: 20 }),
      status: query.status ?? 'all',
      search: query.search?.trim() ?? '',
    });
  }),
];
