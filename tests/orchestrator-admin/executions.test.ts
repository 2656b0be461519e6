import { adminTestHost, DAY, HOUR, insertExecution, MINUTE, NOW } from './fixtures';

const admin = adminTestHost();

const executions = async (query = '') => {
  const res = await admin.client.get(`dashboard/executions${query}`);
  expect(res.status).toBe(200);
  return res.body;
};

test('an execution processing for 11 minutes is long-running, one for 9 minutes is not', async () => {
  const eleven = await insertExecution({ processing_status: 'processing', createdAgo: 11 * MINUTE, company_name: 'Slow Co' });
  await insertExecution({ processing_status: 'processing', createdAgo: 9 * MINUTE });
  const body = await executions();
  expect(body.executions.long_running).toEqual([
    {
      tracking_id: eleven,
      running_seconds: 660,
      processing_status: 'processing',
      company_name: 'Slow Co',
      current_step: 'AI_ORCHESTRATION',
      running_since: new Date(NOW.getTime() - 11 * MINUTE).toISOString(),
    },
  ]);
  expect(body.executions.summary.long_running_count).toBe(1);
  const recent = body.executions.recent.find((e: any) => e.tracking_id === eleven);
  expect(recent).toMatchObject({ health_status: 'LONG_RUNNING', running_seconds: 660, duration_ms: 660_000 });
});

test('the running time counts from the start, or from creation while queued', async () => {
  const queued = await insertExecution({ processing_status: 'processing', createdAgo: 12 * MINUTE, started_at: null });
  const startedLate = await insertExecution({
    processing_status: 'processing',
    createdAgo: 15 * MINUTE,
    started_at: new Date(NOW.getTime() - 5 * MINUTE).toISOString(),
  });
  const body = await executions();
  expect(body.executions.long_running.map((e: any) => [e.tracking_id, e.running_seconds])).toEqual([[queued, 720]]);
  expect(body.executions.recent.find((e: any) => e.tracking_id === startedLate)).toMatchObject({ running_seconds: 300, health_status: 'HEALTHY' });
});

test('summary counts the last 24 hours by status; average duration is over completed executions', async () => {
  await insertExecution({ createdAgo: HOUR, duration_ms: 10_000 });
  await insertExecution({ createdAgo: 2 * HOUR, duration_ms: 20_001 });
  await insertExecution({ createdAgo: 3 * HOUR, processing_status: 'failed', duration_ms: 1 });
  await insertExecution({ createdAgo: 2 * MINUTE, processing_status: 'processing' });
  await insertExecution({ createdAgo: 20 * MINUTE, processing_status: 'processing' });
  await insertExecution({ createdAgo: 2 * DAY });
  expect((await executions()).executions.summary).toEqual({
    total: 5,
    completed: 2,
    failed: 1,
    processing: 2,
    average_duration_ms: 15_001,
    long_running_count: 1,
    window: '24h',
    since: new Date(NOW.getTime() - DAY).toISOString(),
  });
});

test('recent lists execution objects, newest first, with running_seconds only while processing', async () => {
  const done = await insertExecution({ createdAgo: 3 * HOUR, company_name: 'Done Inc', industry_id: '52', duration_ms: 42_000 });
  const failed = await insertExecution({
    createdAgo: 2 * HOUR,
    processing_status: 'failed',
    error_pattern: 'TIMEOUT',
    error_source: null,
    error_message: 'step timed out',
    error_step: 'PDF_ENHANCEMENT',
  });
  const running = await insertExecution({ createdAgo: MINUTE, processing_status: 'processing', progress_percentage: 37 });
  const { recent } = (await executions()).executions;
  expect(recent.map((e: any) => e.tracking_id)).toEqual([running, failed, done]);
  expect(recent[2]).toEqual({
    tracking_id: done,
    processing_status: 'completed',
    company_name: 'Done Inc',
    industry_id: '52',
    progress_percentage: 100,
    health_status: 'HEALTHY',
    duration_ms: 42_000,
    current_step: null,
    attempts: 1,
    created_at: new Date(NOW.getTime() - 3 * HOUR).toISOString(),
    started_at: new Date(NOW.getTime() - 3 * HOUR).toISOString(),
    completed_at: new Date(NOW.getTime() - 3 * HOUR + 42_000).toISOString(),
    error: null,
  });
  expect(recent[1]).toMatchObject({
    health_status: 'FAILED',
    error: { message: 'step timed out', error_pattern: 'TIMEOUT', error_source: null, step: 'PDF_ENHANCEMENT' },
  });
  expect(recent[1]).not.toHaveProperty('running_seconds');
  expect(recent[0]).toMatchObject({
    progress_percentage: 37,
    running_seconds: 60,
    duration_ms: 60_000,
    current_step: { step_number: 4, step_name: 'AI_ORCHESTRATION' },
  });
});

