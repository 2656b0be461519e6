import { adminTestHost, DAY, HOUR, insertExecution, insertLogs, MINUTE, NOW, SCORE_BANDS } from './fixtures';

const admin = adminTestHost();

const overview = async () => {
  const res = await admin.client.get('dashboard/overview');
  expect(res.status).toBe(200);
  return res.body;
};

/** `completed` + `failed` = 100 executions finished two days ago: inside the 7-day success window, outside the 24-hour alert window. */
async function weekOf(completed: number, failed: number) {
  for (let i = 0; i < completed; i++) await insertExecution({ createdAgo: 2 * DAY, processing_status: 'completed' });
  for (let i = 0; i < failed; i++) await insertExecution({ createdAgo: 2 * DAY, processing_status: 'failed' });
}

test('an empty history is EXCELLENT with zero counts, no alerts and 24 empty hourly buckets', async () => {
  const body = await overview();
  expect(body.version).toBe('2.3.1-enhanced');
  expect(body.dashboard.health).toEqual({
    score: 100,
    status: 'EXCELLENT',
    total_executions: 0,
    success_rate: 100,
    avg_processing_time_ms: 0,
    completed: 0,
    failed: 0,
    processing: 0,
    window: '7d',
    since: new Date(NOW.getTime() - 7 * DAY).toISOString(),
  });
  expect(body.dashboard.alerts).toEqual([]);
  expect(body.dashboard.failures.by_source).toEqual([
    { error_source: 'AI_SERVICE', error_count: 0, percentage: 0, latest_occurrence: null },
    { error_source: 'BLOB_STORAGE', error_count: 0, percentage: 0, latest_occurrence: null },
    { error_source: 'SQL_DATABASE', error_count: 0, percentage: 0, latest_occurrence: null },
  ]);
  expect(body.dashboard.trends.hourly).toHaveLength(24);
  expect(body.dashboard.trends.hourly.every((h: any) => h.executions === 0 && h.avg_duration_ms === null)).toBe(true);
});

test.each(SCORE_BANDS)('%i%% of the week completed and no alert: score equals it, status %s', async (completed, status) => {
  await weekOf(completed, 100 - completed);
  const { health } = (await overview()).dashboard;
  expect(health).toMatchObject({ score: completed, status, total_executions: 100, success_rate: completed, completed, failed: 100 - completed });
});

test('executions older than 7 days do not count towards the health', async () => {
  await weekOf(95, 5);
  for (let i = 0; i < 50; i++) await insertExecution({ createdAgo: 8 * DAY, processing_status: 'failed' });
  expect((await overview()).dashboard.health).toMatchObject({ score: 95, total_executions: 100, success_rate: 95 });
});

test('each active alert takes 10 (HIGH) or 5 (MEDIUM) points off the rounded success rate', async () => {
  await weekOf(99, 1);
  await insertExecution({ processing_status: 'processing', createdAgo: 11 * MINUTE });
  let body = await overview();
  expect(body.dashboard.alerts.map((a: any) => a.type)).toEqual(['LONG_RUNNING']);
  expect(body.dashboard.health).toMatchObject({ success_rate: 99, score: 94, status: 'EXCELLENT', total_executions: 101, processing: 1 });

  await insertLogs(11, { error_source: 'AI_SERVICE', error_pattern: 'AI_SERVICE' });
  body = await overview();
  expect(body.dashboard.alerts.map((a: any) => a.type)).toEqual(['AI_SERVICE_ISSUES', 'LONG_RUNNING']);
  expect(body.dashboard.health).toMatchObject({ score: 84, status: 'FAIR' });
});

test('the success rate is a percentage with two decimals and the score its rounded value', async () => {
  for (let i = 0; i < 2; i++) await insertExecution({ createdAgo: 3 * DAY, processing_status: 'completed' });
  await insertExecution({ createdAgo: 3 * DAY, processing_status: 'failed' });
  expect((await overview()).dashboard.health).toMatchObject({ success_rate: 66.67, score: 67, status: 'POOR' });
});

test('avg_processing_time_ms averages the durations of the completed executions only', async () => {
  await insertExecution({ createdAgo: 2 * DAY, duration_ms: 1000 });
  await insertExecution({ createdAgo: 2 * DAY, duration_ms: 2001 });
  await insertExecution({ createdAgo: 2 * DAY, processing_status: 'failed', duration_ms: 999_999 });
  expect((await overview()).dashboard.health.avg_processing_time_ms).toBe(1501);
});

