import { appSettings } from '../helpers/context';
import { container } from '../../shared/storage';

import { adminClient, adminTestHost, ago, HOUR, insertExecution, insertLog, MINUTE, REAL_START, useFakeClock } from './fixtures';

const admin = adminTestHost(async () => {
  const reports = await container(appSettings().ORCHESTRATOR_REPORTS_CONTAINER);
  await reports.getBlockBlobClient('trk/report.pdf').upload('%PDF-1.7 acme', 13, { blobHTTPHeaders: { blobContentType: 'application/pdf' } });
  await reports.getBlockBlobClient('trk/deck.pptx').upload('PK deck', 7);
});

test('a completed execution: submission, ordered logs, metrics in both places and working download links', async () => {
  const submission = { company_name: 'Acme Corp', industry_id: '54', profile: { employees: 120 } };
  const trackingId = await insertExecution({
    createdAgo: HOUR,
    submission: JSON.stringify(submission),
    duration_ms: 90_000,
    assets: JSON.stringify([
      { kind: 'pdf', blob: 'trk/report.pdf', contentType: 'application/pdf', fileName: 'report.pdf', size: 13 },
      {
        kind: 'presentation',
        blob: 'trk/deck.pptx',
        contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
        fileName: 'deck.pptx',
        size: 7,
      },
    ]),
  });
  const steps: [number, string][] = [
    [0, 'WORKFLOW_START'],
    [1, 'PROFILE_RETRIEVAL'],
    [2, 'STATUS_UPDATE'],
    [3, 'DATA_PREPARATION'],
    [4, 'AI_ORCHESTRATION'],
    [5, 'EXECUTIVE_SUMMARY'],
    [11, 'PDF_ENHANCEMENT'],
    [12, 'STORAGE_PROCESSING'],
    [99, 'WORKFLOW_COMPLETE'],
  ];
  for (const [i, [number, name]] of steps.entries()) {
    await insertLog({
      tracking_id: trackingId,
      step_number: number,
      step_name: name,
      status: 'started',
      atAgo: HOUR - i * 1000,
      error_pattern: null,
      error_source: null,
      error_message: null,
    });
    await insertLog({
      tracking_id: trackingId,
      step_number: number,
      step_name: name,
      status: 'completed',
      atAgo: HOUR - i * 1000 - 500,
      tokens_used: number === 4 ? 900 : null,
      metadata: JSON.stringify({ step: name }),
      error_pattern: null,
      error_source: null,
      error_message: null,
    });
  }
  await insertLog({ tracking_id: 'someone-else', step_number: 4 });

  // Links are signed with the (fake) clock and checked by Azurite against the real one.
  useFakeClock(REAL_START);
  const res = await (await adminClient(admin.host)).get(`status/${trackingId}`);
  useFakeClock();
  expect(res.status).toBe(200);
  const body = res.body;
  expect(body).toMatchObject({ success: true, trackingId, status: 'completed' });
  expect(body.data.submission).toEqual(submission);
  expect(body.data.logs).toHaveLength(18);
  expect(body.data.logs[0]).toEqual({
    id: expect.any(Number),
    tracking_id: trackingId,
    step_name: 'WORKFLOW_START',
    step_number: 0,
    status: 'started',
    duration_ms: 1200,
    tokens_used: null,
    error_message: null,
    metadata: null,
    timestamp: ago(HOUR),
    error_pattern: null,
    error_source: null,
    error_details: null,
  });
  expect(body.data.logs[9]).toMatchObject({ step_name: 'AI_ORCHESTRATION', status: 'completed', tokens_used: 900, metadata: '{"step":"AI_ORCHESTRATION"}' });
  const ids = body.data.logs.map((l: any) => l.id);
  expect([...ids].sort((a, b) => a - b)).toEqual(ids);

  // The total is the steps of the plan's workflow (pro: eight stages and six sections), whatever the log shows so far.
  const metrics = { progress_percentage: 100, completed_steps: 9, total_steps: 14, current_step: null, current_step_number: null };
  expect(body.data.processing_metrics).toEqual(metrics);
  expect(body.processing_metrics).toEqual(metrics);

  expect(body.downloadLinks).toHaveLength(2);
  expect(body.data.downloadLinks).toEqual(body.downloadLinks);
  expect(body.data.downloads).toEqual([
    {
      kind: 'pdf',
      fileName: 'report.pdf',
      contentType: 'application/pdf',
      size: 13,
      url: body.downloadLinks[0],
      expiresAt: new Date(REAL_START.getTime() + HOUR).toISOString(),
    },
    expect.objectContaining({ kind: 'presentation', fileName: 'deck.pptx', url: body.downloadLinks[1] }),
  ]);
  jest.useRealTimers();
  const pdf = await fetch(body.downloadLinks[0]);
  useFakeClock();
  expect(pdf.status).toBe(200);
  expect(await pdf.text()).toBe('%PDF-1.7 acme');
  expect(new URL(body.downloadLinks[0]).searchParams.get('sp')).toBe('r');
  jest.useRealTimers();
  const overwrite = await fetch(body.downloadLinks[0], { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'overwritten' });
  useFakeClock();
  expect([overwrite.status, overwrite.headers.get('x-ms-error-code')]).toEqual([403, 'AuthorizationPermissionMismatch']);

  expect(body.data.execution).toMatchObject({ tracking_id: trackingId, health_status: 'HEALTHY', duration_ms: 90_000, plan: 'pro', requested_by: 'user-1' });
});

