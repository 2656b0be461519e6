import { describeWithTsql, expectValidTsql, recordAzureSql } from '../helpers/tsql';

/**
 * Every admin query compiled for Azure SQL and parsed as T-SQL. The driver records each compiled
 * query and answers one placeholder row, enough for the domain code to go on to its next query.
 */
const placeholderRow = {
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
  plan: 'pro',
  assets: null,
  count: 0,
  total: 1,
  value: 'AI_SERVICE',
  latest: new Date(),
  hour: '2026-01-01T00',
  bucket: '2026-01-01',
};
const { statements: compiled, db } = recordAzureSql(placeholderRow);
/** What the admin reads are handed: the recording database (and a report store, which signs no link for an execution without files). */
const ctx = { db, reports: { container: 'reports', store: async () => undefined, downloadLinks: async () => [] } };

beforeEach(() => {
  compiled.length = 0;
});

const routes: [string, string[], () => Promise<unknown>][] = [
  [
    'overview',
    ['select', 'select', 'select', 'select', 'select', 'select', 'select', 'select', 'select', 'select'],
    () => require('../../functions/orchestrator/admin/overview').dashboardOverview(ctx, new Date()),
  ],
  [
    'failures 24h',
    ['select', 'select', 'select', 'select', 'select', 'select', 'select', 'select', 'select', 'select', 'select'],
    () => require('../../functions/orchestrator/admin/failures').failureAnalysis(ctx, new Date(), '24h'),
  ],
  [
    'failures 30d',
    ['select', 'select', 'select', 'select', 'select', 'select', 'select', 'select', 'select', 'select', 'select'],
    () => require('../../functions/orchestrator/admin/failures').failureAnalysis(ctx, new Date(), '30d'),
  ],
  [
    'executions',
    ['select', 'select', 'select', 'select', 'select'],
    () => require('../../functions/orchestrator/admin/executions').executionsMonitor(ctx, new Date(), { limit: 100, status: 'failed' }),
  ],
  ['status', ['select', 'select', 'select'], () => require('../../functions/orchestrator/admin/status').executionStatus(ctx, 'trk_1', new Date())],
  [
    'profiles',
    ['select', 'select'],
    () => require('../../functions/orchestrator/admin/profiles').clientProfiles(ctx, { page: 2, limit: 20, status: 'failed', search: "o'neil 100%" }),
  ],
  [
    'executions search',
    ['select', 'select', 'select', 'select', 'select', 'select'],
    () => require('../../functions/orchestrator/admin/executions').executionsMonitor(ctx, new Date(), { limit: 100, status: 'all', search: 'acme' }),
  ],
  [
    'rollups rebuild',
    ['delete', 'delete', 'delete', 'insert', 'insert', 'insert', 'insert', 'insert', 'update'],
    () => require('../../functions/orchestrator/rollups/rebuild').rebuildRollups(db),
  ],
  [
    'rollups kept by the workflow',
    ['insert', 'update', 'update', 'update', 'insert', 'update', 'update', 'update', 'select', 'delete', 'update', 'select', 'update'],
    () => keepRollups(),
  ],
];

/** The writes that move the rollups: a submission, a status change, log rows, a delete (completion and failure add only these). */
async function keepRollups() {
  const executions = require('../../functions/orchestrator/workflow/executions');
  const write = require('../../functions/orchestrator/rollups/write');
  const database = db;
  await executions.insertExecution(ctx, {
    trackingId: 'trk_1',
    companyName: 'Acme',
    industryId: '54',
    submission: {},
    requestedBy: 'u',
    plan: 'pro',
    now: new Date().toISOString(),
  });
  await write.countExecution(database, { tracking_id: 'trk_1', created_at: new Date(), processing_status: 'completed', duration_ms: 1200 }, -1);
  const row = {
    tracking_id: 'trk_1',
    step_name: 'AI_ORCHESTRATION',
    step_number: 4,
    status: 'failed',
    error_pattern: 'AI_SERVICE',
    error_source: 'AI_SERVICE',
  };
  await require('../../functions/orchestrator/workflow/log-rows').insertLogRows(database, [row], new Date());
  await executions.deleteExecution(ctx, 'trk_1');
}

describeWithTsql('orchestrator admin statements for Azure SQL', (tsql) => {
  test.each(routes)('%s: every statement is valid T-SQL (ScriptDom), of the kinds expected', async (_name, kinds, run) => {
    await run();
    await expectValidTsql(tsql(), compiled, kinds);
    // SQLite's substr has no T-SQL twin under that name; ScriptDom parses it as a user function.
    for (const query of compiled) expect(query.sql).not.toMatch(/\bsubstr\(/i);
  });
});

test('hour buckets use the ISO 8601 style of convert on Azure SQL', async () => {
  await routes.find(([name]) => name === 'rollups rebuild')![2]();
  expect(compiled.some((q) => q.sql.includes('convert(char(13), "created_at", 126)'))).toBe(true);
  expect(compiled.some((q) => q.sql.includes('convert(char(13), "timestamp", 126)'))).toBe(true);
});
