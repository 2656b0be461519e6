import type { ColumnType } from 'kysely';

/**
 * Timestamps: written as ISO 8601 strings, read as strings (SQLite) or Date (Azure SQL); normalise
 * with toIso. Each service declares its own tables in functions/<service>/db/tables.ts.
 */
export type Timestamp = ColumnType<string | Date, string | undefined, string>;
