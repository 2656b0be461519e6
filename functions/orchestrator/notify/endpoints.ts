import type { Selectable } from 'kysely';
import type { LiveUser } from '../../../shared/auth/live-session';
import { Code, conflict, forbidden, notFound } from '../../../shared/http/errors';
import { toIso } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';
import type { WebhookEndpointsTable } from '../db/tables';
import { EndpointRefused, parseEndpointUrl, resolveEndpoint } from './endpoint-url';
import { newId } from './events';
import { hasWebhooks, MAX_ENDPOINTS, refusedUrl, ROTATION_OVERLAP_MS, urlPolicy } from './policy';
import { newSecret } from './signature';

type Ctx = Pick<OrchestratorContext, 'db' | 'now' | 'config' | 'log'>;
export type Endpoint = Selectable<WebhookEndpointsTable>;

/** An endpoint as its owner reads it: never its secret (shown once, at creation and at rotation). */
export function endpointView(row: Endpoint, now: Date) {
  const overlap = row.previous_secret_expires_at ? toIso(row.previous_secret_expires_at) : null;
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    createdAt: toIso(row.created_at)!,
    /** Until when the secret before the last rotation still signs (null: none does). */
    previousSecretExpiresAt: overlap && Date.parse(overlap) > now.getTime() ? overlap : null,
  };
}

/** The secrets that sign a delivery at `now`: the current one, and the previous one during its overlap. */
export function signingSecrets(row: Pick<Endpoint, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>, now: Date): string[] {
  const until = toIso(row.previous_secret_expires_at);
  return row.previous_secret && until && Date.parse(until) > now.getTime() ? [row.secret, row.previous_secret] : [row.secret];
}

async function checkedUrl(ctx: Ctx, raw: string): Promise<string> {
  const policy = urlPolicy(ctx.config);
  try {
    const url = parseEndpointUrl(raw, policy);
    await resolveEndpoint(url, policy);
    return url.toString();
  } catch (error) {
    if (error instanceof EndpointRefused) throw refusedUrl(error);
    throw error;
  }
}

/** POST api/webhooks/endpoints: Pro and Enterprise only; the URL is checked now (and again at every send). */
export async function registerEndpoint(ctx: Ctx, user: LiveUser, body: { url: string; description?: string }) {
  if (!hasWebhooks(user.plan)) throw forbidden(`Webhooks come with the Pro and Enterprise plans; this account is on ${user.plan}`, Code.WEBHOOKS_PLAN_REQUIRED);
  const url = await checkedUrl(ctx, body.url);
  const count = await ctx.db
    .selectFrom('orchestrator_webhook_endpoints')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  if (Number(count?.n ?? 0) >= MAX_ENDPOINTS) {
    throw conflict(`A user may have ${MAX_ENDPOINTS} webhook endpoints; delete one first`, Code.WEBHOOK_ENDPOINT_LIMIT, { limit: MAX_ENDPOINTS });
  }
  const now = ctx.now();
  const row = {
    id: newId('we'),
    user_id: user.id,
    url,
    description: body.description ?? null,
    secret: newSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  } satisfies Endpoint;
  await ctx.db.insertInto('orchestrator_webhook_endpoints').values(row).execute();
  ctx.log.info('webhook endpoint registered', { endpointId: row.id, userId: user.id });
  return { ...endpointView(row, now), secret: row.secret };
}

/** The user's endpoint `id`, or 404 (another user's is as unknown). */
export async function ownEndpoint(ctx: Pick<Ctx, 'db'>, user: Pick<LiveUser, 'id'>, id: string): Promise<Endpoint> {
  const row = await ctx.db.selectFrom('orchestrator_webhook_endpoints').selectAll().where('id', '=', id).where('user_id', '=', user.id).executeTakeFirst();
  if (!row) throw notFound('No webhook endpoint has this id', Code.WEBHOOK_ENDPOINT_NOT_FOUND);
  return row;
}

export async function listEndpoints(ctx: Ctx, user: Pick<LiveUser, 'id'>) {
  const rows = await ctx.db
    .selectFrom('orchestrator_webhook_endpoints')
    .selectAll()
    .where('user_id', '=', user.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const now = ctx.now();
  return { endpoints: rows.map((row) => endpointView(row, now)) };
}

/** DELETE api/webhooks/endpoints/{id}: the endpoint, its deliveries and their attempts; nothing more is sent to it. */
export async function deleteEndpoint(ctx: Ctx, user: Pick<LiveUser, 'id'>, id: string) {
  await ownEndpoint(ctx, user, id);
  await ctx.db.transaction().execute(async (trx) => {
    const deliveries = trx.selectFrom('orchestrator_webhook_deliveries').select('id').where('endpoint_id', '=', id);
    await trx.deleteFrom('orchestrator_webhook_attempts').where('delivery_id', 'in', deliveries).execute();
    await trx.deleteFrom('orchestrator_webhook_deliveries').where('endpoint_id', '=', id).execute();
    await trx.deleteFrom('orchestrator_webhook_endpoints').where('id', '=', id).execute();
  });
  ctx.log.info('webhook endpoint deleted', { endpointId: id, userId: user.id });
  return { success: true as const, id, deleted: true as const };
}

/**
 * POST api/webhooks/endpoints/{id}/rotate-secret: a new secret, shown once; the one it replaces keeps
 * signing beside it for 24 hours (two v1 signatures per delivery), so the client can switch without
 * losing an event. A second rotation within the overlap ends the first one's old secret at once.
 */
export async function rotateSecret(ctx: Ctx, user: Pick<LiveUser, 'id'>, id: string) {
  const row = await ownEndpoint(ctx, user, id);
  const now = ctx.now();
  const until = new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString();
  const secret = newSecret();
  await ctx.db
    .updateTable('orchestrator_webhook_endpoints')
    .set({ secret, previous_secret: row.secret, previous_secret_expires_at: until, updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('secret', '=', row.secret)
    .execute();
  ctx.log.info('webhook endpoint secret rotated', { endpointId: id, userId: user.id });
  const updated = { ...row, secret, previous_secret: row.secret, previous_secret_expires_at: until };
  return { ...endpointView(updated, now), secret };
}
