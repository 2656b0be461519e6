import type { Insertable, Kysely } from 'kysely';
import { HttpError } from '../../shared/http/errors';
import { page, toIso } from '../../shared/sql/dialect';
import { param, precompiled } from '../../shared/sql/precompiled';
import type { Infer } from '../../shared/http/schemas';
import type { IdentityContext } from './context';
import type { ActorType, AuditLogTable, IdentityTables } from './db/tables';
import type { AUDIT_QUERY } from './schemas';

export type { RequestMeta } from '../../shared/http/client';
import type { RequestMeta } from '../../shared/http/client';

/** What writing an audit entry needs: the database (unless a transaction is handed in) and the clock. */
export type AuditWriter = Pick<IdentityContext, 'db' | 'now'>;

export interface Actor {
  type: ActorType;
  id: string | null;
}

export interface AuditEntry {
  actor: Actor;
  action: string;
  target?: { type: string; id: string | null };
  result: 'success' | 'failure';
  reason?: string;
  /** Non-secret facts only (never codes, tokens or secrets). */
  details?: Record<string, unknown>;
}

export const ANONYMOUS: Actor = { type: 'anonymous', id: null };

// Every request that changes something writes one of these: compiled once.
const insertAudit = precompiled((database: Kysely<IdentityTables>) =>
  database.insertInto('identity_audit_log').values({
    timestamp: param('timestamp'),
    actor_type: param<ActorType>('actor_type'),
    actor_id: param('actor_id'),
    action: param('action'),
    target_type: param('target_type'),
    target_id: param('target_id'),
    result: param<AuditLogTable['result']>('result'),
    reason: param('reason'),
    ip: param('ip'),
    user_agent: param('user_agent'),
    request_id: param('request_id'),
    details: param('details'),
  }),
);

/**
 * Runs a change whose success the change itself audits in its transaction; a refusal (an HttpError:
 * a rule said no, the target is missing, the input conflicts) is audited here as a failure with
 * its code, after the transaction rolled back, then passed on.
 */
export async function auditRefusal<T>(
  ctx: AuditWriter,
  meta: RequestMeta,
  entry: Pick<AuditEntry, 'actor' | 'action' | 'target'>,
  change: () => Promise<T>,
): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof HttpError) await audit(ctx, meta, { ...entry, result: 'failure', reason: error.code });
    throw error;
  }
}

/** Appends one audit entry; pass the transaction so the entry commits with the change it records. */
export async function audit(ctx: AuditWriter, meta: RequestMeta, entry: AuditEntry, executor = ctx.db): Promise<void> {
  await insertAudit.execute(
    {
      timestamp: ctx.now().toISOString(),
      actor_type: entry.actor.type,
      // Ids can come from a URL path: cut to the column width rather than fail the request.
      actor_id: entry.actor.id?.slice(0, 320) ?? null,
      action: entry.action,
      target_type: entry.target?.type ?? null,
      target_id: entry.target?.id?.slice(0, 320) ?? null,
      result: entry.result,
      reason: entry.reason?.slice(0, 200) ?? null,
      ip: meta.ip,
      user_agent: meta.userAgent,
      request_id: meta.requestId,
      details: entry.details ? JSON.stringify(entry.details) : null,
    } satisfies Omit<Insertable<AuditLogTable>, 'id'>,
    executor,
  );
}

/** Newest first. `actor` and `target` match ids (or emails where the entry names one); `since` and `until` are ISO instants. */
export async function listAudit(ctx: Pick<IdentityContext, 'db'>, query: Infer<typeof AUDIT_QUERY>) {
  const database = ctx.db;
  let q = database.selectFrom('identity_audit_log');
  if (query.actor) q = q.where('actor_id', '=', query.actor);
  if (query.action) q = q.where('action', '=', query.action);
  if (query.target) q = q.where('target_id', '=', query.target);
  if (query.result) q = q.where('result', '=', query.result);
  if (query.since) q = q.where('timestamp', '>=', query.since);
  if (query.until) q = q.where('timestamp', '<', query.until);
  const [{ total }] = await q.select((eb) => eb.fn.countAll<number>().as('total')).execute();
  const rows = await page(database, q.selectAll().orderBy('id', 'desc'), query.limit, query.offset).execute();
  return {
    entries: rows.map((r) => ({
      id: r.id,
      timestamp: toIso(r.timestamp),
      actor: { type: r.actor_type, id: r.actor_id },
      action: r.action,
      target: r.target_type ? { type: r.target_type, id: r.target_id } : null,
      result: r.result,
      reason: r.reason,
      ip: r.ip,
      userAgent: r.user_agent,
      requestId: r.request_id,
      details: r.details ? JSON.parse(r.details) : null,
    })),
    total: Number(total),
    limit: query.limit,
    offset: query.offset,
  };
}
