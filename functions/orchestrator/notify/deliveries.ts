import type { Selectable } from 'kysely';
import { isAdmin } from '../../../shared/auth/access-token';
import type { LiveUser } from '../../../shared/auth/live-session';
import { Code, notFound } from '../../../shared/http/errors';
import { first, page, toIso } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';
import type { WebhookAttemptsTable, WebhookDeliveriesTable } from '../db/tables';
import { nextAttemptAt } from './backoff';
import { EndpointRefused, parseEndpointUrl, resolveEndpoint } from './endpoint-url';
import { signingSecrets } from './endpoints';
import { markNotifyWork } from './events';
import { urlPolicy } from './policy';
import { postJson, type SendLimits, SEND_LIMITS, type SendResult } from './send';
import { SIGNATURE_HEADER, signatureHeader } from './signature';

type Ctx = Pick<OrchestratorContext, 'db' | 'now' | 'config' | 'log'>;
export type Delivery = Selectable<WebhookDeliveriesTable>;
type Attempt = Selectable<WebhookAttemptsTable>;

/** How long a claimed try holds its delivery: past it (the instance died mid-send) another dispatcher tries again. */
const CLAIM_MS = 5 * 60_000;
export const USER_AGENT = 'ReportPlatform-Webhooks/1';

/**
 * Takes a due delivery for one try (compare-and-set on its try count, so two dispatchers never send
 * the same try): counts the try and holds the delivery for CLAIM_MS.
 */
async function claim(ctx: Ctx, delivery: Delivery, now: Date): Promise<boolean> {
  const result = await ctx.db
    .updateTable('orchestrator_webhook_deliveries')
    .set({
      attempts: delivery.attempts + 1,
      window_attempts: delivery.window_attempts + 1,
      next_attempt_at: new Date(now.getTime() + CLAIM_MS).toISOString(),
      updated_at: now.toISOString(),
    })
    .where('id', '=', delivery.id)
    .where('status', '=', 'pending')
    .where('attempts', '=', delivery.attempts)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Sends the delivery's body to its endpoint once: the URL checked again and resolved now, the connection pinned to the address checked. */
async function send(ctx: Ctx, delivery: Delivery, attempt: number, now: Date, limits: SendLimits): Promise<SendResult> {
  const endpoint = await ctx.db.selectFrom('orchestrator_webhook_endpoints').selectAll().where('id', '=', delivery.endpoint_id).executeTakeFirst();
  if (!endpoint) return { ok: false, statusCode: null, excerpt: null, error: 'the endpoint was deleted', durationMs: 0 };
  const policy = urlPolicy(ctx.config);
  const started = performance.now();
  try {
    const url = parseEndpointUrl(endpoint.url, policy);
    const vetted = await resolveEndpoint(url, policy);
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers = {
      'user-agent': USER_AGENT,
      [SIGNATURE_HEADER]: signatureHeader(signingSecrets(endpoint, now), timestamp, delivery.payload),
      'Report-Event-Id': delivery.event_id,
      'Report-Event-Type': delivery.event_type,
      'Report-Delivery-Id': delivery.id,
      'Report-Delivery-Attempt': String(attempt),
    };
    return await postJson(url, vetted, headers, delivery.payload, limits);
  } catch (error) {
    const message = error instanceof EndpointRefused ? `refused: ${error.message}` : (error as Error).message;
    return { ok: false, statusCode: null, excerpt: null, error: message.slice(0, 500), durationMs: Math.round(performance.now() - started) };
  }
}

/**
 * One try of a due delivery: claimed, sent, its answer stored as an attempt, and the delivery
 * succeeded, scheduled again (notify/backoff.ts) or failed once its window is over. False when
 * another dispatcher had it.
 */
export async function attemptDelivery(ctx: Ctx, delivery: Delivery, limits: SendLimits = SEND_LIMITS): Promise<boolean> {
  const now = ctx.now();
  if (!(await claim(ctx, delivery, now))) return false;
  const attempt = delivery.attempts + 1;
  const result = await send(ctx, delivery, attempt, now, limits);
  const after = ctx.now();
  const next = result.ok ? null : nextAttemptAt(new Date(toIso(delivery.window_started_at)!), delivery.window_attempts + 1, after);
  const status = result.ok ? 'succeeded' : next ? 'pending' : 'failed';
  const error = result.error ?? (result.ok ? null : `answered ${result.statusCode}`);
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('orchestrator_webhook_attempts')
      .values({
        delivery_id: delivery.id,
        attempt,
        at: now.toISOString(),
        duration_ms: result.durationMs,
        status_code: result.statusCode,
        response_excerpt: result.excerpt,
        error,
        outcome: result.ok ? 'succeeded' : 'failed',
      })
      .execute();
    await trx
      .updateTable('orchestrator_webhook_deliveries')
      .set({
        status,
        next_attempt_at: next ? next.toISOString() : null,
        last_status_code: result.statusCode,
        last_error: error,
        updated_at: after.toISOString(),
      })
      .where('id', '=', delivery.id)
      .where('attempts', '=', attempt)
      .execute();
  });
  if (status === 'pending') await markNotifyWork(after).catch(() => undefined);
  ctx.log.info('webhook delivery attempted', {
    deliveryId: delivery.id,
    endpointId: delivery.endpoint_id,
    attempt,
    status,
    statusCode: result.statusCode,
    durationMs: result.durationMs,
  });
  return true;
}

