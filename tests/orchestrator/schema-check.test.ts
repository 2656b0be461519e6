import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { PROJECT_ROOT } from '../../devhost/host';
import { sqliteFile } from '../../shared/sql/db';
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin } from '../helpers/identity';
import { sql } from '../../shared/sql/dialect';
import { expectError, expectErrorAnswer } from '../helpers/errors';
import { db } from './helpers';

type Check = {
  isWorkflowLoggerCompatible: boolean;
  missingColumns: string[];
  mismatchedColumns: { column: string; problem: string }[];
  recommendations: { issue: string; sql: string }[];
  migrationScript: string | null;
  tableExists: boolean;
};

describe('GET /orchestrator/health?schema=check and the legacy log table upgrade', () => {
  let host: TestHost;
  let adminToken: string;

  beforeAll(async () => {
    // Builds the legacy table in SQLite's dialect and applies the SQLite upgrade script, so it stays
    // on SQLite when the suites run against SQL Server (the T-SQL script is parsed in tests/platform/tsql).
    host = await startTestHost({ env: { SQL_SERVER: '' } });
    adminToken = (await signInAdmin(host)).accessToken;
  });
  afterAll(() => host.stop());

  const schemaCheck = async (token = adminToken) => {
    const response = await host.fetch('/orchestrator/health?schema=check', { headers: bearer(token) });
    return { status: response.status, body: (await response.json()) as Check };
  };

  it('plain health is public; the schema check needs an admin', async () => {
    const plain = await host.fetch('/orchestrator/health');
    expect(plain.status).toBe(200);
    expect(await plain.json()).toMatchObject({
      service: 'orchestrator',
      status: 'healthy',
      dependencies: { sql: { ok: true }, storage: { ok: true }, workflowLog: { ok: true } },
    });
    await expectErrorAnswer(await host.fetch('/orchestrator/health?schema=check'), 401, 'AUTH_REQUIRED');
    const user = await signIn(host, 'plain-user@example.com');
    expectError(await schemaCheck(user.accessToken), 403, 'ADMIN_REQUIRED');
    await expectErrorAnswer(await host.fetch('/orchestrator/health?schema=nope'), 400, 'VALIDATION_FAILED');
  });

  it('is compatible on a migrated database', async () => {
    const { status, body } = await schemaCheck();
    expect(status).toBe(200);
    expect(body).toMatchObject({
      isWorkflowLoggerCompatible: true,
      tableExists: true,
      missingColumns: [],
      mismatchedColumns: [],
      recommendations: [],
      migrationScript: null,
    });
  });

  it('flags a legacy table, and the sql/upgrade script turns the flag true, keeping the rows', async () => {
    await db().schema.dropTable('orchestrator_processing_log').execute();
    await sql`create table orchestrator_processing_log (
      id integer primary key autoincrement,
      tracking_id text not null,
      processing_step text not null,
      status text not null,
      error_message text,
      metadata text,
      timestamp text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    )`.execute(db());
    await sql`insert into orchestrator_processing_log (tracking_id, processing_step, status) values ('legacy-1', 'AI_ORCHESTRATION', 'completed')`.execute(
      db(),
    );

    const before = await schemaCheck();
    expect(before.body.isWorkflowLoggerCompatible).toBe(false);
    expect(before.body.missingColumns.sort()).toEqual(
      ['duration_ms', 'error_details', 'error_pattern', 'error_source', 'step_name', 'step_number', 'tokens_used'].sort(),
    );
    expect(before.body.mismatchedColumns).toEqual([expect.objectContaining({ column: 'processing_step', problem: 'blocking_legacy_column' })]);
    expect(before.body.recommendations).toContainEqual({ issue: 'add step_name', sql: 'ALTER TABLE orchestrator_processing_log ADD COLUMN step_name text;' });
    expect(before.body.migrationScript).toBe('sql/upgrade/legacy-processing-log.sqlite.sql');

    const script = fs.readFileSync(path.join(PROJECT_ROOT, before.body.migrationScript!), 'utf8');
    const connection = new Database(sqliteFile());
    try {
      connection.exec(script);
    } finally {
      connection.close();
    }

    const after = await schemaCheck();
    expect(after.body).toMatchObject({ isWorkflowLoggerCompatible: true, missingColumns: [], mismatchedColumns: [] });
    const rows = await db().selectFrom('orchestrator_processing_log').select(['tracking_id', 'step_name', 'status']).execute();
    expect(rows).toEqual([{ tracking_id: 'legacy-1', step_name: 'AI_ORCHESTRATION', status: 'completed' }]);
  });

  it('the T-SQL upgrade covers every column the logger needs', () => {
    const tsql = fs.readFileSync(path.join(PROJECT_ROOT, 'sql/upgrade/legacy-processing-log.sql'), 'utf8');
    for (const column of [
      'step_name',
      'step_number',
      'duration_ms',
      'tokens_used',
      'error_message',
      'metadata',
      'error_pattern',
      'error_source',
      'error_details',
    ]) {
      expect(tsql).toMatch(new RegExp(`ADD \\[${column}\\]`));
    }
    expect(tsql).toMatch(/ALTER COLUMN \[processing_step\] nvarchar\(100\) NULL/);
  });
});