test('health_status: DEGRADED after a retry or with missing visuals, TIMEOUT when failed by the stuck timer, HEALTHY otherwise', async () => {
  const retried = await insertExecution({ attempts: 2 });
  const noVisuals = await insertExecution({ visuals_status: 'skipped' });
  const someVisuals = await insertExecution({ visuals_status: 'partial' });
  const retriedRunning = await insertExecution({ processing_status: 'processing', createdAgo: MINUTE, attempts: 2 });
  const timedOut = await insertExecution({ processing_status: 'failed', health_status: 'TIMEOUT', error_pattern: 'TIMEOUT' });
  const staleStoredValue = await insertExecution({ processing_status: 'processing', createdAgo: 30 * MINUTE, health_status: 'HEALTHY' });
  const healthy = await insertExecution({ health_status: 'SOMETHING_ELSE' });
  const byId = Object.fromEntries((await executions()).executions.recent.map((e: any) => [e.tracking_id, e.health_status]));
  expect(byId).toEqual({
    [retried]: 'DEGRADED',
    [noVisuals]: 'DEGRADED',
    [someVisuals]: 'DEGRADED',
    [retriedRunning]: 'DEGRADED',
    [timedOut]: 'TIMEOUT',
    [staleStoredValue]: 'LONG_RUNNING',
    [healthy]: 'HEALTHY',
  });
});

test('limit defaults to 50 and accepts 1 and 100', async () => {
  for (let i = 0; i < 101; i++) await insertExecution({ createdAgo: HOUR + i * 1000 });
  expect((await executions()).executions.recent).toHaveLength(50);
  expect((await executions('?limit=1')).executions.recent).toHaveLength(1);
  const hundred = await executions('?limit=100');
  expect(hundred.executions.recent).toHaveLength(100);
  expect(hundred.filters).toEqual({ limit: 100, status: 'all' });
});

test.each(['completed', 'failed', 'processing'])('status=%s lists only that status', async (status) => {
  await insertExecution({ processing_status: 'completed' });
  await insertExecution({ processing_status: 'failed' });
  await insertExecution({ processing_status: 'processing', createdAgo: MINUTE });
  const { recent } = (await executions(`?status=${status}`)).executions;
  expect(recent.map((e: any) => e.processing_status)).toEqual([status]);
});

test('status=all (the default) lists every status', async () => {
  await insertExecution({ processing_status: 'completed' });
  await insertExecution({ processing_status: 'failed' });
  await insertExecution({ processing_status: 'processing', createdAgo: MINUTE });
  expect((await executions('?status=all')).executions.recent).toHaveLength(3);
  expect((await executions()).executions.recent).toHaveLength(3);
});

test.each(['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'limit=-1', 'limit=', 'status=running', 'status=ALL', 'sort=asc'])(
  '%s is a 400',
  async (query) => {
    const res = await admin.client.get(`dashboard/executions?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Bad request', code: 'VALIDATION_FAILED', message: expect.any(String), timestamp: expect.any(String) });
  },
);
