import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin, type SignedIn } from '../helpers/identity';
import { startChatServer, type ChatServer } from '../orchestrator/chat-server';
import { ACME, db, execution, logRows, storeExecution, submitDirect, waitForStatus } from '../orchestrator/helpers';
import { waitFor } from '../helpers/wait';
import { ago, DAY, HOUR, insertExecution, MINUTE } from './fixtures';

/**
 * The administrators' actions on executions, through the dev host with its queue and runner: a
 * failed execution (the AI endpoint answering 500) retried under its tracking id until it
 * completes, a re-run as a new linked execution, a cancel that stops the run, a bulk retry of a
 * time range; who may call them, their audit, and that repeating any of them changes nothing more.
 */
jest.setTimeout(90_000);

let host: TestHost;
let chat: ChatServer;
let admin: SignedIn;
let user: SignedIn;

beforeAll(async () => {
  chat = await startChatServer();
  host = await startTestHost({
    env: { ORCHESTRATOR_AI_ENDPOINT: chat.url, ORCHESTRATOR_AI_MAX_RETRIES: '0', ORCHESTRATOR_AI_TIMEOUT_MS: '1500', ORCHESTRATOR_LOG_FLUSH_MS: '20' },
  });
  admin = await signInAdmin(host);
  user = await signIn(host, 'plain-user@example.com');
});
afterAll(async () => {
  await host?.stop();
  await chat?.close();
});

