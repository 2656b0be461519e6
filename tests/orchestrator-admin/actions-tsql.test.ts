import { SETTINGS } from '../../functions/settings';
import { describeWithTsql, expectValidTsql, recordAzureSql } from '../helpers/tsql';
import { orchestratorCtx } from '../orchestrator/helpers';

/**
 * The administrators' actions (retry, re-run, cancel, bulk retry), their audit and the execution
 * finder, compiled for Azure SQL and parsed as T-SQL. Every query is answered one failed execution
 * (so each action goes the whole way: reopen, audit, the new execution of a re-run); the queue is
 * replaced by a stub, since no message is sent when nothing runs.
 */
const failedRow = {
  tracking_id: 'trk_1',
  company_name: 'Acme',
  industry_id: '54',
  processing_status: 'failed',
  health_status: 'CANCELLED',
  progress_percentage: 40,
  attempts: 1,
  plan: 'pro',
  requested_by: 'user-1',
  duration_ms: 1200,
  created_at: new Date(),
  started_at: new Date(),
  completed_at: new Date(),
  updated_at: new Date(),
  submission: '{"company_name":"Acme","industry_id":"54","profile":{}}',
  current_step: 4,
  current_step_name: 'AI_ORCHESTRATION',
  n: 1,
  id: 1,
  action: 'execution.retry',
  actor_id: 'admin-1',
  actor_email: 'admin@example.com',
  result: 'success',
  details: null,
  related_tracking_id: null,
};
const { statements: compiled, db: recorded } = recordAzureSql(failedRow);

const admin = { id: 'admin-1', email: 'admin@example.com', role: 'super_admin', permissions: [], plan: 'free', status: 'active', sessionId: 's' };
const meta = { ip: '127.0.0.1', userAgent: 'test', requestId: 'req-1' };
const log = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

beforeAll(() => {
  require('../../shared/config').useProcessSettings({ SERVICES: 'orchestrator' }, { settings: SETTINGS });
});
afterAll(() => require('../../shared/platform').setProcessPlatform(undefined));
beforeEach(() => {
  compiled.length = 0;
});

/** The orchestrator's context on the process's platform: its statements recorded, its queue a stub (no message goes anywhere). */
const ctx = () =>
  Object.defineProperties(orchestratorCtx(), { db: { value: recorded }, log: { value: log }, storage: { value: { enqueueJson: async () => undefined } } });
const actions = () => require('../../functions/orchestrator/admin/actions');
const search = (query: object) =>
  require('../../functions/orchestrator/admin/search').searchExecutions(ctx(), { status: 'all', sort: 'newest', limit: 25, ...query }, new Date());

/** A cursor as the finder writes it, for each sort's keys. */
const cursor = (sort: string, keys: (string | number)[]) => Buffer.from(JSON.stringify({ s: sort, k: keys })).toString('base64url');

/** Each run, the statement kinds it must compile in order (a path that stopped early fails), and how to run it. */
const runs: [string, string[], () => Promise<unknown>][] = [
  ['retry', ['select', 'select', 'update', 'update', 'update', 'update', 'insert'], () => actions().retryExecution(ctx(), admin, 'trk_1', meta)],
  [
    're-run with an Idempotency-Key',
    ['select', 'select', 'insert', 'update', 'update', 'insert'],
    () => actions().rerunExecution(ctx(), admin, 'trk_1', 'key-1', meta),
  ],
  ['cancel (already cancelled)', ['select', 'select'], () => actions().cancelExecution(ctx(), admin, 'trk_1', meta)],
  [
    "the owner's cancel (already cancelled): ownership, then the administrators' cancel",
    ['select', 'select', 'select'],
    () => require('../../functions/orchestrator/report/owner-cancel').cancelOwnReport(ctx(), { ...admin, id: 'user-1', role: 'user' }, 'trk_1', meta),
  ],
  [
    // The cancel also records the requester's notice (report.failed): its execution read back, the notice inserted.
    'cancel of a processing execution',
    ['select', 'select', 'update', 'update', 'update', 'update', 'select', 'insert', 'insert'],
    async () => {
      await require('../../functions/orchestrator/workflow/executions').cancelProcessing(recorded, 'trk_1', 'admin@example.com', new Date());
    },
  ],
  [
    'a retry undone when the queue refuses',
    ['select', 'update', 'update', 'update', 'update', 'select', 'update', 'update', 'update', 'update'],
    async () => {
      const executions = require('../../functions/orchestrator/workflow/executions');
      const facts = await executions.reopenExecution(recorded, 'trk_1', new Date());
      await executions.restoreFailed(recorded, 'trk_1', facts, new Date());
    },
  ],
  [
    'bulk retry',
    ['select', 'select', 'select', 'update', 'update', 'update', 'update', 'insert', 'select', 'insert'],
    () => actions().retryFailed(ctx(), admin, { from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z', limit: 10, dryRun: false }, meta),
  ],
  [
    'bulk retry, dry run',
    ['select'],
    () => actions().retryFailed(ctx(), admin, { from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z', limit: 10, dryRun: true }, meta),
  ],
  ['the actions naming an execution', ['select'], () => actions().actionsFor(ctx(), 'trk_1')],
  [
    'finder: every filter',
    ['select'],
    () =>
      search({
        tracking_id: 'rpt_1-',
        company: "o'neil 100%",
        requested_by: 'u1,u2',
        status: 'failed',
        error: 'AI_SERVICE',
        from: '2026-11-01T00:00:00Z',
        to: '2026-11-02T00:00:00Z',
      }),
  ],
  ['finder: newest, next page', ['select'], () => search({ sort: 'newest', cursor: cursor('newest', ['2026-11-01T00:00:00.000Z', 'trk_9']) })],
  ['finder: oldest, next page', ['select'], () => search({ sort: 'oldest', cursor: cursor('oldest', ['2026-11-01T00:00:00.000Z', 'trk_9']) })],
  ['finder: longest, next page', ['select'], () => search({ sort: 'longest', cursor: cursor('longest', [1200, 'trk_9']) })],
  ['finder: company, next page', ['select'], () => search({ sort: 'company', cursor: cursor('company', ['Acme', '2026-11-01T00:00:00.000Z', 'trk_9']) })],
];

describeWithTsql('the actions and the finder on Azure SQL', (tsql) => {
  test.each(runs)('%s: every query is valid T-SQL, pages with TOP, never LIMIT', async (_name, kinds, run) => {
    await run();
    await expectValidTsql(tsql(), compiled, kinds);
    for (const query of compiled) expect(query.sql).not.toMatch(/\blimit\b/i);
  });
});

test('a tracking id prefix is a LIKE with `_` as the set [_] on Azure SQL (its collations may sort `-` by word rules)', async () => {
  await search({ tracking_id: 'rpt_1-' });
  const query = compiled.find((q) => q.sql.includes('"tracking_id" like'))!;
  expect(query.sql).toMatch(/"tracking_id" like @\d+/);
  expect(query.parameters).toContain('rpt[_]1-%');
});
