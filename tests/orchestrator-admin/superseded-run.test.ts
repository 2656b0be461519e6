import { appSettings } from '../helpers/context';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signInAdmin, type SignedIn } from '../helpers/identity';
import { db, execution, logRows, orchestratorCtx, storeExecution } from '../orchestrator/helpers';
import { runExecution, type RunResult } from '../../functions/orchestrator/workflow/runner';

import { container } from '../../shared/storage';

/**
 * A run an administrator superseded (cancelled, then retried) never writes again: every write of a
 * run is tied to its attempt, so the old run stops at its next write and the new run completes
 * alone. The queue function is off (as Azure does with `AzureWebJobs.<name>.Disabled`), so the
 * test takes the retry's message itself and decides which run moves when; each run is held in its
 * PDF step by a visual service that answers a render only when the test releases it.
 */
jest.setTimeout(90_000);

/** A render the visual service holds until the test releases it (then it answers 503: the report goes without visuals). */
interface Hold {
  release(): void;
}

/** A visual service whose renders wait until the test releases them, each handed to the test in the order they arrive. */
class HoldingVisual {
  private readonly arrived: Hold[] = [];
  private readonly takers: ((hold: Hold) => void)[] = [];
  private readonly open = new Set<http.ServerResponse>();
  private server!: http.Server;
  url = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      req.resume();
      // The host's dependency check asks for /health: answered at once, only renders are held.
      if (req.url?.endsWith('/health')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      this.open.add(res);
      const hold = { release: () => this.answer(res) };
      const taker = this.takers.shift();
      if (taker) taker(hold);
      else this.arrived.push(hold);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/visual`;
  }

  private answer(res: http.ServerResponse): void {
    if (this.open.delete(res)) res.writeHead(503, { 'content-type': 'text/plain' }).end('held by the test');
  }

  /** The next render held, which `run` asks for in its PDF step; fails at once if `run` ends first (it never got there). */
  async next(run: Promise<RunResult>): Promise<Hold> {
    const held = this.arrived.shift();
    if (held) return held;
    return Promise.race([
      new Promise<Hold>((resolve) => this.takers.push(resolve)),
      run.then((result): never => {
        throw new Error(`the run ended (${result.outcome}: ${result.reason}) before its PDF step`);
      }),
    ]);
  }

  async stop(): Promise<void> {
    for (const res of [...this.open]) this.answer(res);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** What a run answers when a later attempt (or a cancel) took the execution from it. */
const STOPPED = 'this run no longer holds the execution (cancelled, retried or taken over)';

let host: TestHost;
let admin: SignedIn;
const visual = new HoldingVisual();

beforeAll(async () => {
  await visual.start();
  host = await startTestHost({
    env: {
      VISUAL_URL: visual.url,
      ORCHESTRATOR_VISUAL_TIMEOUT_MS: '60000',
      ORCHESTRATOR_LOG_FLUSH_MS: '20',
      'AzureWebJobs.orchestrator-run-execution.Disabled': 'true',
    },
  });
  admin = await signInAdmin(host);
});
afterAll(async () => {
  await host?.stop();
  await visual.stop();
});

async function post(path: string): Promise<{ status: number; body: any }> {
  const res = await host.fetch(`/orchestrator/api/admin/${path}`, { method: 'POST', headers: bearer(admin.accessToken) });
  return { status: res.status, body: await res.json() };
}

/** The report files stored for an execution: blob name and ETag (an overwrite changes the ETag). */
async function blobsOf(trackingId: string): Promise<string[]> {
  const client = await container(appSettings().ORCHESTRATOR_REPORTS_CONTAINER);
  const found: string[] = [];
  for await (const blob of client.listBlobsFlat({ prefix: `${trackingId}/` })) found.push(`${blob.name} ${blob.properties.etag}`);
  return found.sort();
}

/** Everything the old run could still change: the execution row, its log, its files. */
async function snapshot(trackingId: string) {
  return { execution: await execution(trackingId), log: await logRows(trackingId), blobs: await blobsOf(trackingId) };
}

/** Starts a run of a stored execution and waits until it is held in its PDF step. */
async function runHeldInPdf(trackingId: string): Promise<{ run: Promise<RunResult>; hold: Hold }> {
  const run = runExecution(orchestratorCtx(), trackingId);
  const hold = await visual.next(run);
  expect((await execution(trackingId))!.current_step_name).toBe('AI_ORCHESTRATION');
  // Wrapped: an async function answering the run's promise itself would wait for the run to end.
  return { run, hold };
}

async function cancelThenRetry(trackingId: string): Promise<void> {
  const cancelled = await post(`executions/${trackingId}/cancel`);
  expect([cancelled.status, cancelled.body.cancelled]).toEqual([200, true]);
  const retried = await post(`executions/${trackingId}/retry`);
  expect([retried.status, retried.body.retried]).toEqual([202, true]);
}

test('a cancelled run released after the retry, before the new run starts, writes nothing: no status, no PDF', async () => {
  await storeExecution('superseded-1', 'pro');
  const { run: old, hold: oldHold } = await runHeldInPdf('superseded-1');
  await cancelThenRetry('superseded-1');
  const reopened = await snapshot('superseded-1');
  expect(reopened.execution).toMatchObject({ processing_status: 'processing', attempts: 1, started_at: null, assets: null });

  oldHold.release();
  const result = await old;
  expect(result).toMatchObject({ outcome: 'skipped', reason: STOPPED });
  expect(await snapshot('superseded-1')).toEqual(reopened);

  // The retry's message taken: the new run completes alone, as attempt 2, with its own files.
  const next = runExecution(orchestratorCtx(), 'superseded-1');
  (await visual.next(next)).release();
  expect((await next).outcome).toBe('completed');
  const done = (await execution('superseded-1'))!;
  expect(done).toMatchObject({ processing_status: 'completed', attempts: 2, progress_percentage: 100 });
  expect(done.started_at).not.toBeNull();
  expect(JSON.parse(done.assets!).map((a: { blob: string }) => a.blob)).toEqual(['superseded-1/2/Acme-Widgets-GmbH-report.pdf']);
  expect((await blobsOf('superseded-1')).map((b) => b.split(' ')[0])).toEqual([
    'superseded-1/2/Acme-Widgets-GmbH-report.pdf',
    'superseded-1/2/report-page.json',
  ]);
});

test('two runs of one execution at once (the old one cancelled and retried): the old run stops at its next write and the new one completes alone', async () => {
  await storeExecution('superseded-2', 'pro');
  const { run: old, hold: oldHold } = await runHeldInPdf('superseded-2');
  await cancelThenRetry('superseded-2');
  // The retry's message taken while the old run still works, as Azure does: both are held in their PDF step.
  const next = runExecution(orchestratorCtx(), 'superseded-2');
  const nextHold = await visual.next(next);
  const during = await snapshot('superseded-2');
  expect(during.execution).toMatchObject({ processing_status: 'processing', attempts: 2, current_step_name: 'AI_ORCHESTRATION' });

  oldHold.release();
  expect(await old).toMatchObject({ outcome: 'skipped', reason: STOPPED });
  expect(await snapshot('superseded-2')).toEqual(during);

  nextHold.release();
  expect((await next).outcome).toBe('completed');
  const done = (await execution('superseded-2'))!;
  expect(done).toMatchObject({ processing_status: 'completed', attempts: 2 });
  expect((await blobsOf('superseded-2')).map((b) => b.split(' ')[0])).toEqual([
    'superseded-2/2/Acme-Widgets-GmbH-report.pdf',
    'superseded-2/2/report-page.json',
  ]);
  const completions = (await logRows('superseded-2')).filter((r) => r.step_name === 'WORKFLOW_COMPLETE' && r.status === 'completed');
  expect(completions).toHaveLength(1);
});

test('a run whose lease another run took over stops at its next write; two deliveries of one attempt run it once', async () => {
  await storeExecution('superseded-3', 'pro');
  const { run: stalled, hold: stalledHold } = await runHeldInPdf('superseded-3');
  // The stalled run made no progress for longer than the lease: the redelivered message takes the execution over.
  const longAgo = new Date(Date.now() - (appSettings().ORCHESTRATOR_LEASE_SECONDS + 60) * 1000).toISOString();
  await db().updateTable('orchestrator_executions').set({ updated_at: longAgo }).where('tracking_id', '=', 'superseded-3').execute();
  // Two copies of the message at once: one claims attempt 2, the other finds it held.
  const twins = [runExecution(orchestratorCtx(), 'superseded-3'), runExecution(orchestratorCtx(), 'superseded-3')];
  const loser = await Promise.race(twins.map((run, i) => run.then((result) => ({ i, result }))));
  expect(loser.result).toMatchObject({ outcome: 'skipped', reason: 'another run holds this execution' });
  const takeover = twins[1 - loser.i];
  const takeoverHold = await visual.next(takeover);
  const during = await snapshot('superseded-3');
  expect(during.execution).toMatchObject({ attempts: 2 });

  stalledHold.release();
  expect(await stalled).toMatchObject({ outcome: 'skipped', reason: STOPPED });
  expect(await snapshot('superseded-3')).toEqual(during);

  takeoverHold.release();
  expect((await takeover).outcome).toBe('completed');
  expect(await execution('superseded-3')).toMatchObject({ processing_status: 'completed', attempts: 2 });
  expect((await blobsOf('superseded-3')).map((b) => b.split(' ')[0])).toEqual([
    'superseded-3/2/Acme-Widgets-GmbH-report.pdf',
    'superseded-3/2/report-page.json',
  ]);
});
