import { randomUUID } from 'node:crypto';
import { DEFAULT_PLANS } from '../../shared/plans';
import { eventBody } from '../../functions/orchestrator/notify/dispatch';
import { appSettings } from '../helpers/context';
import { insertExecution } from '../../functions/orchestrator/workflow/executions';
import { expectErrorAnswer } from '../helpers/errors';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, type SignedIn } from '../helpers/identity';
import { startChatServer, type ChatServer } from './chat-server';
import { ACME, db, execution, orchestratorCtx, waitFor } from './helpers';

/**
 * Issue 51, items 1-3 over HTTP through the dev host (SQLite, Azurite, a local chat-completions
 * server): a user's own reports a page at a time with the quota of the period, the Idempotency-Key
 * of POST api/reports (one execution and one quota use for two requests sent at once), and the
 * owner's cancel, which gives the report back to the quota.
 */

type Listed = {
  trackingId: string;
  company: string;
  status: string;
  progress: number;
  createdAt: string;
  completedAt: string | null;
  downloadLinks: { kind: string; url: string }[];
};
type Page = {
  success: boolean;
  reports: Listed[];
  next_cursor: string | null;
  quota: { limit: number | null; used: number; remaining: number | null; resetsAt: string; period: string };
};

/** The free plan allows 3 reports a month here, so the refusal point is reached in a few requests. */
const FREE_LIMIT = 3;
const table = DEFAULT_PLANS.map((p) => (p.id === 'free' ? { ...p, reportsPerMonth: FREE_LIMIT } : p));

let host: TestHost;
let chat: ChatServer;

beforeAll(async () => {
  chat = await startChatServer();
  host = await startTestHost({
    env: {
      PLANS_JSON: JSON.stringify(table),
      ORCHESTRATOR_AI_ENDPOINT: chat.url,
      ORCHESTRATOR_AI_MAX_RETRIES: '0',
      ORCHESTRATOR_AI_TIMEOUT_MS: '20000',
      ORCHESTRATOR_LOG_FLUSH_MS: '20',
    },
  });
});
afterAll(async () => {
  // The chat server first: the runs it holds fail at once instead of waiting for their timeout.
  await chat?.close();
  await host?.stop();
});

const list = async (user: SignedIn, query = '') => {
  const res = await host.fetch(`/orchestrator/api/reports${query}`, { headers: bearer(user.accessToken) });
  return { res, body: (await res.clone().json()) as Page };
};

