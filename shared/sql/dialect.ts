import type { ColumnDefinitionBuilder, Kysely, RawBuilder, SelectQueryBuilder } from 'kysely';
import { vendored } from '../vendor';

const { MssqlAdapter, sql } = vendored('kysely');
/** Kysely's `sql` template tag, from the one copy of Kysely the platform loads (shared/vendor.ts). */
export { sql };

/**
 * A handle whose schema type is not fixed: migrations run against the schema as it was when they were
 * written, and these helpers serve every service's tables. `Kysely<any>` is Kysely's own idiom for it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyKysely = Kysely<any>;

/** The two dialects one migration history and one set of repositories serve. */
export function isMssql(db: AnyKysely): boolean {
  return db.getExecutor().adapter instanceof MssqlAdapter;
}

/** Column types that differ between SQLite and Azure SQL. Timestamps are ISO 8601 UTC text in SQLite and datetime2 in Azure SQL. */
export function columnTypes(db: AnyKysely) {
  const mssql = isMssql(db);
  return {
    /** Unbounded text (not indexable in Azure SQL). */
    text: mssql ? sql`nvarchar(max)` : sql`text`,
    /** Bounded text for indexed or keyed columns. */
    varchar: (length: number) => (mssql ? sql.raw(`nvarchar(${length})`) : sql`text`),
    timestamp: mssql ? sql`datetime2` : sql`text`,
    boolean: mssql ? sql`bit` : sql`integer`,
    /** The current UTC time as a column default. */
    now: (mssql ? sql`sysutcdatetime()` : sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`) as RawBuilder<unknown>,
    /** An auto-increment integer primary key. */
    serialKey: (col: ColumnDefinitionBuilder) => (mssql ? col.identity().primaryKey() : col.primaryKey().autoIncrement()),
  };
}

/**
 * Paging that compiles on both dialects: Azure SQL rejects LIMIT and needs ORDER BY with
 * OFFSET ... FETCH, which SQLite does not have. The query must already be ordered.
 */
export function page<DB, TB extends keyof DB, O>(
  db: AnyKysely,
  query: SelectQueryBuilder<DB, TB, O>,
  limit: number,
  offset = 0,
): SelectQueryBuilder<DB, TB, O> {
  return isMssql(db) ? query.offset(offset).fetch(limit) : query.limit(limit).offset(offset);
}

/**
 * The first `n` rows of an ordered query on either dialect. The count is written into the SQL, not
 * bound: SQLite plans `LIMIT 1` to stop at the first row in index order, but not `LIMIT ?`
 * (2.5 times slower on the plan-deciding payment read).
 */
export function first<DB, TB extends keyof DB, O>(db: AnyKysely, query: SelectQueryBuilder<DB, TB, O>, n: number): SelectQueryBuilder<DB, TB, O> {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`first: ${n} is not a row count`);
  return isMssql(db) ? query.top(n) : query.limit(sql.lit(n));
}

/** An explicit UTC designator or offset at the end of an ISO 8601 timestamp (Z, +02:00, -0500). */
const HAS_OFFSET = /[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/**
 * Timestamps come back as strings from SQLite and as Date from tedious; callers get ISO 8601 UTC
 * either way. A string without an offset was written as UTC.
 */
export function toIso(value: string | Date | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value.toISOString() : new Date(HAS_OFFSET.test(value) ? value : `${value}Z`).toISOString();
}

/** A CHECK constraint that keeps a column within a fixed set of values. */
export function checkIn(column: string, values: readonly string[]) {
  return sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;
}

/** A primary-key or unique violation on either dialect (SQLite constraint error, SQL Server 2627/2601). */
export function isDuplicateKey(error: unknown): boolean {
  const e = error as { code?: string; number?: number };
  return e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.number === 2627 || e?.number === 2601;
}

/**
 * The first `length` characters of a timestamp column as ISO 8601 text (`2026-11-22T04` for 13).
 * SQLite stores ISO text, so it is a substring; Azure SQL stores datetime2, and style 126 formats
 * it as ISO 8601, cut to the same length.
 */
export function isoPrefix(db: AnyKysely, column: string, length: number): RawBuilder<string> {
  return isMssql(db) ? sql<string>`convert(char(${sql.lit(length)}), ${sql.ref(column)}, 126)` : sql<string>`substr(${sql.ref(column)}, 1, ${sql.lit(length)})`;
}

/**
 * `column` holds `needle` anywhere: a position search (charindex, instr), so `%`, `_` and `[` stay
 * plain characters on both dialects, where LIKE would read them as patterns.
 */
export function contains(db: AnyKysely, column: RawBuilder<unknown> | string, needle: string): RawBuilder<boolean> {
  const haystack = typeof column === 'string' ? sql.ref(column) : column;
  return isMssql(db) ? sql<boolean>`charindex(${needle}, ${haystack}) > 0` : sql<boolean>`instr(${haystack}, ${needle}) > 0`;
}

/** `column` holds `text` anywhere, ignoring case (both sides lower-cased). */
export function containsIgnoringCase(db: AnyKysely, column: string, text: string): RawBuilder<boolean> {
  return contains(db, sql`lower(${sql.ref(column)})`, text.toLowerCase());
}