describe('alerts: each threshold just under and just over', () => {
  const types = async () => (await overview()).dashboard.alerts.map((a: any) => `${a.level}:${a.type}`);

  test('FAILURE_RATE: 20% of the last 24 hours failed is quiet, 22% alerts', async () => {
    for (let i = 0; i < 4; i++) await insertExecution({ createdAgo: 2 * HOUR });
    await insertExecution({ createdAgo: 2 * HOUR, processing_status: 'failed' });
    expect(await types()).toEqual([]);
    for (let i = 0; i < 3; i++) await insertExecution({ createdAgo: 2 * HOUR });
    await insertExecution({ createdAgo: 2 * HOUR, processing_status: 'failed' });
    const body = await overview();
    expect(body.dashboard.alerts).toEqual([
      {
        level: 'HIGH',
        type: 'FAILURE_RATE',
        message: '2 of 9 executions finished in the last 24 hours failed (22.2%, threshold 20%)',
        recommendation: expect.stringContaining('dashboard/failures'),
      },
    ]);
  });

  test('FAILURE_RATE ignores executions still processing and failures older than 24 hours', async () => {
    for (let i = 0; i < 10; i++) await insertExecution({ createdAgo: 25 * HOUR, processing_status: 'failed' });
    for (let i = 0; i < 5; i++) await insertExecution({ createdAgo: 5 * MINUTE, processing_status: 'processing' });
    await insertExecution({ createdAgo: HOUR });
    expect(await types()).toEqual([]);
  });

  test.each([
    ['AI_SERVICE_ISSUES', 'HIGH', 10, { error_source: 'AI_SERVICE', error_pattern: 'AI_SERVICE' }],
    ['DATABASE_ISSUES', 'MEDIUM', 5, { error_source: 'SQL_DATABASE', error_pattern: 'SQL_CONNECTION' }],
    ['STORAGE_ISSUES', 'MEDIUM', 3, { error_source: 'BLOB_STORAGE', error_pattern: 'BLOB_CONNECTION' }],
    ['SCHEMA_MISSING', 'HIGH', 0, { error_source: null, error_pattern: 'SCHEMA_MISSING' }],
  ] as const)('%s (%s): %i errors in 24 hours are quiet, one more alerts', async (type, level, threshold, classification) => {
    await insertLogs(threshold, { ...classification, atAgo: 23 * HOUR });
    await insertLogs(20, { ...classification, atAgo: 25 * HOUR });
    expect(await types()).toEqual([]);
    await insertLogs(1, { ...classification, atAgo: MINUTE });
    expect(await types()).toEqual([`${level}:${type}`]);
  });

  test('LONG_RUNNING: processing for 9 min 59 s is quiet, for 10 min 1 s alerts', async () => {
    await insertExecution({ processing_status: 'processing', createdAgo: 9 * MINUTE + 59_000 });
    expect(await types()).toEqual([]);
    await insertExecution({ processing_status: 'processing', createdAgo: 10 * MINUTE + 1000 });
    const body = await overview();
    expect(body.dashboard.alerts).toEqual([
      { level: 'MEDIUM', type: 'LONG_RUNNING', message: '1 executions have been processing for more than 10 minutes', recommendation: expect.any(String) },
    ]);
    expect(body.dashboard.long_running_count).toBe(1);
  });

  test('all six at once come in priority order, HIGH first', async () => {
    await insertExecution({ createdAgo: HOUR, processing_status: 'failed' });
    await insertLogs(11, { error_source: 'AI_SERVICE', error_pattern: 'AI_SERVICE' });
    await insertLogs(6, { error_source: 'SQL_DATABASE', error_pattern: 'SCHEMA_MISSING' });
    await insertLogs(4, { error_source: 'BLOB_STORAGE', error_pattern: 'BLOB_CONNECTION' });
    await insertExecution({ processing_status: 'processing', createdAgo: 30 * MINUTE });
    expect(await types()).toEqual([
      'HIGH:FAILURE_RATE',
      'HIGH:AI_SERVICE_ISSUES',
      'HIGH:SCHEMA_MISSING',
      'MEDIUM:DATABASE_ISSUES',
      'MEDIUM:STORAGE_ISSUES',
      'MEDIUM:LONG_RUNNING',
    ]);
    expect((await overview()).dashboard.health.score).toBe(0);
  });
});

