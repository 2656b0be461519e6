import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { IdentityConfig } from './settings';
import type { Infer } from '../../shared/http/schemas';
import { page, toIso } from '../../shared/sql/dialect';
import type { RequestMeta } from './audit';
import type { IdentityContext } from './context';
import type { IdentityTables } from './db/tables';
import type { SESSIONS_QUERY } from './schemas';

/** What opening and rotating sessions needs: the settings (lifetimes, the HMAC key), the clock, the database. */
type SessionContext = Pick<IdentityContext, 'config' | 'now' | 'db'>;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const newRefreshToken = () => `rt_${randomBytes(32).toString('base64url')}`;

/**
 * The token that follows `token` in its family: derived, not drawn, from the rotated token and the
 * instant of its rotation under identity's HMAC key (domain-separated from the one-time codes).
 * So a rotation whose answer never arrived (a reload or a dropped connection mid-refresh, two
 * tabs racing) can be answered again within the grace period with the same successor: the family
 * still never has two live tokens, and only the stored hash of each is kept.
 */
const successorOf = (cfg: IdentityConfig, token: string, rotatedAt: string) =>
  `rt_${createHmac('sha256', cfg.OTP_HMAC_KEY).update(`refresh-token-successor\n${token}\n${rotatedAt}`).digest('base64url')}`;

async function storeRefreshToken(
  cfg: IdentityConfig,
  token: string,
  sessionId: string,
  executor: Kysely<IdentityTables>,
  now: Date,
  sessionExpiresAt: string,
): Promise<string> {
  const idleExpiry = new Date(now.getTime() + cfg.REFRESH_TOKEN_TTL_SECONDS * 1000).toISOString();
  await executor
    .insertInto('identity_refresh_tokens')
    .values({
      token_hash: hashToken(token),
      session_id: sessionId,
      created_at: now.toISOString(),
      expires_at: idleExpiry < sessionExpiresAt ? idleExpiry : sessionExpiresAt,
      rotated_at: null,
    })
    .execute();
  return token;
}

/** Opens a session and the first refresh token of its family. */
export async function createSession(
  ctx: Pick<IdentityContext, 'config' | 'now'>,
  userId: string,
  meta: RequestMeta,
  executor: Kysely<IdentityTables>,
): Promise<{ sessionId: string; refreshToken: string }> {
  const now = ctx.now();
  const sessionId = randomUUID();
  const expiresAt = new Date(now.getTime() + ctx.config.SESSION_MAX_AGE_SECONDS * 1000).toISOString();
  await executor
    .insertInto('identity_sessions')
    .values({
      id: sessionId,
      user_id: userId,
      created_at: now.toISOString(),
      last_refreshed_at: null,
      expires_at: expiresAt,
      revoked_at: null,
      revoked_reason: null,
      ip: meta.ip,
      user_agent: meta.userAgent,
    })
    .execute();
  return { sessionId, refreshToken: await storeRefreshToken(ctx.config, newRefreshToken(), sessionId, executor, now, expiresAt) };
}

export type RotationResult =
  | { outcome: 'rotated'; sessionId: string; userId: string; refreshToken: string; replayed: boolean }
  | { outcome: 'unknown' }
  | { outcome: 'expired' | 'session_revoked' | 'session_expired' | 'reused_in_grace' | 'reuse_detected'; sessionId: string; userId: string };

type Ids = { sessionId: string; userId: string };

/**
 * Rotates a refresh token: the presented token is marked rotated with `rotated_at IS NULL` in the
 * WHERE (one winner across instances) and its successor is stored. A rotated token presented again
 * within REFRESH_REUSE_GRACE_SECONDS gets that same successor again while it is still unused (the
 * first answer was lost, or a second tab raced), and is refused once the successor has moved on;
 * later, it is treated as stolen and the whole session is revoked.
 */
