import { createHash } from 'node:crypto';
import { Code, badRequest, httpError, serviceUnavailable } from '../../../shared/http/errors';
import { isDuplicateKey } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';
import type { ReportRequest } from './submission';

/**
 * The Idempotency-Key of POST api/reports, as Stripe's: per user, kept 24 hours. The same key with
 * the same body answers the report it first made (no second execution, no second report of the
 * quota); with another body it is refused (422 IDEMPOTENCY_KEY_REUSED). The key is claimed in SQL
 * (primary key user_id + key) with the tracking id made first, before the quota is taken, so of two
 * requests sent at once one inserts and the other reads the winner's row.
 */

type KeyContext = Pick<OrchestratorContext, 'db'>;

/** How long a key answers its first report: at least 24 hours (Stripe's own). */
export const KEY_TTL_MS = 24 * 60 * 60_000;
/** As payment takes it: 8 to 200 printable ASCII characters (no space). */
const KEY_PATTERN = /^[\x21-\x7e]{8,200}$/;

/** The header's key, checked; undefined when the request sent none. */
export function idempotencyKeyOf(value: string | null): string | undefined {
  if (value === null) return undefined;
  if (!KEY_PATTERN.test(value)) {
    throw badRequest('Idempotency-Key must be 8 to 200 printable ASCII characters', Code.INVALID_IDEMPOTENCY_KEY, {
      details: [{ field: 'Idempotency-Key', problem: 'invalid' }],
    });
  }
  return value;
}

/** JSON with object keys sorted at every depth: the same request hashes the same whatever its key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 (hex) of the checked request. */
export const requestHash = (request: ReportRequest) => createHash('sha256').update(canonical(request)).digest('hex');

export interface KeyClaim {
  userId: string;
  key: string;
  hash: string;
}

const error503 = () =>
  serviceUnavailable('The Idempotency-Key is being used by another request that keeps failing; try again shortly.', Code.QUEUE_UNAVAILABLE, 5);

const reused = () =>
  httpError(Code.IDEMPOTENCY_KEY_REUSED, 'This Idempotency-Key was already used with another request body; send a new key for a new request.');

async function held(ctx: KeyContext, claim: KeyClaim) {
  return ctx.db
    .selectFrom('orchestrator_report_keys')
    .select(['request_hash', 'tracking_id', 'created_at'])
    .where('user_id', '=', claim.userId)
    .where('idempotency_key', '=', claim.key)
    .executeTakeFirst();
}

/**
 * Claims the key for `trackingId`: undefined when this request holds it now (go on and make the
 * report), or the tracking id the key already answers (the same body within 24 hours). Refuses
 * (422) the key sent with another body. Keys past 24 hours are removed first (all users', over the
 * created_at index), so an expired key starts afresh.
 */
export async function claimKey(ctx: KeyContext, claim: KeyClaim, trackingId: string, now: Date, attempt = 0): Promise<string | undefined> {
  await ctx.db
    .deleteFrom('orchestrator_report_keys')
    .where('created_at', '<', new Date(now.getTime() - KEY_TTL_MS).toISOString())
    .execute();
  try {
    await ctx.db
      .insertInto('orchestrator_report_keys')
      .values({ user_id: claim.userId, idempotency_key: claim.key, request_hash: claim.hash, tracking_id: trackingId, created_at: now.toISOString() })
      .execute();
    return undefined;
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
  const row = await held(ctx, claim);
  // The holder failed (quota, queue) and let the key go between our insert and this read: try once more.
  if (!row && attempt < 3) return claimKey(ctx, claim, trackingId, now, attempt + 1);
  if (!row) throw error503();
  if (row.request_hash !== claim.hash) throw reused();
  return row.tracking_id;
}

/**
 * Waits (up to `timeoutMs`) until the report a key answers exists, the request holding the key
 * still working on it: true once it does (or the wait ends), false when the holder let the key go
 * (its report was refused or not queued), so this request may claim it for itself.
 */
export async function keyAnswered(ctx: KeyContext, claim: KeyClaim, trackingId: string, timeoutMs = 5_000): Promise<boolean> {
  for (let waited = 0; ; waited += 50) {
    const execution = await ctx.db.selectFrom('orchestrator_executions').select('tracking_id').where('tracking_id', '=', trackingId).executeTakeFirst();
    if (execution) return true;
    const row = await held(ctx, claim);
    if (!row || row.tracking_id !== trackingId) return false;
    if (waited >= timeoutMs) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Lets the key go: the request that held it made no report (refused or not queued), so a retry with it can. */
export async function releaseKey(ctx: KeyContext, claim: KeyClaim, trackingId: string): Promise<void> {
  await ctx.db
    .deleteFrom('orchestrator_report_keys')
    .where('user_id', '=', claim.userId)
    .where('idempotency_key', '=', claim.key)
    .where('tracking_id', '=', trackingId)
    .execute();
}
