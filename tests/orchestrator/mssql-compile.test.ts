import { SETTINGS } from '../../functions/settings';
import { describeWithTsql, expectValidTsql, recordAzureSql } from '../helpers/tsql';
import { orchestratorCtx, withDatabase } from './helpers';

/**
 * The orchestrator's workflow statements (claim, progress with its log rows, completion, failure,
 * the stuck-execution sweep, the report quota) and the health probe, compiled for Azure SQL and
 * parsed by ScriptDom. The driver answers one processing execution to every query, except where the
 * path under test needs no row (the first report of a month finds no quota row to count on).
 */
const execution = {
  tracking_id: 'trk_1',
  company_name: 'Acme',
  industry_id: '54',
  processing_status: 'processing',
  progress_percentage: 10,
  attempts: 1,
  created_at: new Date(),
  started_at: new Date(),
  completed_at: null,
  updated_at: new Date(),
  submission: '{}',
  assets: null,
  reports: 1,
  ok: 1,
  count: 3,
};
let noQuotaRowYet = false;
/** The finished execution the notice is recorded for (notify/events.ts reads it back after the finish). */
const finished = { ...execution, processing_status: 'completed', requested_by: 'u1', plan: 'pro', error_pattern: null };
const { statements: compiled, db: recorded } = recordAzureSql((query) =>
  noQuotaRowYet && /^update "orchestrator_report_usage"/.test(query.sql) ? [] : /^select "requested_by"/.test(query.sql) ? [finished] : [execution],
);

// An orchestrator-only app (nothing is served: its settings are only read).
beforeAll(() => require('../../shared/config').useProcessSettings({ SERVICES: 'orchestrator', VISUAL_API_TOKEN: 'v'.repeat(40) }, { settings: SETTINGS }));
afterAll(() => require('../../shared/platform').setProcessPlatform(undefined));
beforeEach(() => {
  compiled.length = 0;
  noQuotaRowYet = false;
});

/** The orchestrator's context on the process's platform, its statements recorded. */
const ctx = () => withDatabase(orchestratorCtx(), recorded);
const workflow = () => require('../../functions/orchestrator/workflow/executions');
const quota = () => require('../../functions/orchestrator/report/quota');
const keys = () => require('../../functions/orchestrator/report/idempotency');
const claim = { userId: 'u1', key: 'key-12345678', hash: 'a'.repeat(64) };
const owner = { id: 'u1', email: 'u1@example.com', role: 'user', permissions: [], plan: 'free', planPeriodEnd: null };
const step = { number: 4, name: 'AI_ORCHESTRATION' };
/** The run that claimed attempt 1: every write of it carries the attempt. */
const lease = { trackingId: 'trk_1', attempt: 1 };
const logRow = { tracking_id: 'trk_1', step_name: 'AI_ORCHESTRATION', step_number: 4, status: 'completed' };
const classification = { pattern: 'AI_SERVICE', source: 'AI_SERVICE', retryable: false };

const paths: [string, string[], () => Promise<unknown>][] = [
  ['find an execution', ['select'], () => workflow().findExecution(ctx(), 'trk_1')],
  ['claim it', ['update'], async () => expect(await workflow().claimExecution(ctx(), execution, new Date(), 300)).toBe(true)],
  ['record progress with its log rows', ['insert', 'update'], () => workflow().recordProgress(ctx(), lease, step, 40, {}, [logRow])],
  ['check the run still holds it', ['select'], async () => expect(await workflow().holdsExecution(ctx(), lease)).toBe(true)],
  // Finishing also moves the rollups (the execution row is read, the hour's counts updated) and records the requester's notice.
  [
    'complete with the last log rows',
    ['insert', 'select', 'update', 'update', 'update', 'update', 'select', 'insert'],
    async () => expect(await workflow().completeExecution(ctx(), lease, new Date(), [], [logRow])).toBe(true),
  ],
  [
    'fail',
    ['select', 'insert', 'select', 'update', 'update', 'update', 'update', 'select', 'insert'],
    async () => expect(await workflow().failExecution(ctx(), 'trk_1', { step, message: 'AI down', classification }, [logRow], 1)).toBe(true),
  ],
  ['find stuck executions', ['select'], () => workflow().findStuckExecutions(ctx(), new Date(), 50)],
  ['count executions in processing', ['select'], async () => expect(await workflow().countProcessing(ctx())).toBe(3)],
  ['take a report of the quota', ['update', 'select'], () => quota().takeReportQuota(ctx(), { id: 'u1', plan: 'free', planPeriodEnd: null }, new Date())],
  [
    "take the month's first report",
    ['update', 'insert', 'select'],
    async () => {
      noQuotaRowYet = true;
      await quota().takeReportQuota(ctx(), { id: 'u1', plan: 'pro', planPeriodEnd: new Date(Date.now() + 86_400_000).toISOString() }, new Date());
    },
  ],
  ['give a report back', ['update'], () => quota().returnReportQuota(ctx(), { id: 'u1', plan: 'free', planPeriodEnd: null }, { limit: 3 }, new Date())],
  // Issue 51: the Idempotency-Key claimed (expired keys purged first), let go; a user's reports listed after a cursor, with the quota.
  ['claim an Idempotency-Key', ['delete', 'insert'], async () => expect(await keys().claimKey(ctx(), claim, 'trk_1', new Date())).toBeUndefined()],
  ['let an Idempotency-Key go', ['delete'], () => keys().releaseKey(ctx(), claim, 'trk_1')],
  ['wait for the report a key answers', ['select'], async () => expect(await keys().keyAnswered(ctx(), claim, 'trk_1')).toBe(true)],
  [
    "list a user's reports after a cursor, with the quota",
    ['select', 'select'],
    async () => {
      const cursor = require('../../functions/orchestrator/admin/search').encodeCursor('newest', [new Date().toISOString(), 'trk_9']);
      const page = await require('../../functions/orchestrator/report/my-reports').myReports(ctx(), owner, { status: 'processing', limit: 20, cursor });
      expect(page.reports).toHaveLength(1);
    },
  ],
  // On Azure SQL the probe goes through the pool (on SQLite it pings the connection alone).
  [
    'the health probe',
    ['select'],
    async () => {
      const { platform, config } = ctx();
      const azureSql = { db: recorded, platform, config: { ...config, SQL_SERVER: 'sql-test.database.windows.net' } };
      expect(await require('../../shared/health').checkSql(azureSql)).toMatchObject({ ok: true, detail: 'Azure SQL sql-test.database.windows.net' });
    },
  ],
];

describeWithTsql('orchestrator workflow statements for Azure SQL', (tsql) => {
  test.each(paths)('%s: every statement is valid T-SQL (ScriptDom), of the kinds expected', async (_name, kinds, run) => {
    await run();
    await expectValidTsql(tsql(), compiled, kinds);
  });
});
