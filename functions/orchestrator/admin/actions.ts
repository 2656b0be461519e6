import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { LiveUser } from '../../../shared/auth/live-session';
import type { RequestMeta } from '../../../shared/http/client';
import { Code, HttpError, badRequest, conflict, notFound, serviceUnavailable } from '../../../shared/http/errors';
import type { Infer } from '../../../shared/http/schemas';
import { first, isDuplicateKey, sql, toIso } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';
import { notDiagnostic } from '../db/rollups';
import type { OrchestratorTables } from '../db/tables';
import type { BULK_RETRY_BODY } from '../schemas';
import { CANCELLED } from '../workflow/error-classification';
import {
  cancelProcessing,
  deleteExecutionWith,
  findExecution,
  insertExecutionWith,
  reopenExecution,
  restoreFailed,
  type Execution,
} from '../workflow/executions';
import type { CancelledBy } from '../workflow/cancel-words';

/**
 * What an administrator can do about an execution, each audited in orchestrator_admin_actions
 * (a success in the transaction of its change, a refusal right after) and safe to repeat:
 *
 * - retry: a failed execution runs again under the **same tracking id** (decision: its owner's
 *   link keeps working, and its log keeps every earlier run above the new one); repeating it while
 *   it runs changes nothing.
 * - re-run: a finished execution's submission runs as a **new execution**, linked to the first
 *   both ways through the actions (`related_tracking_id`); the same Idempotency-Key answers the
 *   same new execution.
 * - cancel: a processing execution ends as failed (CANCELLED); its run stops at the next step;
 *   repeating it changes nothing.
 * - bulk retry: the failed executions created in a time range, oldest first, a bounded batch per call.
 *
 * None takes the requester's monthly quota: the operator decides, and the audit says who did.
 */

export type ActionName = 'execution.retry' | 'execution.rerun' | 'execution.cancel' | 'executions.retry_failed';
type Database = Kysely<OrchestratorTables>;
/** What the actions reach: the database, the clock, the queue (storage and its name in the settings) and the request's log. */
type ActionContext = Pick<OrchestratorContext, 'db' | 'now' | 'log' | 'storage' | 'config'>;

interface ActionEntry {
  action: ActionName;
  trackingId: string | null;
  related?: string | null;
  result: 'success' | 'failure';
  reason?: string;
  details?: Record<string, unknown>;
  /** The caller's Idempotency-Key (re-run); a fresh id otherwise. */
  key?: string;
}

const dedupeKey = (entry: ActionEntry) => `${entry.action}:${entry.trackingId ?? '*'}:${entry.key ?? randomUUID()}`;

async function record(executor: Database, admin: LiveUser, meta: RequestMeta, entry: ActionEntry, now: Date): Promise<void> {
  await executor
    .insertInto('orchestrator_admin_actions')
    .values({
      created_at: now.toISOString(),
      action: entry.action,
      tracking_id: entry.trackingId,
      related_tracking_id: entry.related ?? null,
      actor_id: admin.id,
      actor_email: admin.email,
      result: entry.result,
      reason: entry.reason ?? null,
      details: entry.details ? JSON.stringify(entry.details) : null,
      request_id: meta.requestId,
      dedupe_key: dedupeKey(entry),
    })
    .execute();
}

/** Runs a change that audits its own success; a refusal (HttpError) is audited after it, with its code, then passed on. */
async function audited<T>(
  ctx: ActionContext,
  admin: LiveUser,
  meta: RequestMeta,
  entry: Pick<ActionEntry, 'action' | 'trackingId'>,
  change: () => Promise<T>,
): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof HttpError) await record(ctx.db, admin, meta, { ...entry, result: 'failure', reason: error.code }, ctx.now());
    throw error;
  }
}

async function existing(ctx: ActionContext, trackingId: string): Promise<Execution> {
  const execution = await findExecution(ctx, trackingId);
  if (!execution) throw notFound(`No execution with tracking id ${trackingId}`, Code.EXECUTION_NOT_FOUND);
  return execution;
}

const queueDown = () => serviceUnavailable('The execution could not be queued; nothing changed. Try again shortly.', Code.QUEUE_UNAVAILABLE, 30);
const enqueue = (ctx: ActionContext, trackingId: string) => ctx.storage.enqueueJson(ctx.config.ORCHESTRATOR_QUEUE, { trackingId });

export interface RetryAnswer {
  success: true;
  trackingId: string;
  status: 'processing';
  /** False when it was already processing (a retry repeated): nothing was queued again. */
  retried: boolean;
}

/**
 * Reopens one failed execution and queues it. When the queue refuses, the change is undone as a
 * whole (the execution failed again as it was, its audit entry removed) and the caller's refusal
 * is what the audit keeps.
 */
