import { toIso } from '../../../shared/sql/dialect';
import { hourOf } from '../db/rollups';
import { HOUR_MS } from '../admin/time-windows';

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
