import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin } from '../helpers/identity';
import { db, deadPort } from './helpers';
import { expectErrorAnswer } from '../helpers/errors';

describe('orchestrator test endpoints (admin)', () => {
  let host: TestHost;
  let adminToken: string;

  beforeAll(async () => {
    host = await startTestHost({ env: { VISUAL_URL: `http://127.0.0.1:${await deadPort()}/visual` } });
    adminToken = (await signInAdmin(host)).accessToken;
  });
  afterAll(() => host.stop());

  it('POST /orchestrator/test-workflow-logger logs every stage and finds its rows', async () => {
    const response = await host.fetch('/orchestrator/test-workflow-logger', { method: 'POST', headers: bearer(adminToken) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      success: boolean;
      trackingId: string;
      steps: { step_number: number; console_message: string }[];
      persistence: { expectedRows: number; persistedRows: number; tableAvailable: boolean };
      logSearchTips: string[];
    };
    expect(body.success).toBe(true);
    expect(body.steps.map((s) => s.step_number)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 99]);
    expect(body.steps[0].console_message).toBe('WORKFLOW_0_WORKFLOW_START');
    expect(body.persistence).toMatchObject({ expectedRows: 28, persistedRows: 28, tableAvailable: true });
    expect(body.logSearchTips.join('\n')).toContain(body.trackingId);
    const rows = await db().selectFrom('orchestrator_processing_log').select('status').where('tracking_id', '=', body.trackingId).execute();
    expect(rows).toHaveLength(28);
  });

  it('POST /orchestrator/test-enhanced-orchestrator runs a real execution and reports its tracking; it counts in no figure', async () => {
    const overview = async () => {
      const res = await host.fetch('/orchestrator/api/admin/dashboard/overview', { headers: bearer(adminToken) });
      const { health, trends } = ((await res.json()) as { dashboard: { health: Record<string, unknown>; trends: { hourly: { executions: number }[] } } })
        .dashboard;
      const { score, total_executions, success_rate, completed, failed, processing, avg_processing_time_ms } = health;
      return {
        score,
        total_executions,
        success_rate,
        completed,
        failed,
        processing,
        avg_processing_time_ms,
        trend: trends.hourly.reduce((n, h) => n + h.executions, 0),
      };
    };
    const before = await overview();
    const response = await host.fetch('/orchestrator/test-enhanced-orchestrator', { method: 'POST', headers: bearer(adminToken) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      success: boolean;
      trackingId: string;
      message: string;
      diagnostic: unknown;
      workflowTracking: { totalSteps: number; completedSteps: number; totalDuration: number };
    };
    expect(body).toMatchObject({
      success: true,
      diagnostic: { enhancedAdminHandlerUsed: true, workflowLoggerActive: true, version: 'enhanced-v1.0' },
      workflowTracking: { totalSteps: 14, completedSteps: 14 },
    });
    expect(body.workflowTracking.totalDuration).toBeGreaterThan(0);
    const execution = await db().selectFrom('orchestrator_executions').selectAll().where('tracking_id', '=', body.trackingId).executeTakeFirstOrThrow();
    expect(execution).toMatchObject({ processing_status: 'completed', progress_percentage: 100, visuals_status: 'skipped' });
    expect(body.trackingId).toMatch(/^diag-/);
    // Not in the health score, the success rate, the counts or the trend; but listed like any execution.
    const after = await overview();
    expect(after).toEqual(before);
    const found = await host.fetch(`/orchestrator/api/admin/executions?tracking_id=${body.trackingId}`, { headers: bearer(adminToken) });
    expect(((await found.json()) as { executions: { tracking_id: string }[] }).executions.map((e) => e.tracking_id)).toEqual([body.trackingId]);
  });

  it('both need an admin JWT', async () => {
    const user = await signIn(host, 'someone@example.com');
    for (const route of ['/orchestrator/test-workflow-logger', '/orchestrator/test-enhanced-orchestrator']) {
      await expectErrorAnswer(await host.fetch(route, { method: 'POST' }), 401, 'AUTH_REQUIRED');
      await expectErrorAnswer(await host.fetch(route, { method: 'POST', headers: bearer(user.accessToken) }), 403, 'ADMIN_REQUIRED');
    }
  });
});
