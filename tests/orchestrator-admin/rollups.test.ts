import { toIso } from '../../shared/sql/dialect';
import { rebuildRollups } from '../../functions/orchestrator/rollups/rebuild';
import { ROLLUP_TABLES } from '../../functions/orchestrator/db/rollups';
import { bucketsBetween, TIMEFRAMES, type Timeframe } from '../../functions/orchestrator/admin/time-windows';
import {
  claimExecution,
  completeExecution,
  deleteExecution,
  failExecution,
  findExecution,
  insertExecution as submitExecution,
} from '../../functions/orchestrator/workflow/executions';
import { db, orchestratorCtx } from '../orchestrator/helpers';
import { adminTestHost, ago, DAY, HOUR, insertExecution, insertLog, MINUTE, NOW } from './fixtures';

/**
 * The dashboards read hourly rollups for whole hours and raw rows for the first, partial hour of a
 * window. These tests hold their answers against the raw rows: an oracle here counts the inserted
 * rows directly, at clock positions on both sides of every window edge, and a rebuild from the
 * raw rows must give the rollups the incremental path kept.
 */
// Tokens live an hour: the clock moves up to 59 minutes past the sign-in.
const admin = adminTestHost(undefined, { ACCESS_TOKEN_TTL_SECONDS: '3600' });

const PATTERNS = [
  ['AI_SERVICE', 'AI_SERVICE'],
  ['SQL_CONNECTION', 'SQL_DATABASE'],
  ['TIMEOUT', null],
  ['BLOB_CONNECTION', 'BLOB_STORAGE'],
] as const;
const STEPS = [
  [4, 'AI_ORCHESTRATION'],
  [2, 'STATUS_UPDATE'],
  [null, 'UNNUMBERED'],
  [7, null],
] as const;
const STATUSES = ['completed', 'failed', 'processing'] as const;

interface Log {
  at: string;
  status: string;
  pattern: string | null;
  source: string | null;
  step: readonly [number | null, string | null];
}
interface Execution {
  at: string;
  status: (typeof STATUSES)[number];
  duration: number | null;
}

/** Times (before NOW) on both sides of each window's start and of the end of its first, partial hour, and a few ordinary ones. */
function edgeOffsets(): number[] {
  const offsets = [0, 1, 5 * MINUTE, HOUR, 3 * HOUR + 7, 2 * DAY, -5 * MINUTE, -HOUR];
  for (const window of [DAY, 7 * DAY, 30 * DAY])
    for (const edge of [window, window - 30 * MINUTE, window + 30 * MINUTE]) offsets.push(edge + 1, edge, edge - 1, edge - 30 * 60_000 + 1);
  return offsets;
}

async function seedEdges(): Promise<{ logs: Log[]; executions: Execution[] }> {
  const logs: Log[] = [];
  const executions: Execution[] = [];
  let i = 0;
  for (const offset of edgeOffsets()) {
    for (let k = 0; k < 2; k++, i++) {
      const [pattern, source] = PATTERNS[i % PATTERNS.length];
      const step = STEPS[i % STEPS.length];
      const log: Log = { at: ago(offset), status: i % 3 === 2 ? 'completed' : 'failed', pattern: i % 5 === 4 ? null : pattern, source, step };
      logs.push(log);
      await insertLog({ atAgo: offset, status: log.status, error_pattern: log.pattern, error_source: log.source, step_number: step[0], step_name: step[1] });
      const status = STATUSES[i % STATUSES.length];
      const duration = status === 'processing' ? null : 1_000 + ((i * 7919) % 100_000);
      executions.push({ at: ago(offset), status, duration });
      await insertExecution({ createdAgo: offset, processing_status: status, duration_ms: duration, company_name: `Company ${i % 7}` });
      if (i % 4 === 0) {
        // A diagnostic execution (the enhanced test's) and its failed step: listed, never counted.
        await insertExecution({ tracking_id: `diag-${i}`, createdAgo: offset, processing_status: 'failed', company_name: 'Sample Co (diagnostic)' });
        await insertLog({
          tracking_id: `diag-${i}`,
          atAgo: offset,
          status: 'failed',
          error_pattern: pattern,
          error_source: source,
          step_number: step[0],
          step_name: step[1],
        });
      }
    }
  }
  return { logs, executions };
}