export async function rotateRefreshToken(ctx: SessionContext, token: string): Promise<RotationResult> {
  return ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('identity_refresh_tokens as t')
      .innerJoin('identity_sessions as s', 's.id', 't.session_id')
      .select(['t.token_hash', 't.session_id', 't.expires_at', 't.rotated_at', 's.user_id', 's.revoked_at', 's.expires_at as session_expires_at'])
      .where('t.token_hash', '=', hashToken(token))
      .executeTakeFirst();
    if (!row) return { outcome: 'unknown' };
    const now = ctx.now();
    const ids = { sessionId: row.session_id, userId: row.user_id };
    if (row.revoked_at) return { outcome: 'session_revoked', ...ids };
    if (new Date(row.session_expires_at).getTime() <= now.getTime()) return { outcome: 'session_expired', ...ids };
    if (row.rotated_at) return repeatRotation(ctx, trx, token, toIso(row.rotated_at)!, now, ids);
    if (new Date(row.expires_at).getTime() <= now.getTime()) return { outcome: 'expired', ...ids };
    const rotatedAt = now.toISOString();
    const marked = await trx
      .updateTable('identity_refresh_tokens')
      .set({ rotated_at: rotatedAt })
      .where('token_hash', '=', row.token_hash)
      .where('rotated_at', 'is', null)
      .executeTakeFirst();
    if (Number(marked.numUpdatedRows) === 0) {
      // Another instance rotated it between this read and this write: answer as to a repeat.
      const winner = await trx.selectFrom('identity_refresh_tokens').select('rotated_at').where('token_hash', '=', row.token_hash).executeTakeFirst();
      return winner?.rotated_at ? repeatRotation(ctx, trx, token, toIso(winner.rotated_at)!, now, ids) : { outcome: 'reused_in_grace', ...ids };
    }
    await trx.updateTable('identity_sessions').set({ last_refreshed_at: rotatedAt }).where('id', '=', row.session_id).execute();
    const refreshToken = await storeRefreshToken(
      ctx.config,
      successorOf(ctx.config, token, rotatedAt),
      row.session_id,
      trx,
      now,
      toIso(row.session_expires_at)!,
    );
    return { outcome: 'rotated', ...ids, refreshToken, replayed: false };
  });
}

/** A token that was already rotated: its successor again within the grace period if nobody has used it yet; after the grace, reuse revokes the session. */
async function repeatRotation(
  ctx: SessionContext,
  trx: Kysely<IdentityTables>,
  token: string,
  rotatedAt: string,
  now: Date,
  ids: Ids,
): Promise<RotationResult> {
  if (now.getTime() - new Date(rotatedAt).getTime() > ctx.config.REFRESH_REUSE_GRACE_SECONDS * 1000) {
    await revokeSessionWith(ctx.now(), trx, ids.sessionId, 'refresh_token_reuse');
    return { outcome: 'reuse_detected', ...ids };
  }
  const successor = successorOf(ctx.config, token, rotatedAt);
  const next = await trx
    .selectFrom('identity_refresh_tokens')
    .select(['rotated_at', 'expires_at'])
    .where('token_hash', '=', hashToken(successor))
    .where('session_id', '=', ids.sessionId)
    .executeTakeFirst();
  const unused = next && !next.rotated_at && new Date(next.expires_at).getTime() > now.getTime();
  return unused ? { outcome: 'rotated', ...ids, refreshToken: successor, replayed: true } : { outcome: 'reused_in_grace', ...ids };
}

async function revokeSessionWith(now: Date, executor: Kysely<IdentityTables>, sessionId: string, reason: string): Promise<boolean> {
  const result = await executor
    .updateTable('identity_sessions')
    .set({ revoked_at: now.toISOString(), revoked_reason: reason })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Revokes one session (in `executor` when given, a transaction); false when it was already revoked. */
export const revokeSession = (ctx: Pick<IdentityContext, 'db' | 'now'>, sessionId: string, reason: string, executor = ctx.db) =>
  revokeSessionWith(ctx.now(), executor, sessionId, reason);

/** Revokes every live session of a user (in `executor` when given, a transaction); returns how many. */
export async function revokeUserSessions(ctx: Pick<IdentityContext, 'db' | 'now'>, userId: string, reason: string, executor = ctx.db): Promise<number> {
  const result = await executor
    .updateTable('identity_sessions')
    .set({ revoked_at: ctx.now().toISOString(), revoked_reason: reason })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export function findSession(ctx: Pick<IdentityContext, 'db'>, sessionId: string) {
  return ctx.db.selectFrom('identity_sessions').selectAll().where('id', '=', sessionId).executeTakeFirst();
}

/** Sessions of one user or all, newest first; `state` active (the default): neither revoked nor expired. */
export async function listSessions(ctx: Pick<IdentityContext, 'db' | 'now'>, query: Infer<typeof SESSIONS_QUERY>) {
  const database = ctx.db;
  let q = database.selectFrom('identity_sessions');
  if (query.userId) q = q.where('user_id', '=', query.userId);
  if (query.state === 'active') q = q.where('revoked_at', 'is', null).where('expires_at', '>', ctx.now().toISOString());
  const [{ total }] = await q.select((eb) => eb.fn.countAll<number>().as('total')).execute();
  const rows = await page(database, q.selectAll().orderBy('created_at', 'desc').orderBy('id'), query.limit, query.offset).execute();
  const now = ctx.now().getTime();
  return {
    sessions: rows.map((s) => ({
      id: s.id,
      userId: s.user_id,
      createdAt: toIso(s.created_at),
      lastRefreshedAt: toIso(s.last_refreshed_at),
      expiresAt: toIso(s.expires_at),
      revokedAt: toIso(s.revoked_at),
      revokedReason: s.revoked_reason,
      active: !s.revoked_at && new Date(toIso(s.expires_at)!).getTime() > now,
      ip: s.ip,
      userAgent: s.user_agent,
    })),
    total: Number(total),
    limit: query.limit,
    offset: query.offset,
  };
}
