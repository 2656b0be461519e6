import { InvocationContext } from '@azure/functions';
import { orchestrator } from '../../functions/orchestrator';
import type { QueueFunction, TimerFunction } from '../../shared/functions';
import { STAGES, stepsFor } from '../../functions/orchestrator/workflow/stages';
import { startTestHost, type TestHost } from '../helpers/host';
import { OfflineProvider } from '../../functions/orchestrator/ai/offline';
import { parseAssets } from '../../functions/orchestrator/workflow/executions';
import { runExecution } from '../../functions/orchestrator/workflow/runner';
import { markExecutionWork } from '../../functions/orchestrator/workflow/stuck';
import {
  captureWorkflowLines,
  db,
  deadPort,
  execution,
  logRows,
  orchestratorCtx,
  parsePdf,
  storeExecution,
  submitDirect,
  waitFor,
  waitForRows,
  waitForStatus,
} from './helpers';

describe('report executions from the queue (visual service down, offline AI)', () => {
  let host: TestHost;
  let capture: ReturnType<typeof captureWorkflowLines>;

  beforeAll(async () => {
    capture = captureWorkflowLines();
    host = await startTestHost({ env: { VISUAL_URL: `http://127.0.0.1:${await deadPort()}/visual`, ORCHESTRATOR_LOG_FLUSH_MS: '20', LOG_LEVEL: 'info' } });
  });
  afterAll(async () => {
    await host.stop();
    capture.restore();
  });

  it('runs every stage in order, logs each step twice, and the console lines have the WORKFLOW_<n>_<STAGE> shape', async () => {
    await submitDirect('t-order', 'pro');
    const done = await waitForStatus('t-order', 'completed');
    expect(done.progress_percentage).toBe(100);
    expect(done.attempts).toBe(1);
    expect(done.visuals_status).toBe('skipped');
    expect(done.visuals_error).toMatch(/fetch failed|ECONNREFUSED/);

    // The PDF exists without visuals, and says so: cover, then six sections with the year table; no figures.
    const [link] = await orchestratorCtx().reports.downloadLinks(parseAssets(done));
    const pdf = Buffer.from(await (await fetch(link.url)).arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const parsed = await parsePdf(pdf);
    expect(parsed.numpages).toBe(3);
    expect(parsed.text).toContain('Acme Widgets GmbH');
    expect(parsed.text).toContain('Produced without visuals');
    expect(parsed.text).toContain('The charts could not be produced when this report was made');
    expect(parsed.text).toContain('Table 1.');
    expect(parsed.text).not.toContain('Figure 1.');

    const steps = stepsFor('pro');
    const rows = await waitForRows('t-order', steps.length * 2);
    const expected = [
      ...[0, 1, 2, 3].flatMap((n) => [
        [n, 'started'],
        [n, 'completed'],
      ]),
      [4, 'started'],
      ...[5, 6, 7, 8, 9, 10].flatMap((n) => [
        [n, 'started'],
        [n, 'completed'],
      ]),
      [4, 'completed'],
      ...[11, 12, 99].flatMap((n) => [
        [n, 'started'],
        [n, 'completed'],
      ]),
    ];
    expect(rows.map((r) => [r.step_number, r.status])).toEqual(expected);
    expect(rows.filter((r) => r.status === 'completed').every((r) => typeof r.duration_ms === 'number')).toBe(true);
    const pdfStep = rows.find((r) => r.step_number === 11 && r.status === 'completed')!;
    expect(JSON.parse(pdfStep.metadata!)).toMatchObject({ visuals_status: 'skipped', charts: 0, infographic: false });
    expect(JSON.parse(pdfStep.metadata!).visuals_error).toBeTruthy();

    const lines = await waitFor(async () => {
      const mine = capture.lines.filter((l) => l.data.tracking_id === 't-order');
      return mine.length >= steps.length * 2 ? mine : undefined;
    });
    expect(lines.map((l) => l.message)).toEqual(rows.map((r) => `${r.status === 'started' ? '🚀' : '✅'} WORKFLOW_${r.step_number}_${r.step_name}`));
    for (const line of lines) {
      expect(Object.keys(line)).toEqual(['message', 'level', 'data', 'timestamp']);
      expect(Object.keys(line.data)).toEqual(['tracking_id', 'step_name', 'step_number', 'status', 'metadata']);
      expect(line.level).toBe('INFO');
      expect(new Date(line.timestamp).toISOString()).toBe(line.timestamp);
      expect(typeof line.data.metadata).toBe('object');
    }
    expect(lines[0].message).toBe('🚀 WORKFLOW_0_WORKFLOW_START');
    expect(lines[lines.length - 1].message).toBe(`✅ WORKFLOW_99_${STAGES.WORKFLOW_COMPLETE.name}`);
  });

  it('a message delivered twice at once runs the execution once; a late redelivery is a no-op', async () => {
    await submitDirect('t-twice', 'free');
    const ctx = orchestratorCtx();
    await ctx.storage.enqueueJson(ctx.config.ORCHESTRATOR_QUEUE, { trackingId: 't-twice' });
    const done = await waitForStatus('t-twice', 'completed');
    const steps = stepsFor('free').length;
    await waitForRows('t-twice', steps * 2);
    expect(done.attempts).toBe(1);

    // A late copy (the host redelivering after the run finished) goes through the same queue function and changes nothing.
    const queued = orchestrator.functions.find((f): f is QueueFunction => f.kind === 'queue')!;
    await queued.handler({ trackingId: 't-twice' }, new InvocationContext({ functionName: queued.name }));
    const rows = await logRows('t-twice');
    expect(rows.filter((r) => r.step_number === 0 && r.status === 'started')).toHaveLength(1);
    expect(rows).toHaveLength(steps * 2);
    expect((await execution('t-twice'))!.attempts).toBe(1);
  });

  it('an execution whose run died midway is restarted cleanly by the redelivered message', async () => {
    const longAgo = new Date(Date.now() - 20 * 60_000).toISOString();
    await storeExecution('t-died', 'free', { now: longAgo });
    // The first run got to DATA_PREPARATION, then its instance disappeared.
    await db()
      .updateTable('orchestrator_executions')
      .set({ attempts: 1, started_at: longAgo, current_step: 3, current_step_name: 'DATA_PREPARATION', progress_percentage: 36 })
      .where('tracking_id', '=', 't-died')
      .execute();
    const ctx = orchestratorCtx();
    await ctx.storage.enqueueJson(ctx.config.ORCHESTRATOR_QUEUE, { trackingId: 't-died' });
    const done = await waitForStatus('t-died', 'completed');
    expect(done.attempts).toBe(2);
    expect(done.progress_percentage).toBe(100);
    const rows = await waitForRows('t-died', stepsFor('free').length * 2);
    expect(JSON.parse(rows[1].metadata!)).toMatchObject({ attempt: 2 });
  });

  it('the timer fails an execution stuck in processing past the threshold with a TIMEOUT error', async () => {
    // Stored but never enqueued: a lost message. Stored as submit stores it: the work marked first, so
    // the timer looks at SQL even when its real run (every minute on this host) has marked the topic idle.
    await markExecutionWork(new Date());
    await storeExecution('t-stuck', 'pro');
    const timer = orchestrator.functions.find((f): f is TimerFunction => f.kind === 'timer' && f.name === 'orchestrator-fail-stuck-executions')!;
    const tick = () =>
      timer.handler(
        { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: '', next: '', lastUpdated: '' } },
        new InvocationContext({ functionName: timer.name }),
      );
    jest.useFakeTimers({
      doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'],
    });
    try {
      jest.setSystemTime(Date.now() + 29 * 60_000);
      await tick();
      expect((await execution('t-stuck'))!.processing_status).toBe('processing');
      jest.setSystemTime(Date.now() + 2 * 60_000);
      await tick();
    } finally {
      jest.useRealTimers();
    }
    const failed = (await execution('t-stuck'))!;
    expect(failed).toMatchObject({ processing_status: 'failed', error_pattern: 'TIMEOUT', health_status: 'TIMEOUT', error_step: 'WORKFLOW_START' });
    expect(failed.error_message).toMatch(/no progress for more than 30 minutes/);
    await orchestratorCtx().logWriter.flush();
    expect((await logRows('t-stuck')).map((r) => [r.step_name, r.status, r.error_pattern])).toEqual([['WORKFLOW_COMPLETE', 'failed', 'TIMEOUT']]);
  });

  it('progress_percentage follows the completed steps', async () => {
    const seen: number[] = [];
    const offline = new OfflineProvider();
    // The offline writer, observing the stored progress each time a section starts.
    const observing = {
      name: 'offline' as const,
      offline: true,
      writeSection: async (...args: Parameters<typeof offline.writeSection>) => {
        seen.push((await execution('t-progress'))!.progress_percentage);
        return offline.writeSection(...args);
      },
    };
    await storeExecution('t-progress', 'pro');
    const result = await runExecution(orchestratorCtx(), 't-progress', { ai: observing });
    expect(result.outcome).toBe('completed');
    // 14 steps; sections start after 4, 5, ... 9 completed steps.
    expect(seen).toEqual([4, 5, 6, 7, 8, 9].map((done) => Math.round((done / 14) * 100)));
    expect((await execution('t-progress'))!.progress_percentage).toBe(100);
  });
  it('an execution still completes, on the console alone, when the log table is missing', async () => {
    await db().schema.dropTable('orchestrator_processing_log').execute();
    await submitDirect('t-no-table', 'free');
    const done = await waitForStatus('t-no-table', 'completed');
    expect(done.progress_percentage).toBe(100);
    const lines = capture.lines.filter((l) => l.data.tracking_id === 't-no-table');
    expect(lines).toHaveLength(stepsFor('free').length * 2);
    expect(orchestratorCtx().logWriter.getStats().tableMissing).toBe(true);
  });
});