const since = (now: Date, ms: number) => new Date(now.getTime() - ms).toISOString();
const latestOf = (rows: { at: string }[]) => (rows.length ? rows.map((r) => r.at).sort()[rows.length - 1] : null);

function countBy<T>(rows: T[], key: (row: T) => string | null): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    if (k !== null) groups.set(k, [...(groups.get(k) ?? []), row]);
  }
  return groups;
}

function expectedExecutionCounts(executions: Execution[], from: string) {
  const inWindow = executions.filter((e) => e.at >= from);
  const completed = inWindow.filter((e) => e.status === 'completed' && e.duration !== null);
  return {
    total: inWindow.length,
    completed: inWindow.filter((e) => e.status === 'completed').length,
    failed: inWindow.filter((e) => e.status === 'failed').length,
    processing: inWindow.filter((e) => e.status === 'processing').length,
    average: completed.length ? Math.round(completed.reduce((s, e) => s + e.duration!, 0) / completed.length) : 0,
  };
}

function expectedFailures(data: { logs: Log[]; executions: Execution[] }, now: Date, timeframe: Timeframe) {
  const from = since(now, TIMEFRAMES[timeframe].ms);
  const logs = data.logs.filter((l) => l.at >= from);
  // A failed step counts where its failure was classified: an unclassified failed row only passes an inner step's failure on.
  const failed = logs.filter((l) => l.status === 'failed' && l.pattern !== null);
  const buckets = bucketsBetween(new Date(from), now, TIMEFRAMES[timeframe].unit);
  return {
    patterns: Object.fromEntries([...countBy(logs, (l) => l.pattern)].map(([k, rows]) => [k, [rows.length, latestOf(rows)]])),
    sources: Object.fromEntries([...countBy(logs, (l) => l.source)].map(([k, rows]) => [k, rows.length])),
    steps: Object.fromEntries([...countBy(failed, (l) => JSON.stringify(l.step))].map(([k, rows]) => [k, [rows.length, latestOf(rows)]])),
    timeline: buckets.map((b, i) => {
      const start = i === 0 ? from : b.start;
      const end = buckets[i + 1]?.start;
      return failed.filter((l) => l.at >= start && (end === undefined || l.at < end)).length;
    }),
    failedExecutions: expectedExecutionCounts(data.executions, from).failed,
  };
}

function answeredFailures(body: any) {
  const analysis = body.failure_analysis;
  return {
    patterns: Object.fromEntries(analysis.error_patterns.map((p: any) => [p.error_pattern, [p.occurrences, p.latest_occurrence]])),
    sources: Object.fromEntries(analysis.error_sources.filter((s: any) => s.error_count > 0).map((s: any) => [s.error_source, s.error_count])),
    steps: Object.fromEntries(analysis.step_failures.map((s: any) => [JSON.stringify([s.step_number, s.step_name]), [s.failures, s.latest_failure]])),
    timeline: analysis.timeline.points.map((p: any) => p.failures),
    failedExecutions: analysis.affected_clients.failed_executions,
  };
}

/** NOW is half past an hour: these move every window start onto, just before and just after an hour boundary. */
const CLOCKS: [string, number][] = [
  ['half past the hour', 0],
  ['1 ms later', 1],
  ['1 ms before the hour', 30 * MINUTE - 1],
  ['on the hour', 30 * MINUTE],
  ['1 ms after the hour', 30 * MINUTE + 1],
  ['59 minutes later', 59 * MINUTE],
];