/** Deliveries due at `now` (oldest first, a bounded batch), optionally of given events only. */
export function dueDeliveries(ctx: Pick<Ctx, 'db'>, now: Date, eventIds?: string[], limit = 50): Promise<Delivery[]> {
  let query = ctx.db
    .selectFrom('orchestrator_webhook_deliveries')
    .selectAll()
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now.toISOString())
    .orderBy('next_attempt_at');
  if (eventIds) query = query.where('event_id', 'in', eventIds.length ? eventIds : ['']);
  return first(ctx.db, query, limit).execute();
}

/** Tries `deliveries`, a few at a time. */
export async function attemptAll(ctx: Ctx, deliveries: Delivery[], parallel = 5): Promise<number> {
  let tried = 0;
  for (let i = 0; i < deliveries.length; i += parallel) {
    const batch = await Promise.all(deliveries.slice(i, i + parallel).map((d) => attemptDelivery(ctx, d).catch(() => false)));
    tried += batch.filter(Boolean).length;
  }
  return tried;
}

const attemptView = (a: Attempt) => ({
  attempt: a.attempt,
  at: toIso(a.at)!,
  durationMs: a.duration_ms,
  statusCode: a.status_code,
  responseExcerpt: a.response_excerpt,
  error: a.error,
  outcome: a.outcome,
});

/** Deliveries as the owner and the admins read them, each with its tries. */
async function deliveryViews(ctx: Pick<Ctx, 'db'>, rows: Delivery[]) {
  const ids = rows.map((r) => r.id);
  const attempts = ids.length
    ? await ctx.db.selectFrom('orchestrator_webhook_attempts').selectAll().where('delivery_id', 'in', ids).orderBy('id').execute()
    : [];
  return rows.map((d) => ({
    id: d.id,
    endpointId: d.endpoint_id,
    userId: d.user_id,
    eventId: d.event_id,
    eventType: d.event_type,
    trackingId: d.tracking_id,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: toIso(d.next_attempt_at),
    lastStatusCode: d.last_status_code,
    lastError: d.last_error,
    createdAt: toIso(d.created_at)!,
    updatedAt: toIso(d.updated_at)!,
    payload: d.payload,
    tries: attempts.filter((a) => a.delivery_id === d.id).map(attemptView),
  }));
}

function pageOf(ctx: Pick<Ctx, 'db'>, query: ReturnType<typeof deliveriesQuery>, limit: number, offset: number) {
  return page(ctx.db, query.orderBy('created_at', 'desc').orderBy('id', 'desc'), limit, offset);
}
const deliveriesQuery = (ctx: Pick<Ctx, 'db'>) => ctx.db.selectFrom('orchestrator_webhook_deliveries').selectAll();

/** GET api/webhooks/endpoints/{id}/deliveries: newest first (the endpoint is the caller's, checked by the caller). */
export async function endpointDeliveries(ctx: Pick<Ctx, 'db'>, endpointId: string, paging: { limit: number; offset: number }) {
  const rows = await pageOf(ctx, deliveriesQuery(ctx).where('endpoint_id', '=', endpointId), paging.limit, paging.offset).execute();
  return { deliveries: await deliveryViews(ctx, rows), limit: paging.limit, offset: paging.offset };
}

/** GET api/admin/webhooks/deliveries: every user's, newest first, by status and user. */
export async function adminDeliveries(ctx: Pick<Ctx, 'db'>, query: { status?: string; userId?: string; limit: number; offset: number }) {
  let q = deliveriesQuery(ctx);
  if (query.status && query.status !== 'all') q = q.where('status', '=', query.status as Delivery['status']);
  if (query.userId) q = q.where('user_id', '=', query.userId);
  const rows = await pageOf(ctx, q, query.limit, query.offset).execute();
  return { deliveries: await deliveryViews(ctx, rows), limit: query.limit, offset: query.offset };
}

/**
 * POST api/webhooks/deliveries/{id}/resend (its owner or an admin): the delivery is due again now,
 * with a fresh retry window, and tried at once; the answer is the delivery after that try.
 */
export async function resendDelivery(ctx: Ctx, user: LiveUser, id: string) {
  const row = await ctx.db.selectFrom('orchestrator_webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row || (row.user_id !== user.id && !isAdmin(user))) throw notFound('No webhook delivery has this id', Code.WEBHOOK_DELIVERY_NOT_FOUND);
  const now = ctx.now();
  await markNotifyWork(now);
  await ctx.db
    .updateTable('orchestrator_webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now.toISOString(), window_started_at: now.toISOString(), window_attempts: 0, updated_at: now.toISOString() })
    .where('id', '=', id)
    .execute();
  ctx.log.info('webhook delivery re-sent', { deliveryId: id, by: user.id });
  const due = await ctx.db.selectFrom('orchestrator_webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  await attemptDelivery(ctx, due);
  const [view] = await deliveryViews(ctx, [
    await ctx.db.selectFrom('orchestrator_webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
  ]);
  return view;
}
