import { createLogger } from '../../shared/logging';
import { audit, type Actor } from './audit';
import type { IdentityContext } from './context';
import { findRole } from './roles';
import { revokeUserSessions } from './sessions';
import { findUserByEmail, insertUser, normalizeEmail, updateUser, type UserRow } from './users';

const SYSTEM: Actor = { type: 'system', id: 'bootstrap' };

/**
 * Creates `email` with `role`, or gives an existing user that role (and reactivates them). Used by
 * start-up (BOOTSTRAP_ADMIN_EMAIL) and by the users CLI; audited as the system.
 */
export async function ensureUserWithRole(
  ctx: IdentityContext,
  email: string,
  roleId: string,
  actor: Actor = SYSTEM,
): Promise<{ user: UserRow; outcome: 'created' | 'promoted' | 'unchanged' }> {
  if (!(await findRole(ctx, roleId))) throw new Error(`role ${roleId} does not exist`);
  const meta = { ip: null, userAgent: null, requestId: `${actor.id}-${ctx.now().getTime()}` };
  return ctx.db.transaction().execute(async (trx) => {
    const existing = await findUserByEmail(ctx, email, trx);
    if (!existing) {
      const user = await insertUser(ctx, { email, role: roleId }, trx);
      await audit(
        ctx,
        meta,
        { actor, action: 'user.create', target: { type: 'user', id: user.id }, result: 'success', details: { email: user.email, role: roleId } },
        trx,
      );
      return { user, outcome: 'created' as const };
    }
    if (existing.role === roleId && existing.status === 'active') return { user: existing, outcome: 'unchanged' as const };
    const user = (await updateUser(ctx, existing.id, { role: roleId, status: 'active' }, trx))!;
    await revokeUserSessions(ctx, existing.id, 'role_changed', trx);
    await audit(
      ctx,
      meta,
      { actor, action: 'role.grant', target: { type: 'user', id: user.id }, result: 'success', details: { from: existing.role, to: roleId } },
      trx,
    );
    return { user, outcome: 'promoted' as const };
  });
}

/** BOOTSTRAP_ADMIN_EMAIL becomes a super_admin when it is not one yet; an existing super_admin is left alone. */
export async function bootstrapAdmin(ctx: IdentityContext): Promise<void> {
  const email = ctx.config.BOOTSTRAP_ADMIN_EMAIL;
  if (!email) return;
  const existing = await findUserByEmail(ctx, normalizeEmail(email));
  if (existing?.role === 'super_admin') return;
  try {
    const { outcome } = await ensureUserWithRole(ctx, email, 'super_admin');
    ctx.log.info('bootstrap admin ready', { email: normalizeEmail(email), outcome });
  } catch (error) {
    // Several instances start at once: the one that lost the insert race finds the admin in place.
    if ((await findUserByEmail(ctx, normalizeEmail(email)))?.role !== 'super_admin') throw error;
  }
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

export interface BackgroundTask {
  /** Settles after the first try, whatever its outcome (never rejects). */
  firstAttempt: Promise<void>;
  /** Settles once the work succeeded, or when stopped. */
  done: Promise<void>;
  stop(): void;
}

/**
 * bootstrapAdmin off the start-up path: a serverless Azure SQL database may still be resuming when
 * the app starts (and Flex Consumption allows 30 s for start-up), so the first failure is not
 * fatal. Tried at once, then retried with exponential backoff and full jitter (1 s doubling to at
 * most 30 s), each failure logged, until it succeeds or `stop()` (app shutdown) cancels the wait.
 */
export function startBootstrapAdmin(run: () => Promise<void>, random: () => number = Math.random): BackgroundTask {
  const log = createLogger({ service: 'identity', component: 'bootstrap' });
  let stopped = false;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let firstTried: () => void = () => undefined;
  const firstAttempt = new Promise<void>((resolve) => (firstTried = resolve));
  const done = (async () => {
    for (let attempt = 1; !stopped; attempt++) {
      try {
        await run().finally(firstTried);
        if (attempt > 1) log.info('bootstrap admin ready after retries', { attempts: attempt });
        return;
      } catch (error) {
        if (stopped) return;
        const delayMs = Math.round(random() * Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempt - 1)));
        log.warn('bootstrap admin not ready yet; will retry', { attempt, retryInMs: delayMs, error });
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, delayMs);
        });
      }
    }
  })();
  return {
    firstAttempt,
    done: done.finally(firstTried),
    stop() {
      stopped = true;
      clearTimeout(timer);
      wake?.();
    },
  };
}
