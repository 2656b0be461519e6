import type { TableClient } from '@azure/data-tables';
import { table } from '../storage';
import { currentPlatform, currentTime, member } from '../platform';

/**
 * Lets a serverless database pause while the platform is idle. A timer that runs every minute and
 * queries SQL only to find nothing to do would keep the database awake for ever; these markers,
 * one per kind of timer work, live in Table Storage (which wakes nothing) and say whether SQL may
 * hold any such work:
 * - a writer marks its work `busy` before it writes it to SQL (a failed mark fails the request
 *   before anything is written);
 * - the timer, after a SQL pass that found nothing, marks it `idle`, conditionally on the ETag it
 *   read (a writer that marked it meanwhile wins) and only once the last busy mark is older than
 *   BUSY_GRACE_MS (a writer that marked it has committed by then);
 * - while it is idle the timer skips SQL. An idle mark is trusted for IDLE_TRUST_MS at most, so a
 *   marker that was somehow wrong costs a week, not for ever (each expiry wakes a paused database
 *   once, which is why it is not shorter).
 */
export const SQL_WORK_TABLE = 'sqlwork';
export const BUSY_GRACE_MS = 5 * 60_000;
export const IDLE_TRUST_MS = 7 * 24 * 60 * 60_000;
const PARTITION = 'timers';

interface Marker {
  partitionKey: string;
  rowKey: string;
  state: 'busy' | 'idle';
  at: string;
  /** What the timer reports while idle (counts that stay true until a writer marks it busy). */
  data?: string;
}

export interface SqlWorkState {
  /** SQL holds no work for this timer: skip it. */
  idle: boolean;
  /** The counts recorded with the idle mark. */
  data: Record<string, number>;
  /** Marks it idle after a SQL pass that found nothing; false when a writer came first or it is too soon. */
  markIdle(data: Record<string, number>, now?: Date): Promise<boolean>;
}

const markers = (): Promise<TableClient> => table(SQL_WORK_TABLE);

/**
 * How long a busy mark this instance wrote stands for its later writes of the same work. The timer
 * marks a topic idle only after a SQL pass that began once the last busy mark was BUSY_GRACE_MS
 * old; a write made up to MARK_REUSE_MS after this instance's mark has committed long before then
 * (it commits within seconds, and BUSY_GRACE_MS - MARK_REUSE_MS is four minutes), so that pass sees
 * it. A write later than that marks again, and so does any write once the marker may have gone idle,
 * since going idle needs a mark older than BUSY_GRACE_MS. So a busy instance writes the marker (one
 * hot entity every instance shares) once a minute instead of once per webhook event or report.
 */
export const MARK_REUSE_MS = 60_000;

/** When this instance last marked each topic busy (per platform: each test host is an instance of its own). */
const LAST_BUSY_MARKS = member('sql work marks', () => new Map<string, number>());

/** Called by a writer before it writes work the `topic` timer must see. */
export async function markSqlWork(topic: string, now = currentTime()): Promise<void> {
  const marks = currentPlatform().get(LAST_BUSY_MARKS);
  const since = now.getTime() - (marks.get(topic) ?? -Infinity);
  if (since >= 0 && since < MARK_REUSE_MS) return;
  const marker: Marker = { partitionKey: PARTITION, rowKey: topic, state: 'busy', at: now.toISOString() };
  await (await markers()).upsertEntity(marker, 'Replace');
  marks.set(topic, now.getTime());
}

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

/** The marker of `topic` as the timer reads it at the start of a run. */
export async function sqlWorkState(topic: string, now = currentTime()): Promise<SqlWorkState> {
  const client = await markers();
  let marker: (Marker & { etag: string }) | undefined;
  try {
    marker = await client.getEntity<Marker>(PARTITION, topic);
  } catch (error) {
    if (statusOf(error) !== 404) throw error;
  }
  const age = marker ? now.getTime() - Date.parse(marker.at) : Infinity;
  const idle = marker?.state === 'idle' && age < IDLE_TRUST_MS;
  return {
    idle,
    data: idle && marker?.data ? (JSON.parse(marker.data) as Record<string, number>) : {},
    async markIdle(data, at = currentTime()) {
      if (marker?.state === 'busy' && at.getTime() - Date.parse(marker.at) < BUSY_GRACE_MS) return false;
      const next: Marker = { partitionKey: PARTITION, rowKey: topic, state: 'idle', at: at.toISOString(), data: JSON.stringify(data) };
      try {
        if (marker) await client.updateEntity(next, 'Replace', { etag: marker.etag });
        else await client.createEntity(next);
        // This instance's next write of the work marks again, whenever its last mark was.
        currentPlatform().get(LAST_BUSY_MARKS).delete(topic);
        return true;
      } catch (error) {
        if (statusOf(error) === 412 || statusOf(error) === 409) return false;
        throw error;
      }
    },
  };
}

/** The state, or "not idle" when Table Storage cannot be read (the timer then queries SQL, as it always could). */
export async function sqlWorkStateOrBusy(topic: string, now = currentTime()): Promise<SqlWorkState> {
  try {
    return await sqlWorkState(topic, now);
  } catch {
    return { idle: false, data: {}, markIdle: async () => false };
  }
}