async function retryOne(ctx: ActionContext, admin: LiveUser, meta: RequestMeta, trackingId: string, details: Record<string, unknown> = {}): Promise<boolean> {
  const now = ctx.now();
  const entry: ActionEntry = { action: 'execution.retry', trackingId, result: 'success', key: randomUUID() };
  const before = await ctx.db.transaction().execute(async (trx) => {
    const facts = await reopenExecution(trx, trackingId, now);
    if (facts) await record(trx, admin, meta, { ...entry, details: { ...details, previous: facts } }, now);
    return facts;
  });
  if (!before) return false;
  try {
    await enqueue(ctx, trackingId);
  } catch (error) {
    ctx.log.error('retried execution not enqueued: failed again as it was', { trackingId, error });
    await ctx.db.transaction().execute(async (trx) => {
      await restoreFailed(trx, trackingId, before, ctx.now());
      await trx.deleteFrom('orchestrator_admin_actions').where('dedupe_key', '=', dedupeKey(entry)).execute();
    });
    throw queueDown();
  }
  return true;
}

export function retryExecution(ctx: ActionContext, admin: LiveUser, trackingId: string, meta: RequestMeta): Promise<RetryAnswer> {
  return audited(ctx, admin, meta, { action: 'execution.retry', trackingId }, async () => {
    const execution = await existing(ctx, trackingId);
    if (execution.processing_status === 'completed') {
      throw conflict('The execution completed; re-run it for a new report.', Code.EXECUTION_NOT_RETRYABLE);
    }
    const retried = execution.processing_status === 'failed' && (await retryOne(ctx, admin, meta, trackingId));
    ctx.log.info('execution retry requested from the administration API', { trackingId, adminId: admin.id, retried });
    return { success: true, trackingId, status: 'processing', retried };
  });
}

export interface RerunAnswer {
  success: true;
  trackingId: string;
  rerunOf: string;
  status: 'processing';
  /** True when this Idempotency-Key already made the re-run: the same execution is answered. */
  repeated: boolean;
}

/** The re-run an Idempotency-Key already made of this execution, if any. */
async function earlierRerun(ctx: ActionContext, trackingId: string, key: string | undefined): Promise<string | undefined> {
  if (!key) return undefined;
  const row = await ctx.db
    .selectFrom('orchestrator_admin_actions')
    .select('related_tracking_id')
    .where('dedupe_key', '=', dedupeKey({ action: 'execution.rerun', trackingId, result: 'success', key }))
    .executeTakeFirst();
  return row?.related_tracking_id ?? undefined;
}

export function rerunExecution(ctx: ActionContext, admin: LiveUser, trackingId: string, key: string | undefined, meta: RequestMeta): Promise<RerunAnswer> {
  return audited(ctx, admin, meta, { action: 'execution.rerun', trackingId }, async () => {
    const earlier = await earlierRerun(ctx, trackingId, key);
    if (earlier) return { success: true, trackingId: earlier, rerunOf: trackingId, status: 'processing', repeated: true };
    const execution = await existing(ctx, trackingId);
    if (execution.processing_status === 'processing') {
      throw conflict('The execution is still processing; cancel it first or wait for it to finish.', Code.EXECUTION_NOT_FINISHED);
    }
    const newId = `rpt-${randomUUID()}`;
    const now = ctx.now();
    try {
      await ctx.db.transaction().execute(async (trx) => {
        await insertExecutionWith(trx, {
          trackingId: newId,
          companyName: execution.company_name,
          industryId: execution.industry_id,
          submission: JSON.parse(execution.submission),
          requestedBy: execution.requested_by,
          plan: execution.plan,
          now: now.toISOString(),
        });
        await record(trx, admin, meta, { action: 'execution.rerun', trackingId, related: newId, result: 'success', key }, now);
      });
    } catch (error) {
      // The same key sent twice at once: the other request made the re-run.
      const winner = isDuplicateKey(error) ? await earlierRerun(ctx, trackingId, key) : undefined;
      if (winner) return { success: true, trackingId: winner, rerunOf: trackingId, status: 'processing', repeated: true };
      throw error;
    }
    try {
      await enqueue(ctx, newId);
    } catch (error) {
      // Undone as a whole: the new execution and its audit entry; the refusal is audited instead.
      ctx.log.error('re-run not enqueued: removed', { trackingId, newId, error });
      await ctx.db.transaction().execute(async (trx) => {
        await deleteExecutionWith(trx, newId);
        await trx.deleteFrom('orchestrator_admin_actions').where('related_tracking_id', '=', newId).execute();
      });
      throw queueDown();
    }
    ctx.log.info('execution re-run requested from the administration API', { trackingId, newId, adminId: admin.id });
    return { success: true, trackingId: newId, rerunOf: trackingId, status: 'processing', repeated: false };
  });
}

export interface CancelAnswer {
  success: true;
  trackingId: string;
  status: 'failed';
  /** False when it had already been cancelled (a cancel repeated). */
  cancelled: boolean;
}

/** How a cancel is made: by an administrator (the default), or by the report's owner, with what else changes in its transaction when it does (the quota given back). */
export interface CancelOptions {
  by?: CancelledBy;
  /** Runs in the cancel's transaction, only when this call cancelled the execution (never on a repeat). */
  alsoInTransaction?: (trx: Transaction<OrchestratorTables>, execution: Execution) => Promise<void>;
}

/**
 * Cancels a processing execution (audited under the caller, an administrator or, from POST
 * api/reports/{trackingId}/cancel, the report's owner, whose ownership the caller has checked).
 */
