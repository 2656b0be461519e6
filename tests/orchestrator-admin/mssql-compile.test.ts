import { DummyDriver, Kysely, MssqlAdapter, MssqlIntrospector, MssqlQueryCompiler, type CompiledQuery, type DatabaseConnection, type Driver } from 'kysely';
import { Parser } from 'node-sql-parser';

/**
 * Every admin query compiled for Azure SQL and parsed as T-SQL. The driver records each compiled
 * query and answers one placeholder row, enough for the domain code to go on to its next query.
 */
const compiled: CompiledQuery[] = [];
const placeholderRow = {
  tracking_id: 'trk_1', company_name: 'Acme', industry_id: '54', processing_status: 'processing', progress_percentage: 10, attempts: 1,
  created_at: new Date(), started_at: new Date(), completed_at: null, updated_at: new Date(), submission: '{}', assets: null,
  count: 0, total: 1, value: 'AI_SERVICE', latest: new Date(), hour: '2026-01-01T00', bucket: '2026-01-01',
};
class RecordingDriver extends DummyDriver implements Driver {
  async acquireConnection(): Promise<DatabaseConnection> {
    return {
      executeQuery: async (query: CompiledQuery) => {
        compiled.push(query);
        return { rows: [placeholderRow] as any };
      },
      streamQuery: () => {
        throw new Error('not used');
      },
    };
  }
}
const azureSql = new Kysely<any>({
  dialect: {
    createAdapter: () => new MssqlAdapter(),
    createDriver: () => new RecordingDriver(),
    createIntrospector: (db) => new MssqlIntrospector(db),
    createQueryCompiler: () => new MssqlQueryCompiler(),
  },
});
jest.doMock('../../shared/sql/db', () => ({ db: () => azureSql }));

/** node-sql-parser does not take parameters inside TOP or OFFSET/FETCH: put literals in their place. */
function withLiterals(query: CompiledQuery): string {
  return query.sql.replace(/@(\d+)/g, (_, n) => {
    const value = query.parameters[Number(n) - 1];
    return typeof value === 'number' ? String(value) : `N'${String(value).replace(/'/g, "''")}'`;
  });
}

beforeEach(() => {
  compiled.length = 0;
});

const routes: [string, () => Promise<unknown>][] = [
  ['overview', () => require('../../functions/orchestrator/admin/overview').dashboardOverview(new Date())],
  ['failures 24h', () => require('../../functions/orchestrator/admin/failures').failureAnalysis(new Date(), '24h')],
  ['failures 30d', () => require('../../functions/orchestrator/admin/failures').failureAnalysis(new Date(), '30d')],
  ['executions', () => require('../../functions/orchestrator/admin/executions').executionsMonitor(new Date(), 100, 'failed')],
  ['status', () => require('../../functions/orchestrator/admin/status').executionStatus('trk_1', new Date())],
  ['profiles', () => require('../../functions/orchestrator/admin/profiles').clientProfiles({ page: 2, limit: 20, status: 'failed', search: "o'neil 100%" })],
];

test.each(routes)('%s: every query is valid T-SQL, pages with TOP or OFFSET/FETCH, never LIMIT', async (_name, run) => {
  await run();
  expect(compiled.length).toBeGreaterThan(0);
  const parser = new Parser();
  for (const query of compiled) {
    expect(query.sql).not.toMatch(/\blimit\b/i);
    expect(query.sql).not.toMatch(/\bsubstr\(/i);
    expect(() => parser.astify(withLiterals(query), { database: 'transactsql' })).not.toThrow();
  }
});

test('hour buckets use the ISO 8601 style of convert on Azure SQL', async () => {
  await routes[0][1]();
  expect(compiled.some((q) => q.sql.includes('convert(char(13), "created_at", 126)'))).toBe(true);
});
