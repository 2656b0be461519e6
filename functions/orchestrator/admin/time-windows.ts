import type { RawBuilder } from 'kysely';
import { type AnyKysely, isoPrefix } from '../../../shared/sql/dialect';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** An execution processing for more than 10 minutes is long-running. */
export const LONG_RUNNING_MS = 10 * MINUTE_MS;
/** The overview's success rate covers the last 7 days. */
export const SUCCESS_RATE_WINDOW_MS = 7 * DAY_MS;
/** "Recent" for alerts, the overview's error-source analysis and the executions summary. */
export const RECENT_WINDOW_MS = DAY_MS;

export type BucketUnit = 'hour' | 'day';

export const TIMEFRAMES = {
  '24h': { ms: DAY_MS, unit: 'hour' },
  '7d': { ms: 7 * DAY_MS, unit: 'day' },
  '30d': { ms: 30 * DAY_MS, unit: 'day' },
} as const satisfies Record<string, { ms: number; unit: BucketUnit }>;
export type Timeframe = keyof typeof TIMEFRAMES;

/** Window bounds are computed here and passed as ISO 8601 parameters, so no query needs dialect date arithmetic. */
export const isoBefore = (now: Date, ms: number) => new Date(now.getTime() - ms).toISOString();

/** Length of the ISO 8601 prefix naming a bucket: `2026-11-22T04` (hour) or `2026-11-22` (day). */
const KEY_LENGTH: Record<BucketUnit, number> = { hour: 13, day: 10 };

/** The key of the bucket holding an ISO 8601 time or hour key (`2026-11-22T04` is in day `2026-11-22`). */
export const bucketKeyOf = (iso: string, unit: BucketUnit) => iso.slice(0, KEY_LENGTH[unit]);

/** The bucket of a timestamp column as that ISO prefix, in SQL. */
export const bucketKey = (db: AnyKysely, column: string, unit: BucketUnit): RawBuilder<string> => isoPrefix(db, column, KEY_LENGTH[unit]);

const floorTo = (ms: number, unit: BucketUnit) => ms - (ms % (unit === 'hour' ? HOUR_MS : DAY_MS));

/** Every bucket from the one holding `from` to the one holding `to`, oldest first: its key and its start time. */
export function bucketsBetween(from: Date, to: Date, unit: BucketUnit): { key: string; start: string }[] {
  const step = unit === 'hour' ? HOUR_MS : DAY_MS;
  const buckets: { key: string; start: string }[] = [];
  for (let t = floorTo(from.getTime(), unit); t <= to.getTime(); t += step) {
    const start = new Date(t).toISOString();
    buckets.push({ key: bucketKeyOf(start, unit), start });
  }
  return buckets;
}

/** The 24 hourly buckets ending with the current hour. */
export function last24Hours(now: Date): { key: string; start: string }[] {
  return bucketsBetween(new Date(floorTo(now.getTime(), 'hour') - 23 * HOUR_MS), now, 'hour');
}