const post = (user: SignedIn, body: unknown, key?: string) =>
  host.fetch('/orchestrator/api/reports', {
    method: 'POST',
    headers: { ...bearer(user.accessToken), 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
    body: JSON.stringify(body),
  });

const cancel = (user: SignedIn, trackingId: string) =>
  host.fetch(`/orchestrator/api/reports/${trackingId}/cancel`, { method: 'POST', headers: bearer(user.accessToken) });

const executionsOf = async (userId: string) =>
  (await db().selectFrom('orchestrator_executions').select('tracking_id').where('requested_by', '=', userId).execute()).map((r) => r.tracking_id);

/** Every page of a user's list (limit per page), following next_cursor. */
async function allPages(user: SignedIn, limit: number, filter = '', between?: (page: number) => Promise<void>): Promise<Listed[]> {
  const seen: Listed[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const { res, body } = await list(user, `?limit=${limit}${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.status).toBe(200);
    expect(body.reports.length).toBeLessThanOrEqual(limit);
    seen.push(...body.reports);
    cursor = body.next_cursor;
    if (!cursor) return seen;
    await between?.(page);
  }
  throw new Error('more than 100 pages');
}

test('a user pages through 60 reports newest first with stable cursors and no duplicates; another user’s never appear; status filters', async () => {
  const owner = await signIn(host, 'sixty@example.com');
  const other = await signIn(host, 'someone-else@example.com');
  const ctx = orchestratorCtx();
  // Within the last minute: far from the stuck-execution timer's 30 minutes, which would fail them mid-test.
  const base = Date.now() - 60_000;
  const mine: { id: string; at: string }[] = [];
  for (let i = 0; i < 60; i++) {
    // Two reports per second: equal creation times are ordered by tracking id, and no page splits a pair wrongly.
    const at = new Date(base + Math.floor(i / 2) * 1000).toISOString();
    const id = `rpt-list-${randomUUID()}`;
    mine.push({ id, at });
    await insertExecution(ctx, {
      trackingId: id,
      companyName: `Company ${i}`,
      industryId: '54',
      submission: ACME,
      requestedBy: owner.user.id,
      plan: 'free',
      now: at,
    });
    if (i % 10 === 0) {
      await insertExecution(ctx, {
        trackingId: `rpt-other-${i}`,
        companyName: 'Not yours',
        industryId: '54',
        submission: ACME,
        requestedBy: other.user.id,
        plan: 'free',
        now: at,
      });
    }
  }
  const failed = mine.filter((_, i) => i % 6 === 0).map((m) => m.id);
  await db().updateTable('orchestrator_executions').set({ processing_status: 'failed' }).where('tracking_id', 'in', failed).execute();
  const expected = [...mine].sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1)).map((m) => m.id);

  // A new report arriving between pages does not move what the cursor already passed.
  const seen = await allPages(owner, 7, '', async (page) => {
    if (page === 2) {
      await insertExecution(ctx, {
        trackingId: `rpt-list-late-${randomUUID()}`,
        companyName: 'Late',
        industryId: '54',
        submission: ACME,
        requestedBy: owner.user.id,
        plan: 'free',
        now: new Date().toISOString(),
      });
    }
  });
  const ids = seen.map((r) => r.trackingId);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual(expected);
  // The newest second holds reports 58 and 59: the larger tracking id comes first.
  const newest = mine.findIndex((m) => m.id === expected[0]);
  expect(newest === 58 || newest === 59).toBe(true);
  expect(seen[0]).toEqual({
    trackingId: expected[0],
    company: `Company ${newest}`,
    status: 'processing',
    progress: 0,
    createdAt: mine[59].at,
    completedAt: null,
    downloadLinks: [],
  });

  // The new report heads the next listing; the other user's never appear, in either list.
  const fresh = await allPages(owner, 100);
  expect(fresh).toHaveLength(61);
  expect(fresh[0].company).toBe('Late');
  expect(fresh.some((r) => r.company === 'Not yours')).toBe(false);
  const theirs = await allPages(other, 50);
  expect(theirs.map((r) => r.trackingId).sort()).toEqual(['rpt-other-0', 'rpt-other-10', 'rpt-other-20', 'rpt-other-30', 'rpt-other-40', 'rpt-other-50']);

  // The status filter pages too.
  const onlyFailed = await allPages(owner, 4, '&status=failed');
  expect(onlyFailed.map((r) => r.trackingId)).toEqual(expected.filter((id) => failed.includes(id)));
  expect(onlyFailed.every((r) => r.status === 'failed')).toBe(true);
});

test('a completed report is listed with a fresh PDF link that downloads', async () => {
  chat.script([{ status: 200 }]);
  const user = await signIn(host, 'completed-lister@example.com');
  const accepted = await post(user, ACME, `key-${randomUUID()}`);
  expect(accepted.status).toBe(202);
  const { trackingId } = (await accepted.json()) as { trackingId: string };
  const done = await waitFor(
    async () => {
      const { body } = await list(user, '?status=completed');
      return body.reports.find((r) => r.trackingId === trackingId);
    },
    60_000,
    'the completed report in the list',
  );
  expect(done).toMatchObject({ status: 'completed', progress: 100, company: ACME.company_name, completedAt: expect.any(String) });
  expect(done.downloadLinks.map((l) => l.kind)).toEqual(['pdf']);
  const pdf = await fetch(done.downloadLinks[0].url);
  expect(pdf.status).toBe(200);
  expect(
    Buffer.from(await pdf.arrayBuffer())
      .subarray(0, 5)
      .toString(),
  ).toBe('%PDF-');
});

describe('one click, one report; the owner cancels (reports stay processing: the AI endpoint never answers)', () => {
  beforeAll(() => chat.script(['hang']));

  test('two POSTs with one key sent at once: one execution, one quota use, the same tracking id; another body with that key is refused 422', async () => {
    const user = await signIn(host, 'double-click@example.com');
    expect((await list(user)).body.quota).toEqual({
      limit: FREE_LIMIT,
      used: 0,
      remaining: FREE_LIMIT,
      resetsAt: expect.any(String),
      period: 'calendar_month',
    });
    const key = `double-${randomUUID()}`;
    const [a, b] = await Promise.all([post(user, ACME, key), post(user, ACME, key)]);
    expect([a.status, b.status]).toEqual([202, 202]);
    const [bodyA, bodyB] = (await Promise.all([a.json(), b.json()])) as { trackingId: string }[];
    expect(bodyA.trackingId).toBe(bodyB.trackingId);
    expect([a.headers.get('idempotent-replayed'), b.headers.get('idempotent-replayed')].sort()).toEqual(['true', null].sort());
    expect(await executionsOf(user.user.id)).toEqual([bodyA.trackingId]);
    expect((await list(user)).body.quota).toMatchObject({ used: 1, remaining: FREE_LIMIT - 1 });

    // Sent again later (a retry after a timeout): the same report, nothing counted.
    const again = await post(user, { ...ACME }, key);
    expect(again.status).toBe(202);
    expect(((await again.json()) as { trackingId: string; quota: { count: number } }).trackingId).toBe(bodyA.trackingId);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    // The same key with another body.
    const reused = await post(user, { ...ACME, company_name: 'Another Company' }, key);
    await expectErrorAnswer(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await executionsOf(user.user.id)).toHaveLength(1);
    expect((await list(user)).body.quota).toMatchObject({ used: 1, remaining: FREE_LIMIT - 1 });

    // Keys are per user: another user's same key makes their own report.
    const neighbour = await signIn(host, 'double-click-neighbour@example.com');
    const theirs = await post(neighbour, ACME, key);
    expect(theirs.status).toBe(202);
    expect(((await theirs.json()) as { trackingId: string }).trackingId).not.toBe(bodyA.trackingId);

    // Past 24 hours a key starts afresh (here: its row made 25 hours old).
    await db()
      .updateTable('orchestrator_report_keys')
      .set({ created_at: new Date(Date.now() - 25 * 3_600_000).toISOString() })
      .where('user_id', '=', user.user.id)
      .execute();
    const expired = await post(user, { ...ACME, company_name: 'Another Company' }, key);
    expect(expired.status).toBe(202);
    expect(((await expired.json()) as { trackingId: string }).trackingId).not.toBe(bodyA.trackingId);
  });

  test('the listed quota is where the next request is refused; the owner cancels, the report goes back to the quota; a key refused at the quota can be used again', async () => {
    const user = await signIn(host, 'canceller@example.com');
    const made: string[] = [];
    const { remaining } = (await list(user)).body.quota;
    expect(remaining).toBe(FREE_LIMIT);
    for (let i = 0; i < remaining!; i++) {
      const res = await post(user, ACME, `fill-${i}-${randomUUID()}`);
      expect(res.status).toBe(202);
      made.push(((await res.json()) as { trackingId: string }).trackingId);
    }
    const page = (await list(user)).body;
    expect(page.quota).toMatchObject({ limit: FREE_LIMIT, used: FREE_LIMIT, remaining: 0 });
    expect(page.reports.map((r) => r.trackingId)).toEqual([...made].reverse());
    const lateKey = `late-${randomUUID()}`;
    const refused = await post(user, ACME, lateKey);
    const refusal = await expectErrorAnswer(refused, 429, 'REPORT_QUOTA_EXCEEDED');
    expect(refusal).toMatchObject({ limit: page.quota.limit, count: page.quota.used, resetsAt: page.quota.resetsAt, period: page.quota.period });
    // The refused request let its key go: no key answers a report that does not exist.
    expect(await db().selectFrom('orchestrator_report_keys').select('tracking_id').where('idempotency_key', '=', lateKey).execute()).toEqual([]);

    // Someone else cancelling it gets the 404 of an unknown id.
    const stranger = await signIn(host, 'stranger@example.com');
    const notYours = await expectErrorAnswer(await cancel(stranger, made[0]), 404, 'REPORT_NOT_FOUND');
    const unknown = await expectErrorAnswer(await cancel(user, 'rpt-unknown'), 404, 'REPORT_NOT_FOUND');
    expect(notYours.message.replace(made[0], 'ID')).toBe(unknown.message.replace('rpt-unknown', 'ID'));
    expect(await execution(made[0])).toMatchObject({ processing_status: 'processing' });

    // The owner cancels: failed (CANCELLED), and the report is back in the quota; a repeat gives nothing more back.
    const cancelled = await cancel(user, made[0]);
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toEqual({ success: true, trackingId: made[0], status: 'failed', cancelled: true });
    expect(await execution(made[0])).toMatchObject({ processing_status: 'failed', health_status: 'CANCELLED', error_pattern: 'CANCELLED' });
    expect((await list(user)).body.quota).toMatchObject({ used: FREE_LIMIT - 1, remaining: 1 });
    const repeat = await cancel(user, made[0]);
    expect(repeat.status).toBe(200);
    expect(((await repeat.json()) as { cancelled: boolean }).cancelled).toBe(false);
    expect((await list(user)).body.quota).toMatchObject({ used: FREE_LIMIT - 1, remaining: 1 });
    const status = (await (await host.fetch(`/orchestrator/api/reports/${made[0]}`, { headers: bearer(user.accessToken) })).json()) as {
      error: { message: string };
    };
    expect(status.error.message).toMatch(/cancelled at your request/);
    // The notice of the cancelled report (e-mail and webhook) words it the same way.
    const notice = await db().selectFrom('orchestrator_notify_events').selectAll().where('tracking_id', '=', made[0]).executeTakeFirstOrThrow();
    expect(JSON.parse(eventBody({ config: appSettings() }, notice))).toMatchObject({
      type: 'report.failed',
      data: { trackingId: made[0], error: status.error.message },
    });

    // The key refused at the quota now makes the report, and that was the last one.
    const retried = await post(user, ACME, lateKey);
    expect(retried.status).toBe(202);
    expect((await list(user)).body.quota).toMatchObject({ used: FREE_LIMIT, remaining: 0 });
    await expectErrorAnswer(await post(user, ACME), 429, 'REPORT_QUOTA_EXCEEDED');

    // A report that has finished cannot be cancelled.
    await db()
      .updateTable('orchestrator_executions')
      .set({ processing_status: 'completed', progress_percentage: 100 })
      .where('tracking_id', '=', made[1])
      .execute();
    await expectErrorAnswer(await cancel(user, made[1]), 409, 'EXECUTION_NOT_CANCELLABLE');
    expect((await list(user)).body.quota).toMatchObject({ used: FREE_LIMIT });
  });
});

test('malformed input answers 400 JSON: a bad cursor, a bad status filter, a bad limit, a bad Idempotency-Key', async () => {
  const user = await signIn(host, 'malformed@example.com');
  await expectErrorAnswer((await list(user, '?cursor=not-a-cursor')).res, 400, 'VALIDATION_FAILED');
  const forged = Buffer.from(JSON.stringify({ s: 'oldest', k: ['x', 'y'] })).toString('base64url');
  await expectErrorAnswer((await list(user, `?cursor=${forged}`)).res, 400, 'VALIDATION_FAILED');
  await expectErrorAnswer((await list(user, '?status=done')).res, 400, 'VALIDATION_FAILED');
  await expectErrorAnswer((await list(user, '?limit=0')).res, 400, 'VALIDATION_FAILED');
  for (const key of ['short', 'x'.repeat(201), 'has a space', 'tab\there-1']) {
    await expectErrorAnswer(await post(user, ACME, key), 400, 'INVALID_IDEMPOTENCY_KEY');
  }
  expect(await executionsOf(user.user.id)).toEqual([]);
  await expectErrorAnswer(await host.fetch('/orchestrator/api/reports'), 401, 'AUTH_REQUIRED');
});