async function post(path: string, options: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {}) {
  const token = options.token === undefined ? admin.accessToken : options.token;
  const res = await host.fetch(`/orchestrator/api/admin/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}), ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
const get = async (path: string) => {
  const res = await host.fetch(`/orchestrator/api/admin/${path}`, { headers: bearer(admin.accessToken) });
  return { status: res.status, body: (await res.json()) as any };
};
const actionsOf = async (trackingId: string) => (await get(`status/${trackingId}`)).body.data.actions as any[];

/** An execution of ACME that failed at its first AI section (the endpoint answered 500). */
async function failedExecution(trackingId: string): Promise<void> {
  chat.script([{ status: 500 }]);
  await submitDirect(trackingId, 'pro', undefined, user.user.id);
  await waitForStatus(trackingId, 'failed');
  chat.script([{ status: 200 }]);
}

test('only an admin may act: no token 401, a plain user 403, on every action route', async () => {
  const routes = ['executions/x/retry', 'executions/x/rerun', 'executions/x/cancel', 'executions/retry-failed'];
  for (const path of routes) {
    expect((await post(path, { token: null, body: {} })).status).toBe(401);
    const refused = await post(path, { token: user.accessToken, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('ADMIN_REQUIRED');
  }
  const search = await host.fetch('/orchestrator/api/admin/executions', { headers: bearer(user.accessToken) });
  expect(search.status).toBe(403);
});

test('a failed execution retried runs again under its tracking id and completes; a repeat while it runs queues nothing more', async () => {
  await failedExecution('retry-1');
  const failedRows = (await logRows('retry-1')).length;
  // Two retries at once: one reopens and queues it, the other finds it processing.
  const [a, b] = await Promise.all([post('executions/retry-1/retry'), post('executions/retry-1/retry')]);
  expect([a.status, b.status]).toEqual([202, 202]);
  expect([a.body.retried, b.body.retried].sort()).toEqual([false, true]);
  expect(a.body).toMatchObject({ success: true, trackingId: 'retry-1', status: 'processing' });
  const done = await waitForStatus('retry-1', 'completed');
  // One more run: attempts 2, and the log keeps the failed run above the new one.
  expect(done).toMatchObject({ attempts: 2, error_pattern: null, error_message: null });
  const rows = await waitFor(async () => {
    const all = await logRows('retry-1');
    return all.some((r) => r.step_name === 'WORKFLOW_COMPLETE' && r.status === 'completed') ? all : undefined;
  }, 10_000);
  expect(rows.slice(0, failedRows).some((r) => r.status === 'failed')).toBe(true);
  expect(rows.filter((r) => r.step_name === 'WORKFLOW_START' && r.status === 'started')).toHaveLength(2);
  const status = (await get('status/retry-1')).body;
  expect(status.data.processing_metrics).toMatchObject({ completed_steps: 14, total_steps: 14 });
  expect(status.data.actions).toEqual([
    expect.objectContaining({
      action: 'execution.retry',
      tracking_id: 'retry-1',
      result: 'success',
      actor: { id: admin.user.id, email: 'admin@example.com' },
      details: { previous: expect.objectContaining({ error_pattern: 'AI_SERVICE', error_source: 'AI_SERVICE' }) },
    }),
  ]);
  // The rollups moved with it: the overview counts it completed, not failed.
  const overview = (await get('dashboard/overview')).body.dashboard.health;
  expect(overview).toMatchObject({ failed: 0, completed: 1 });
  // A completed execution is not retried (re-run it instead), and the refusal is audited.
  const refused = await post('executions/retry-1/retry');
  expect(refused.status).toBe(409);
  expect(refused.body.code).toBe('EXECUTION_NOT_RETRYABLE');
  expect((await actionsOf('retry-1'))[0]).toMatchObject({ action: 'execution.retry', result: 'failure', reason: 'EXECUTION_NOT_RETRYABLE' });
});

test('a re-run is a new execution linked both ways; the same Idempotency-Key answers the same one', async () => {
  await failedExecution('rerun-1');
  const first = await post('executions/rerun-1/rerun', { headers: { 'idempotency-key': 'click-1' } });
  expect(first.status).toBe(202);
  expect(first.body).toMatchObject({ success: true, rerunOf: 'rerun-1', status: 'processing', repeated: false });
  const newId = first.body.trackingId as string;
  expect(newId).toMatch(/^rpt-/);
  const again = await post('executions/rerun-1/rerun', { headers: { 'idempotency-key': 'click-1' } });
  expect(again.body).toMatchObject({ trackingId: newId, repeated: true });
  const completed = await waitForStatus(newId, 'completed');
  expect(completed).toMatchObject({ requested_by: user.user.id, plan: 'pro', company_name: 'Acme Widgets GmbH' });
  expect((await execution('rerun-1'))?.processing_status).toBe('failed');
  for (const id of ['rerun-1', newId]) {
    expect(await actionsOf(id)).toEqual([expect.objectContaining({ action: 'execution.rerun', tracking_id: 'rerun-1', related_tracking_id: newId })]);
  }
  // Without a key, each call is a new re-run; a bad key is refused before anything happens.
  const other = await post('executions/rerun-1/rerun');
  expect(other.body.trackingId).not.toBe(newId);
  await waitForStatus(other.body.trackingId, 'completed');
  const bad = await post('executions/rerun-1/rerun', { headers: { 'idempotency-key': 'not a key!' } });
  expect(bad.status).toBe(400);
  expect(bad.body.code).toBe('VALIDATION_FAILED');
  // A processing execution is not re-run.
  await storeExecution('rerun-busy', 'pro');
  const busy = await post('executions/rerun-busy/rerun');
  expect(busy.status).toBe(409);
  expect(busy.body.code).toBe('EXECUTION_NOT_FINISHED');
  expect((await post('executions/nope/rerun')).status).toBe(404);
});

test('a cancel ends a running execution, which stops at its next step; a repeat changes nothing', async () => {
  chat.script(['hang', { status: 200 }]); // the first section waits on the AI endpoint
  chat.requests.length = 0;
  await submitDirect('cancel-1', 'pro', undefined, user.user.id);
  await waitFor(async () => (chat.requests.length > 0 && (await execution('cancel-1'))?.current_step_name === 'DATA_PREPARATION' ? true : undefined), 15_000);
  const cancelled = await post('executions/cancel-1/cancel');
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toMatchObject({ success: true, trackingId: 'cancel-1', status: 'failed', cancelled: true });
  expect(await execution('cancel-1')).toMatchObject({ processing_status: 'failed', health_status: 'CANCELLED', error_pattern: 'CANCELLED' });
  const repeat = await post('executions/cancel-1/cancel');
  expect(repeat.body).toMatchObject({ cancelled: false });
  // The AI call times out (1.5 s) and the retry answers: the run finds the execution cancelled and writes nothing more.
  const atCancel = (await logRows('cancel-1')).length;
  await new Promise((resolve) => setTimeout(resolve, 4000));
  const rows = await logRows('cancel-1');
  expect(rows).toHaveLength(atCancel);
  expect(rows.at(-1)).toMatchObject({ status: 'failed', error_message: 'Cancelled by an administrator (admin@example.com)', error_pattern: null });
  expect(await execution('cancel-1')).toMatchObject({ processing_status: 'failed', health_status: 'CANCELLED' });
  expect((await get('status/cancel-1')).body.data.execution.health_status).toBe('FAILED');
  // The cancellation counts in no error figure.
  const failures = (await get('dashboard/failures?timeframe=24h')).body.failure_analysis;
  expect(failures.error_patterns.map((p: any) => p.error_pattern)).not.toContain('CANCELLED');
  // Only a processing execution is cancelled.
  await failedExecution('cancel-2');
  const refused = await post('executions/cancel-2/cancel');
  expect(refused.status).toBe(409);
  expect(refused.body.code).toBe('EXECUTION_NOT_CANCELLABLE');
});

test('bulk retry: the failed executions of a range, oldest first, a batch per call, diagnostics aside', async () => {
  const submission = JSON.stringify(ACME);
  const inRange = [];
  for (const hoursAgo of [5, 4, 3]) inRange.push(await insertExecution({ processing_status: 'failed', createdAgo: hoursAgo * HOUR, submission }));
  await insertExecution({ processing_status: 'failed', createdAgo: 3 * DAY, submission });
  await insertExecution({ tracking_id: 'diag-bulk', processing_status: 'failed', createdAgo: 4 * HOUR, submission });
  await insertExecution({ processing_status: 'completed', createdAgo: 4 * HOUR });
  const range = { from: ago(6 * HOUR), to: ago(2 * HOUR) };

  const dry = await post('executions/retry-failed', { body: { ...range, dryRun: true } });
  expect(dry.status).toBe(200);
  expect(dry.body).toMatchObject({ dryRun: true, matched: 3, retried: 0, remaining: 3 });
  const firstBatch = await post('executions/retry-failed', { body: { ...range, limit: 2 } });
  expect(firstBatch.body).toMatchObject({ dryRun: false, matched: 3, retried: 2, trackingIds: inRange.slice(0, 2), remaining: 1 });
  const second = await post('executions/retry-failed', { body: range });
  expect(second.body).toMatchObject({ matched: 1, retried: 1, trackingIds: [inRange[2]], remaining: 0 });
  for (const id of inRange) await waitForStatus(id, 'completed');
  expect((await post('executions/retry-failed', { body: range })).body).toMatchObject({ matched: 0, retried: 0 });
  expect((await execution('diag-bulk'))?.processing_status).toBe('failed');
  const summaries = await db().selectFrom('orchestrator_admin_actions').selectAll().where('action', '=', 'executions.retry_failed').orderBy('id').execute();
  expect(summaries.map((r) => JSON.parse(r.details!).retried)).toEqual([2, 1, 0]);

  const backwards = await post('executions/retry-failed', { body: { from: range.to, to: range.from } });
  expect(backwards.status).toBe(400);
  expect((await post('executions/retry-failed', { body: { from: range.from } })).status).toBe(400);
  expect((await post('executions/retry-failed', { body: { ...range, limit: 501 } })).status).toBe(400);
});

describe('GET api/admin/executions', () => {
  beforeAll(async () => {
    for (let i = 0; i < 7; i++) {
      await insertExecution({
        tracking_id: `find-${String(i).padStart(2, '0')}_x`,
        company_name: i % 2 ? 'Umbrella Labs' : 'Globex Foods',
        createdAgo: 10 * DAY + i * MINUTE,
        duration_ms: 1000 * ((i * 3) % 7) + 1,
        requested_by: i < 3 ? 'requester-a' : 'requester-b',
        processing_status: i === 6 ? 'failed' : 'completed',
        error_pattern: i === 6 ? 'TIMEOUT' : null,
      });
    }
  });
  const find = async (query: string) => {
    const res = await get(`executions?${query}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const window = () => `from=${encodeURIComponent(ago(11 * DAY))}&to=${encodeURIComponent(ago(9 * DAY))}`;

  test('by tracking id prefix, company, requesters, status and error, within a time range', async () => {
    expect((await find(`tracking_id=find-03_x`)).executions.map((e: any) => e.tracking_id)).toEqual(['find-03_x']);
    // `_` is a plain character, not a wildcard.
    expect((await find(`tracking_id=find-0`)).executions).toHaveLength(7);
    expect((await find(`tracking_id=find_0`)).executions).toHaveLength(0);
    expect((await find(`company=umbrella&${window()}`)).executions.map((e: any) => e.tracking_id)).toEqual(['find-01_x', 'find-03_x', 'find-05_x']);
    const mine = await find(`requested_by=requester-a,someone-else&${window()}`);
    expect(mine.executions.map((e: any) => [e.tracking_id, e.requested_by])).toEqual([
      ['find-00_x', 'requester-a'],
      ['find-01_x', 'requester-a'],
      ['find-02_x', 'requester-a'],
    ]);
    expect((await find(`tracking_id=find&error=TIMEOUT&status=failed`)).executions.map((e: any) => e.tracking_id)).toEqual(['find-06_x']);
    expect((await find(`from=${encodeURIComponent(ago(9 * DAY))}&tracking_id=find`)).executions).toHaveLength(0);
  });

  test('each sort pages through every row once with the cursor', async () => {
    // i minutes older for each i (find-00_x is the newest); durations 1, 3001, 6001, 2001, 5001, 1001, 4001 ms; even i Globex, odd Umbrella.
    const newest = ['find-00_x', 'find-01_x', 'find-02_x', 'find-03_x', 'find-04_x', 'find-05_x', 'find-06_x'];
    const expected: Record<string, string[]> = {
      newest,
      oldest: [...newest].reverse(),
      longest: ['find-02_x', 'find-04_x', 'find-06_x', 'find-01_x', 'find-03_x', 'find-05_x', 'find-00_x'],
      company: ['find-00_x', 'find-02_x', 'find-04_x', 'find-06_x', 'find-01_x', 'find-03_x', 'find-05_x'],
    };
    for (const [sort, want] of Object.entries(expected)) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await find(`tracking_id=find&sort=${sort}&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.executions.length).toBeLessThanOrEqual(3);
        seen.push(...page.executions.map((e: any) => e.tracking_id));
        cursor = page.next_cursor;
      } while (cursor);
      expect([sort, seen]).toEqual([sort, want]);
    }
  });

  test('a cursor of another sort, or not a cursor, is a 400', async () => {
    const page = await find('tracking_id=find&sort=newest&limit=2');
    for (const query of [`sort=oldest&cursor=${page.next_cursor}`, 'cursor=garbage']) {
      const res = await get(`executions?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
    for (const query of ['requested_by=a,,b', 'error=NOPE', 'limit=101', 'tracking_id=has%20space', 'from=yesterday', 'sort=random']) {
      expect((await get(`executions?${query}`)).status).toBe(400);
    }
  });
});