test.each(CLOCKS)('failures and overview equal the raw rows with the clock %s', async (_name, shift) => {
  const data = await seedEdges();
  const now = new Date(NOW.getTime() + shift);
  jest.setSystemTime(now);
  try {
    for (const timeframe of ['24h', '7d', '30d'] as const) {
      const res = await admin.client.get(`dashboard/failures?timeframe=${timeframe}`);
      expect(res.status).toBe(200);
      expect(answeredFailures(res.body)).toEqual(expectedFailures(data, now, timeframe));
    }
    const overview = (await admin.client.get('dashboard/overview')).body.dashboard;
    const week = expectedExecutionCounts(data.executions, since(now, 7 * DAY));
    expect(overview.health).toMatchObject({
      total_executions: week.total,
      completed: week.completed,
      failed: week.failed,
      processing: week.processing,
      avg_processing_time_ms: week.average,
    });
    const day = expectedFailures(data, now, '24h');
    expect(Object.fromEntries(overview.failures.by_source.filter((s: any) => s.error_count > 0).map((s: any) => [s.error_source, s.error_count]))).toEqual(
      day.sources,
    );
    expect(Object.fromEntries(overview.failures.by_pattern.map((p: any) => [p.error_pattern, [p.error_count, p.latest_occurrence]]))).toEqual(day.patterns);
    const hourly = overview.trends.hourly.map((h: any) => [h.hour, h.executions, h.completed, h.failed, h.processing]);
    const hours = overview.trends.hourly.map((h: any) => h.hour as string);
    expect(hourly).toEqual(
      hours.map((hour: string, i: number) => {
        const rows = data.executions.filter((e) => e.at >= hour && (i === hours.length - 1 || e.at < hours[i + 1]) && e.at.slice(0, 13) === hour.slice(0, 13));
        return [hour, rows.length, ...STATUSES.map((s) => rows.filter((e) => e.status === s).length)];
      }),
    );
    const summary = (await admin.client.get('dashboard/executions?limit=5')).body.executions.summary;
    const recent = expectedExecutionCounts(data.executions, since(now, DAY));
    expect(summary).toMatchObject({
      total: recent.total,
      completed: recent.completed,
      failed: recent.failed,
      processing: recent.processing,
      average_duration_ms: recent.average,
    });
  } finally {
    jest.setSystemTime(NOW);
  }
});

/** Every rollup row, in a stable order, with timestamps as ISO 8601. */
async function snapshot() {
  const out: Record<string, unknown[]> = {};
  for (const table of ROLLUP_TABLES) {
    const rows = (await db().selectFrom(table).selectAll().execute()) as Record<string, unknown>[];
    out[table] = rows
      .map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, k === 'latest' || k === 'last_submission_at' ? toIso(v as string) : v])))
      .filter((row) => row.executions !== 0)
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

const submission = (trackingId: string, companyName: string, now: string) => ({
  trackingId,
  companyName,
  industryId: '54',
  submission: {},
  requestedBy: 'user-1',
  plan: 'pro' as const,
  now,
});
const step = (number: number, name: string) => ({ number, name });

/** Claims an execution as a run does (attempt 1): a run completes only what it holds. */
async function claimed(trackingId: string) {
  expect(await claimExecution(orchestratorCtx(), (await findExecution(orchestratorCtx(), trackingId))!, new Date(), 300)).toBe(true);
  return { trackingId, attempt: 1 };
}