test('a processing execution reports its current step and counts completed steps', async () => {
  const trackingId = await insertExecution({ processing_status: 'processing', createdAgo: 2 * MINUTE, progress_percentage: 38 });
  for (const [number, name] of [
    [0, 'WORKFLOW_START'],
    [1, 'PROFILE_RETRIEVAL'],
    [2, 'STATUS_UPDATE'],
  ] as const) {
    await insertLog({
      tracking_id: trackingId,
      step_number: number,
      step_name: name,
      status: 'completed',
      error_pattern: null,
      error_source: null,
      error_message: null,
    });
  }
  await insertLog({
    tracking_id: trackingId,
    step_number: 4,
    step_name: 'AI_ORCHESTRATION',
    status: 'started',
    error_pattern: null,
    error_source: null,
    error_message: null,
  });
  const { body } = await admin.client.get(`status/${trackingId}`);
  expect(body.status).toBe('processing');
  const metrics = { progress_percentage: 38, completed_steps: 3, total_steps: 14, current_step: 'AI_ORCHESTRATION', current_step_number: 4 };
  expect(body.processing_metrics).toEqual(metrics);
  expect(body.data.processing_metrics).toEqual(metrics);
  expect(body.downloadLinks).toEqual([]);
  expect(body.data.execution).toMatchObject({ running_seconds: 120 });
});

test('a failed execution shows its classified error and the failed log step', async () => {
  const trackingId = await insertExecution({
    processing_status: 'failed',
    error_pattern: 'RATE_LIMIT',
    error_message: '429 Too Many Requests',
    error_step: 'AI_ORCHESTRATION',
  });
  await insertLog({ tracking_id: trackingId, error_pattern: 'RATE_LIMIT', error_message: '429 Too Many Requests', error_details: '{"retryAfter":20}' });
  const { body } = await admin.client.get(`status/${trackingId}`);
  expect(body.status).toBe('failed');
  expect(body.data.execution).toMatchObject({
    health_status: 'FAILED',
    error: { message: '429 Too Many Requests', error_pattern: 'RATE_LIMIT', error_source: 'AI_SERVICE', step: 'AI_ORCHESTRATION' },
  });
  expect(body.data.logs).toEqual([expect.objectContaining({ status: 'failed', error_pattern: 'RATE_LIMIT', error_details: '{"retryAfter":20}' })]);
  expect(body.processing_metrics.current_step).toBeNull();
});

test('a retried execution counts the steps of its latest run, of the same total', async () => {
  const trackingId = await insertExecution({ processing_status: 'processing', plan: 'free', createdAgo: 2 * MINUTE });
  const log = (number: number, name: string, status: string, atAgo: number) =>
    insertLog({ tracking_id: trackingId, step_number: number, step_name: name, status, atAgo, error_pattern: null, error_source: null, error_message: null });
  // The first run completed four steps and failed; the retry has completed two so far.
  for (const [i, [number, name]] of (
    [
      [0, 'WORKFLOW_START'],
      [1, 'PROFILE_RETRIEVAL'],
      [2, 'STATUS_UPDATE'],
      [3, 'DATA_PREPARATION'],
    ] as const
  ).entries()) {
    await log(number, name, 'started', 10 * MINUTE - i);
    await log(number, name, 'completed', 10 * MINUTE - i - 1);
  }
  await log(4, 'AI_ORCHESTRATION', 'failed', 9 * MINUTE);
  await log(0, 'WORKFLOW_START', 'started', MINUTE);
  await log(0, 'WORKFLOW_START', 'completed', MINUTE - 1);
  await log(1, 'PROFILE_RETRIEVAL', 'started', MINUTE - 2);
  await log(1, 'PROFILE_RETRIEVAL', 'completed', MINUTE - 3);
  const { body } = await admin.client.get(`status/${trackingId}`);
  expect(body.processing_metrics).toMatchObject({ completed_steps: 2, total_steps: 11 });
  expect(body.data.actions).toEqual([]);
});

test('an unknown tracking id is a 404', async () => {
  const res = await admin.client.get('status/trk_does_not_exist');
  expect(res.status).toBe(404);
  expect(res.body).toMatchObject({ error: 'Not found', code: 'EXECUTION_NOT_FOUND', message: expect.stringContaining('trk_does_not_exist') });
});

test.each(['a'.repeat(65), "x'%20or%201=1", 'bad.id'])('a malformed tracking id (%s) is a 400', async (id) => {
  const res = await admin.client.get(`status/${id}`);
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('trackingId') });
});
