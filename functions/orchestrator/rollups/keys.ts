import { sql, type RawBuilder } from 'kysely';
import type { AnyKysely } from '../../../shared/sql/dialect';
import { toIso } from '../../../shared/sql/dialect';
import { HOUR_MS, bucketKey } from '../admin/time-windows';

/**
 * How rollup rows are keyed, written once for the SQL that fills them from raw rows and the code
 * that keeps them as rows change, so both paths give the same key for the same row.
 */

/** The hour of a timestamp column in SQL: its ISO 8601 prefix `2026-11-22T04`. */
export const hourOfColumn = (db: AnyKysely, column: string) => bucketKey(db, column, 'hour');

/**
 * The hour of a timestamp value as the database will store it: the prefix of the ISO text
 * (SQLite keeps the text as written; Azure SQL converts it to datetime2 and back to the same prefix).
 */
export const hourOf = (value: string | Date) => (typeof value === 'string' ? value : value.toISOString()).slice(0, 13);

/** A failed step's key: its number (empty when null), a colon, then `-` for no name or `=` and the name. */
export function stepKeyOfColumns(): RawBuilder<string> {
  return sql<string>`concat(${sql.ref('step_number')}, ':', case when ${sql.ref('step_name')} is null then '-' else concat('=', ${sql.ref('step_name')}) end)`;
}

export const stepKey = (stepNumber: number | null | undefined, stepName: string | null | undefined) =>
  `${stepNumber ?? ''}:${stepName === null || stepName === undefined ? '-' : `=${stepName}`}`;

/**
 * A window `[since, ...)` as the rollups read it: whole hours from `fromHour` on come from the
 * rollups; the part of the first hour at or after `since` and before `partialEnd` (the next hour
 * start, or `since` itself when it is one) comes from the raw rows over their time index.
 */
export function splitWindow(since: string): { partialEnd: string; fromHour: string } {
  const ms = Date.parse(since);
  const partialEnd = new Date(Math.ceil(ms / HOUR_MS) * HOUR_MS).toISOString();
  return { partialEnd, fromHour: hourOf(partialEnd) };
}

/** The later of two timestamps as ISO 8601 (either may be missing). */
export function later(a: string | Date | null | undefined, b: string | Date | null | undefined): string | null {
  const x = toIso(a);
  const y = toIso(b);
  if (x === null) return y;
  if (y === null) return x;
  return x > y ? x : y;
}
