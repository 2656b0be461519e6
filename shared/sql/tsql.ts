import type { CompiledQuery, DatabaseConnection, Driver, Migration, QueryResult } from 'kysely';
import type { AnyKysely } from './dialect';
import { vendored } from '../vendor';

const { Kysely, MssqlAdapter, MssqlIntrospector, MssqlQueryCompiler } = vendored('kysely');

/** What a recorded query answers: the same rows to every query, or rows chosen for each query. */
export type RecordedAnswer = unknown[] | ((query: CompiledQuery) => unknown[]);

/**
 * A driver that runs nothing and records each statement Kysely would send to Azure SQL. Every
 * query answers `rows` (placeholder rows let domain code go on to its next statement).
 */
class RecordingDriver implements Driver {
  readonly statements: CompiledQuery[] = [];
  constructor(private readonly rows: RecordedAnswer) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    const { statements, rows } = this;
    return {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        statements.push(query);
        const answer = typeof rows === 'function' ? rows(query) : rows;
        return { rows: answer as R[], numAffectedRows: BigInt(answer.length) };
      },
      // eslint-disable-next-line require-yield
      async *streamQuery() {
        throw new Error('streaming is not recorded');
      },
    };
  }
  async beginTransaction(): Promise<void> {}
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

/** A Kysely instance that compiles for Azure SQL and records instead of executing. */
export function recordingMssql(rows: RecordedAnswer = []): { db: AnyKysely; statements: CompiledQuery[] } {
  const driver = new RecordingDriver(rows);
  const db = new Kysely<Record<string, never>>({
    dialect: {
      createAdapter: () => new MssqlAdapter(),
      createDriver: () => driver,
      createIntrospector: (k) => new MssqlIntrospector(k),
      createQueryCompiler: () => new MssqlQueryCompiler(),
    },
  });
  return { db, statements: driver.statements };
}

// Kysely quotes identifiers with double quotes, which T-SQL reads as identifiers only with QUOTED_IDENTIFIER ON (sqlcmd needs it said).
const HEADER = (name: string) =>
  `-- Generated from shared/sql/migrations/${name}.ts by \`npm run sql:generate\`. Do not edit by hand.\n\nSET QUOTED_IDENTIFIER ON;\nGO\n\n`;

/** A T-SQL literal for a bound value, so seed rows in a migration read as plain statements in sql/. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (value instanceof Date) return `N'${value.toISOString()}'`;
  if (typeof value === 'string') return `N'${value.replace(/'/g, "''")}'`;
  throw new Error(`cannot write ${typeof value} as a T-SQL literal`);
}

export function inlineParameters(query: CompiledQuery): string {
  return query.sql.replace(/@(\d+)/g, (_, n: string) => literal(query.parameters[Number(n) - 1]));
}

/** The T-SQL of each migration of `migrations` (the history of functions/migrations.ts), as `sql/<name>.sql` holds it. */
export async function migrationsAsTsql(migrations: Record<string, Migration>): Promise<{ name: string; sql: string }[]> {
  const out: { name: string; sql: string }[] = [];
  for (const [name, migration] of Object.entries(migrations)) {
    const { db, statements } = recordingMssql();
    await migration.up(db);
    const body = statements.map((s) => `${inlineParameters(s)};\nGO`);
    out.push({ name, sql: `${HEADER(name)}${body.join('\n\n')}\n` });
  }
  return out;
}