test('rebuilding the rollups from the raw rows gives what the incremental path kept', async () => {
  await seedEdges();
  // The workflow's own writes: submissions, completions, failures with their log rows, a delete.
  for (let i = 0; i < 12; i++) await submitExecution(orchestratorCtx(), submission(`wf_${i}`, `Workflow Co ${i % 3}`, ago(i * 17 * MINUTE)));
  const runs = [];
  for (let i = 0; i < 4; i++) runs.push(await claimed(`wf_${i}`));
  for (let i = 0; i < 4; i++) expect(await completeExecution(orchestratorCtx(), runs[i], ago(i * 17 * MINUTE), [], [])).toBe(true);
  for (let i = 4; i < 8; i++) {
    const failed = await failExecution(
      orchestratorCtx(),
      `wf_${i}`,
      { step: step(4, 'AI_ORCHESTRATION'), message: 'boom', classification: { pattern: 'AI_SERVICE', source: 'AI_SERVICE' } },
      [
        {
          tracking_id: `wf_${i}`,
          step_name: 'AI_ORCHESTRATION',
          step_number: 4,
          status: 'failed',
          error_pattern: 'AI_SERVICE',
          error_source: 'AI_SERVICE',
          timestamp: ago(i * MINUTE),
        },
      ],
    );
    expect(failed).toBe(true);
  }
  // A second completion of a finished execution changes nothing.
  expect(await completeExecution(orchestratorCtx(), runs[0], ago(0), [], [])).toBe(false);
  await deleteExecution(orchestratorCtx(), 'wf_11');
  await deleteExecution(orchestratorCtx(), 'wf_10');
  const incremental = await snapshot();
  expect(incremental.orchestrator_company_rollup.length).toBeGreaterThan(0);
  await rebuildRollups(db());
  expect(await snapshot()).toEqual(incremental);
});

test('profiles and the executions search answer from the company rollup as from the rows', async () => {
  for (let i = 0; i < 30; i++)
    await insertExecution({ createdAgo: (i % 9) * HOUR + i, company_name: `Firm ${i % 6} ${i % 2 ? 'Labs' : 'Foods'}`, processing_status: STATUSES[i % 3] });
  await deleteExecution(
    orchestratorCtx(),
    (await db().selectFrom('orchestrator_executions').select('tracking_id').orderBy('created_at', 'desc').executeTakeFirstOrThrow()).tracking_id,
  );
  const rows = await db().selectFrom('orchestrator_executions').select(['tracking_id', 'company_name', 'created_at', 'processing_status']).execute();
  const companies = [...countBy(rows, (r) => r.company_name)].map(([name, list]) => {
    const latest = [...list].sort((a, b) =>
      toIso(b.created_at)! > toIso(a.created_at)! ? 1 : toIso(b.created_at)! < toIso(a.created_at)! ? -1 : b.tracking_id > a.tracking_id ? 1 : -1,
    )[0];
    return {
      company_name: name,
      execution_count: list.length,
      last_submission_at: toIso(latest.created_at),
      latest_status: latest.processing_status,
      latest_tracking_id: latest.tracking_id,
    };
  });
  companies.sort((a, b) =>
    a.last_submission_at! < b.last_submission_at! ? 1 : a.last_submission_at! > b.last_submission_at! ? -1 : a.company_name < b.company_name ? -1 : 1,
  );
  const res = await admin.client.get('profiles?limit=100');
  expect(res.body.profiles.map(({ industry_id: _, ...p }: any) => p)).toEqual(companies);
  expect(res.body.pagination.total).toBe(companies.length);
  const failedLatest = (await admin.client.get('profiles?limit=2&page=2&status=failed&search=labs')).body;
  const expected = companies.filter((c) => c.latest_status === 'failed' && c.company_name.toLowerCase().includes('labs'));
  expect(failedLatest.pagination.total).toBe(expected.length);
  expect(failedLatest.profiles.map((p: any) => p.company_name)).toEqual(expected.slice(2, 4).map((c) => c.company_name));
  // One company (5 of 29 executions: read by company) and a common word (15: a walk newest first) give the same rows as a filter.
  for (const search of ['firm 1 labs', 'FOODS']) {
    const found = (await admin.client.get(`dashboard/executions?limit=5&search=${encodeURIComponent(search)}`)).body.executions.recent;
    const want = rows
      .filter((r) => r.company_name.toLowerCase().includes(search.toLowerCase()))
      .sort((a, b) =>
        toIso(b.created_at)! > toIso(a.created_at)! ? 1 : toIso(b.created_at)! < toIso(a.created_at)! ? -1 : b.tracking_id > a.tracking_id ? 1 : -1,
      )
      .map((r) => r.tracking_id)
      .slice(0, 5);
    expect(found.map((e: any) => e.tracking_id)).toEqual(want);
  }
});
