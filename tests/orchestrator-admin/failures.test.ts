import { adminTestHost, ago, DAY, HOUR, insertExecution, insertLog, insertLogs, MINUTE, NOW } from './fixtures';

const admin = adminTestHost();

const failures = async (query = '') => {
  const res = await admin.client.get(`dashboard/failures${query}`);
  expect(res.status).toBe(200);
  return res.body;
};

/** One error in each timeframe band: 1 hour, 3 days, 20 days and 40 days ago. */
async function spreadErrors() {
  await insertLog({ atAgo: HOUR, error_pattern: 'RATE_LIMIT', error_source: 'AI_SERVICE', error_message: 'rate limited (1h)' });
  await insertLog({ atAgo: 3 * DAY, error_pattern: 'RATE_LIMIT', error_source: 'AI_SERVICE', error_message: 'rate limited (3d)' });
  await insertLog({
    atAgo: 20 * DAY,
    error_pattern: 'SQL_CONNECTION',
    error_source: 'SQL_DATABASE',
    step_name: 'STATUS_UPDATE',
    step_number: 2,
    error_message: 'login failed (20d)',
  });
  await insertLog({ atAgo: 40 * DAY, error_pattern: 'OTHER', error_source: null, error_message: 'ancient' });
}

test.each([
  ['', '24h', 1, DAY, 25],
  ['?timeframe=24h', '24h', 1, DAY, 25],
  ['?timeframe=7d', '7d', 2, 7 * DAY, 8],
  ['?timeframe=30d', '30d', 3, 30 * DAY, 31],
])('failures%s covers %s: %i errors, and a timeline over the whole window', async (query, timeframe, errors, windowMs, points) => {
  await spreadErrors();
  const body = await failures(query);
  expect(body.timeframe).toBe(timeframe);
  expect(body.since).toBe(ago(windowMs));
  expect(body.failure_analysis.total_errors).toBe(errors);
  const { timeline } = body.failure_analysis;
  expect(timeline.interval).toBe(timeframe === '24h' ? 'hour' : 'day');
  expect(timeline.points).toHaveLength(points);
  expect(timeline.points.reduce((sum: number, p: any) => sum + p.failures, 0)).toBe(errors);
});

test.each(['timeframe=1h', 'timeframe=7D', 'timeframe=', 'window=24h'])('%s is a 400', async (query) => {
  const res = await admin.client.get(`dashboard/failures?${query}`);
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('VALIDATION_FAILED');
});

test('error_patterns: occurrences, latest occurrence and up to three distinct recent sample messages, most frequent first', async () => {
  await insertLog({ atAgo: 5 * HOUR, error_pattern: 'TIMEOUT', error_source: null, error_message: 'oldest timeout' });
  await insertLogs(2, { atAgo: 4 * HOUR, error_pattern: 'TIMEOUT', error_source: null, error_message: 'step timed out after 120 s' });
  await insertLog({ atAgo: 3 * HOUR, error_pattern: 'TIMEOUT', error_source: null, error_message: 'render timed out' });
  await insertLog({ atAgo: 2 * HOUR, error_pattern: 'TIMEOUT', error_source: null, error_message: 'AI call timed out' });
  await insertLog({ atAgo: MINUTE, error_pattern: 'SCHEMA_MISSING', error_source: 'SQL_DATABASE', error_message: 'Invalid column name processing_step' });
  const { failure_analysis: analysis } = await failures();
  expect(analysis.error_patterns).toEqual([
    {
      error_pattern: 'TIMEOUT',
      occurrences: 5,
      latest_occurrence: ago(2 * HOUR),
      sample_messages: 'AI call timed out | render timed out | step timed out after 120 s',
    },
    { error_pattern: 'SCHEMA_MISSING', occurrences: 1, latest_occurrence: ago(MINUTE), sample_messages: 'Invalid column name processing_step' },
  ]);
  expect(analysis.troubleshooting_recommendations).toEqual([
    { issue: 'SCHEMA_MISSING', count: 1, recommendation: expect.stringContaining('schema=check'), priority: 'HIGH' },
    { issue: 'TIMEOUT', count: 5, recommendation: expect.any(String), priority: 'MEDIUM' },
  ]);
  expect(analysis.error_sources).toEqual([
    { error_source: 'SQL_DATABASE', error_count: 1 },
    { error_source: 'AI_SERVICE', error_count: 0 },
    { error_source: 'BLOB_STORAGE', error_count: 0 },
  ]);
});

