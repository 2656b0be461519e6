import { Parser } from 'node-sql-parser';
import type { CompiledQuery, Kysely } from 'kysely';
import { inlineParameters, recordingMssql } from '../../shared/sql/tsql';

/**
 * Points `db()` at a Kysely that compiles for Azure SQL and records instead of executing, so a test
 * can run a service's repository code and check every statement it would send. Call before the code
 * under test is required. `placeholderRow` is answered to every query.
 */
export function recordAzureSql(placeholderRow: object): { statements: CompiledQuery[]; db: Kysely<any> } {
  const { db, statements } = recordingMssql([placeholderRow]);
  jest.doMock('../../shared/sql/db', () => ({ ...jest.requireActual('../../shared/sql/db'), db: () => db }));
  return { statements, db };
}

const parser = new Parser();

/** Each statement parses as T-SQL (parameters inlined: the parser refuses them in TOP and OFFSET) and never uses LIMIT. */
export function expectValidTsql(statements: CompiledQuery[]): void {
  expect(statements.length).toBeGreaterThan(0);
  for (const query of statements) {
    expect(query.sql).not.toMatch(/\blimit\b/i);
    expect(() => parser.astify(inlineParameters(query), { database: 'transactsql' })).not.toThrow();
  }
}

/** A payment-only app's settings for tests that only compile payment's statements (nothing is served or signed). */
export function usePaymentCompileSettings(): void {
  beforeAll(() => {
    require('../../shared/config').useProcessSettings({
      SERVICES: 'payment',
      AUTH_ADMIN_TOKEN: 'token-for-compiling',
      STRIPE_WEBHOOK_SECRET: 'whsec_compile_only_secret_0123',
    });
  });
  afterAll(() => {
    require('../../shared/platform').setProcessPlatform(undefined);
  });
}
