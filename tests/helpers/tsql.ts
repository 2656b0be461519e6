import { SETTINGS } from '../../functions/settings';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import readline from 'node:readline';
import type { CompiledQuery, Kysely } from 'kysely';
import { recordingMssql } from '../../shared/sql/tsql';
import { describeWithTool } from './tools';

/**
 * Points `db()` at a Kysely that compiles for Azure SQL and records instead of executing, so a test
 * can run a service's repository code and check every statement it would send. Call before the code
 * under test is required. `answer` is a placeholder row answered to every query, or a function
 * choosing the rows of each query (to lead the code down the path under test).
 */
export function recordAzureSql(answer: object | ((query: CompiledQuery) => object[])): { statements: CompiledQuery[]; db: Kysely<any> } {
  const { db, statements } = recordingMssql(typeof answer === 'function' ? (answer as (query: CompiledQuery) => object[]) : [answer]);
  jest.doMock('../../shared/sql/db', () => ({ ...jest.requireActual('../../shared/sql/db'), db: () => db }));
  return { statements, db };
}

export interface TsqlParse {
  errors: { line: number; column: number; number: number; message: string }[];
  batches: number;
  /** ScriptDom's class of each statement found: SelectStatement, InsertStatement... */
  statements: string[];
}

/**
 * ScriptDom (tools/tsql-check, built by npm run test:tools) as one long-running process that parses
 * each text it is sent at the SQL Server 2022 / Azure SQL level, with QUOTED_IDENTIFIER ON as
 * tedious connections run. Answers come back in the order asked.
 */
export class TsqlChecker {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: { resolve: (parse: TsqlParse) => void; reject: (error: Error) => void }[] = [];
  private exited?: Error;

  constructor(paths: Record<string, string>) {
    this.child = spawn(paths.dotnet, [paths.dll, '--stdin'], { stdio: 'pipe' });
    let stderr = '';
    this.child.stderr.on('data', (chunk) => (stderr += chunk));
    readline.createInterface({ input: this.child.stdout }).on('line', (line) => {
      const answer = JSON.parse(line) as TsqlParse & { request_error?: string };
      const waiting = this.pending.shift();
      if (answer.request_error) waiting?.reject(new Error(`tsql-check refused the request: ${answer.request_error}`));
      else waiting?.resolve(answer);
    });
    this.child.on('exit', (code) => {
      this.exited = new Error(`tsql-check exited (${code}): ${stderr.trim()}`);
      for (const waiting of this.pending.splice(0)) waiting.reject(this.exited);
    });
  }

  parse(sql: string): Promise<TsqlParse> {
    if (this.exited) return Promise.reject(this.exited);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ sql })}\n`);
    });
  }

  close(): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.stdin.end();
    });
  }
}

/**
 * A describe block with a ScriptDom checker, closed after its tests. Without the checker (no .NET on
 * this machine) the block skips saying how to get it; CI (REQUIRE_TEST_TOOLS=1) fails instead.
 */
export function describeWithTsql(title: string, body: (tsql: () => TsqlChecker) => void): void {
  describeWithTool('tsql-check', title, (paths) => {
    let checker: TsqlChecker | undefined;
    const tsql = () => (checker ??= new TsqlChecker(paths));
    afterAll(() => checker?.close());
    body(tsql);
  });
}

/** ScriptDom's statement class as a short kind: SelectStatement -> select, CreateTableStatement -> createTable. */
export const statementKind = (className: string) => className.replace(/Statement$/, '').replace(/^./, (c) => c.toLowerCase());

/**
 * Each compiled statement, exactly as tedious sends it (parameters as @1, @2...), parses without
 * error as one T-SQL statement, and the statements are of the `expected` kinds in that order
 * (select, insert, update, delete, merge...): a path that stopped early, or compiled something else,
 * fails instead of having only what it reached checked.
 */
export async function expectValidTsql(tsql: TsqlChecker, statements: CompiledQuery[], expected: string[]): Promise<void> {
  const found: string[] = [];
  for (const query of statements) {
    const parsed = await tsql.parse(query.sql);
    expect({ sql: query.sql, errors: parsed.errors, statements: parsed.statements.length }).toEqual({ sql: query.sql, errors: [], statements: 1 });
    found.push(statementKind(parsed.statements[0]));
  }
  expect(found).toEqual(expected);
}

/** A payment-only app's settings for tests that only compile payment's statements (nothing is served or signed). */
export function usePaymentCompileSettings(): void {
  beforeAll(() => {
    require('../../shared/config').useProcessSettings(
      {
        SERVICES: 'payment',
        AUTH_ADMIN_TOKEN: 'token-for-compiling',
        STRIPE_WEBHOOK_SECRET: 'whsec_compile_only_secret_0123',
      },
      { settings: SETTINGS },
    );
  });
  afterAll(() => {
    require('../../shared/platform').setProcessPlatform(undefined);
  });
}