test('step failures: which steps fail, how often and when last', async () => {
  await insertLogs(3, { atAgo: 2 * HOUR, step_name: 'AI_ORCHESTRATION', step_number: 4 });
  await insertLog({ atAgo: HOUR, step_name: 'STORAGE_PROCESSING', step_number: 12, error_pattern: 'BLOB_CONNECTION', error_source: 'BLOB_STORAGE' });
  await insertLog({
    atAgo: HOUR,
    status: 'completed',
    step_name: 'PDF_ENHANCEMENT',
    step_number: 11,
    error_pattern: null,
    error_source: null,
    error_message: null,
  });
  expect((await failures()).failure_analysis.step_failures).toEqual([
    { step_number: 4, step_name: 'AI_ORCHESTRATION', failures: 3, percentage: 75, latest_failure: ago(2 * HOUR) },
    { step_number: 12, step_name: 'STORAGE_PROCESSING', failures: 1, percentage: 25, latest_failure: ago(HOUR) },
  ]);
});

test('affected clients: the failed executions of the window, newest first, with what failed', async () => {
  const first = await insertExecution({ createdAgo: 3 * HOUR, processing_status: 'failed', company_name: 'Beta LLC', duration_ms: 5000 });
  const second = await insertExecution({
    createdAgo: HOUR,
    processing_status: 'failed',
    company_name: 'Acme Corp',
    error_pattern: 'BLOB_CONNECTION',
    error_source: 'BLOB_STORAGE',
    error_step: 'STORAGE_PROCESSING',
    error_message: 'container unreachable',
    duration_ms: 7000,
  });
  await insertExecution({ createdAgo: 2 * HOUR, processing_status: 'completed' });
  await insertExecution({ createdAgo: 2 * DAY, processing_status: 'failed' });
  const { affected_clients } = (await failures()).failure_analysis;
  expect(affected_clients.failed_executions).toBe(2);
  expect(affected_clients.clients).toEqual([
    {
      company_name: 'Acme Corp',
      industry_id: '54',
      tracking_id: second,
      submitted_at: ago(HOUR),
      failed_at: ago(HOUR - 7000),
      error_pattern: 'BLOB_CONNECTION',
      error_source: 'BLOB_STORAGE',
      error_step: 'STORAGE_PROCESSING',
      error_message: 'container unreachable',
    },
    expect.objectContaining({ company_name: 'Beta LLC', tracking_id: first, failed_at: ago(3 * HOUR - 5000), error_pattern: 'AI_SERVICE' }),
  ]);
  expect((await failures('?timeframe=7d')).failure_analysis.affected_clients.failed_executions).toBe(3);
});

test('timeline puts each failure in its hour (24h) or day (7d)', async () => {
  await insertLogs(2, { atAgo: 10 * MINUTE });
  await insertLog({ atAgo: 5 * HOUR });
  await insertLog({ atAgo: HOUR, status: 'completed' });
  const hourly = (await failures()).failure_analysis.timeline.points;
  const currentHour = new Date(NOW.getTime() - 30 * MINUTE).toISOString();
  expect(hourly[hourly.length - 1]).toEqual({ period_start: currentHour, failures: 2 });
  expect(hourly[hourly.length - 6]).toEqual({ period_start: new Date(Date.parse(currentHour) - 5 * HOUR).toISOString(), failures: 1 });
  expect(hourly[0].period_start).toBe(new Date(Date.parse(currentHour) - 24 * HOUR).toISOString());

  const daily = (await failures('?timeframe=7d')).failure_analysis.timeline.points;
  const today = `${NOW.toISOString().slice(0, 10)}T00:00:00.000Z`;
  expect(daily[daily.length - 1].period_start).toBe(today);
  expect(daily.reduce((sum: number, p: any) => sum + p.failures, 0)).toBe(3);
});

test('an empty window has no patterns, no recommendations and a zero timeline', async () => {
  const { failure_analysis: analysis } = await failures('?timeframe=30d');
  expect(analysis.error_patterns).toEqual([]);
  expect(analysis.troubleshooting_recommendations).toEqual([]);
  expect(analysis.step_failures).toEqual([]);
  expect(analysis.affected_clients).toEqual({ failed_executions: 0, clients: [] });
  expect(analysis.timeline.points.every((p: any) => p.failures === 0)).toBe(true);
});