export function cancelExecution(
  ctx: ActionContext,
  actor: LiveUser,
  trackingId: string,
  meta: RequestMeta,
  options: CancelOptions = {},
): Promise<CancelAnswer> {
  return audited(ctx, actor, meta, { action: 'execution.cancel', trackingId }, async () => {
    const execution = await existing(ctx, trackingId);
    const now = ctx.now();
    const cancelled =
      execution.processing_status === 'processing' &&
      (await ctx.db.transaction().execute(async (trx) => {
        const done = await cancelProcessing(trx, trackingId, actor.email, now, options.by);
        if (done) {
          await record(
            trx,
            actor,
            meta,
            { action: 'execution.cancel', trackingId, result: 'success', details: options.by ? { by: options.by } : undefined },
            now,
          );
          await options.alsoInTransaction?.(trx, execution);
        }
        return done;
      }));
    if (!cancelled) {
      const after = await existing(ctx, trackingId);
      if (after.processing_status !== 'failed' || after.health_status !== CANCELLED) {
        throw conflict(`The execution has already ${after.processing_status}; only a processing execution can be cancelled.`, Code.EXECUTION_NOT_CANCELLABLE);
      }
    }
    ctx.log.info(options.by === 'its owner' ? 'report cancel requested by its owner' : 'execution cancel requested from the administration API', {
      trackingId,
      actorId: actor.id,
      cancelled,
    });
    return { success: true, trackingId, status: 'failed', cancelled };
  });
}

/** A bulk retry's range and batch, as its body schema (BULK_RETRY_BODY) checks it, defaults filled in. */
export type BulkRetry = Infer<typeof BULK_RETRY_BODY.schema>;

/** Failed executions created in [from, to), diagnostic ones aside, over the (processing_status, created_at) index. */
const failedIn = (ctx: ActionContext, from: string, to: string) =>
  ctx.db
    .selectFrom('orchestrator_executions')
    .where('processing_status', '=', 'failed')
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .where(notDiagnostic());

const countFailedIn = async (ctx: ActionContext, from: string, to: string) =>
  Number(
    (
      await failedIn(ctx, from, to)
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/**
 * Retries the failed executions created in [from, to), oldest first, at most `limit` per call
 * (`remaining` says how many are left for the next call); a dry run only counts them. Repeating a
 * call retries only what has failed since: executions already reopened are no longer failed.
 */
export function retryFailed(ctx: ActionContext, admin: LiveUser, input: BulkRetry, meta: RequestMeta) {
  return audited(ctx, admin, meta, { action: 'executions.retry_failed', trackingId: null }, async () => {
    const from = new Date(input.from).toISOString();
    const to = new Date(input.to).toISOString();
    if (from >= to) throw badRequest('`from` must be before `to`.', Code.VALIDATION_FAILED, { details: [{ field: 'from', problem: 'not before to' }] });
    const matched = await countFailedIn(ctx, from, to);
    if (input.dryRun) return { success: true, dryRun: true, from, to, matched, retried: 0, trackingIds: [] as string[], remaining: matched };
    const batch = await first(ctx.db, failedIn(ctx, from, to).select('tracking_id').orderBy('created_at').orderBy('tracking_id'), input.limit).execute();
    const retried: string[] = [];
    for (const { tracking_id } of batch) {
      if (await retryOne(ctx, admin, meta, tracking_id, { bulk: { from, to } })) retried.push(tracking_id);
    }
    const remaining = await countFailedIn(ctx, from, to);
    await record(
      ctx.db,
      admin,
      meta,
      { action: 'executions.retry_failed', trackingId: null, result: 'success', details: { from, to, matched, retried: retried.length } },
      ctx.now(),
    );
    ctx.log.info('bulk retry requested from the administration API', { adminId: admin.id, from, to, matched, retried: retried.length, remaining });
    return { success: true, dryRun: false, from, to, matched, retried: retried.length, trackingIds: retried, remaining };
  });
}

/** The administrators' actions naming an execution (as the one acted on, or as a re-run made from it), newest first. */
export async function actionsFor(ctx: Pick<OrchestratorContext, 'db'>, trackingId: string, limit = 50) {
  const database = ctx.db;
  const rows = await first(
    database,
    database
      .selectFrom('orchestrator_admin_actions')
      .select(['id', 'created_at', 'action', 'tracking_id', 'related_tracking_id', 'actor_id', 'actor_email', 'result', 'reason', 'details'])
      .where((eb) => eb.or([eb('tracking_id', '=', trackingId), eb('related_tracking_id', '=', trackingId)]))
      .orderBy('id', 'desc'),
    limit,
  ).execute();
  return rows.map((r) => ({
    id: r.id,
    at: toIso(r.created_at)!,
    action: r.action,
    tracking_id: r.tracking_id,
    related_tracking_id: r.related_tracking_id,
    actor: { id: r.actor_id, email: r.actor_email },
    result: r.result,
    reason: r.reason,
    details: r.details ? (JSON.parse(r.details) as Record<string, unknown>) : null,
  }));
}