test('error-source analysis counts the last 24 hours by source and pattern, largest first', async () => {
  await insertLogs(3, { error_source: 'SQL_DATABASE', error_pattern: 'SQL_CONNECTION', atAgo: 2 * HOUR });
  await insertLogs(1, { error_source: 'SQL_DATABASE', error_pattern: 'DATABASE_CONSTRAINT', atAgo: 30 * MINUTE });
  await insertLogs(2, { error_source: 'BLOB_STORAGE', error_pattern: 'BLOB_CONNECTION', atAgo: 3 * HOUR });
  await insertLogs(4, { error_source: 'AI_SERVICE', error_pattern: 'RATE_LIMIT', atAgo: 25 * HOUR });
  const { failures } = (await overview()).dashboard;
  expect(failures).toEqual({
    window: '24h',
    since: new Date(NOW.getTime() - DAY).toISOString(),
    total_errors: 6,
    by_source: [
      { error_source: 'SQL_DATABASE', error_count: 4, percentage: 66.67, latest_occurrence: new Date(NOW.getTime() - 30 * MINUTE).toISOString() },
      { error_source: 'BLOB_STORAGE', error_count: 2, percentage: 33.33, latest_occurrence: new Date(NOW.getTime() - 3 * HOUR).toISOString() },
      { error_source: 'AI_SERVICE', error_count: 0, percentage: 0, latest_occurrence: null },
    ],
    by_pattern: [
      { error_pattern: 'SQL_CONNECTION', error_count: 3, latest_occurrence: new Date(NOW.getTime() - 2 * HOUR).toISOString() },
      { error_pattern: 'BLOB_CONNECTION', error_count: 2, latest_occurrence: new Date(NOW.getTime() - 3 * HOUR).toISOString() },
      { error_pattern: 'DATABASE_CONSTRAINT', error_count: 1, latest_occurrence: new Date(NOW.getTime() - 30 * MINUTE).toISOString() },
    ],
  });
});

test('hourly trends: 24 buckets ending with the current hour, by creation time, with per-hour counts and mean completed duration', async () => {
  // NOW is hh:30. The current hour gets two completed (1 s and 3 s) and one processing; three hours back one failure; 23 hours back one completion.
  await insertExecution({ createdAgo: 10 * MINUTE, duration_ms: 1000 });
  await insertExecution({ createdAgo: 20 * MINUTE, duration_ms: 3000 });
  await insertExecution({ createdAgo: 5 * MINUTE, processing_status: 'processing' });
  await insertExecution({ createdAgo: 3 * HOUR, processing_status: 'failed', duration_ms: 500 });
  await insertExecution({ createdAgo: 23 * HOUR, duration_ms: 7000 });
  await insertExecution({ createdAgo: 24 * HOUR, duration_ms: 9000 });
  const { trends } = (await overview()).dashboard;
  expect(trends.window).toBe('24h');
  expect(trends.interval).toBe('hour');
  const hourly = trends.hourly;
  expect(hourly).toHaveLength(24);
  const currentHour = new Date(NOW.getTime() - 30 * MINUTE);
  expect(hourly[23]).toEqual({ hour: currentHour.toISOString(), executions: 3, completed: 2, failed: 0, processing: 1, avg_duration_ms: 2000 });
  expect(hourly[20]).toEqual({
    hour: new Date(currentHour.getTime() - 3 * HOUR).toISOString(),
    executions: 1,
    completed: 0,
    failed: 1,
    processing: 0,
    avg_duration_ms: null,
  });
  expect(hourly[0]).toEqual({
    hour: new Date(currentHour.getTime() - 23 * HOUR).toISOString(),
    executions: 1,
    completed: 1,
    failed: 0,
    processing: 0,
    avg_duration_ms: 7000,
  });
  expect(hourly.reduce((sum: number, h: any) => sum + h.executions, 0)).toBe(5);
});

test('unknown query parameters are refused with 400', async () => {
  const res = await admin.client.get('dashboard/overview?verbose=1');
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('verbose') });
});
