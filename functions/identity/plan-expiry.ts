import { first, toIso } from '../../shared/sql/dialect';
import { audit, type Actor } from './audit';
import type { IdentityContext } from './context';

const EXPIRY: Actor = { type: 'system', id: 'plan-expiry' };

/** Users expired per run: the next run takes the rest. */
const BATCH = 500;

/**
 * Records the end of every paid period that ended without a renewal: the user's plan becomes free,
 * with an audit entry `user.plan.expire`. Reads already treat such a plan as free (users.ts planOf),
 * so this only writes down what is in force. Each change is conditional on the period end it read:
 * a renewal that moved the period on meanwhile is never undone.
 */
export async function expireEndedPlans(ctx: Pick<IdentityContext, 'db' | 'now'>): Promise<{ expired: number }> {
  const now = ctx.now();
  const ended = await first(
    ctx.db,
    ctx.db
      .selectFrom('users')
      .select(['id', 'plan', 'plan_period_end', 'plan_source'])
      .where('plan', '!=', 'free')
      .where('plan_period_end', '<=', now.toISOString())
      .orderBy('plan_period_end')
      .orderBy('id'),
    BATCH,
  ).execute();
  let expired = 0;
  for (const user of ended) {
    const periodEnd = toIso(user.plan_period_end)!;
    const changed = await ctx.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('users')
        .set({ plan: 'free', plan_period_end: null, plan_source: null, updated_at: now.toISOString() })
        .where('id', '=', user.id)
        .where('plan', '=', user.plan)
        .where('plan_period_end', '=', periodEnd)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await audit(
        ctx,
        { ip: null, userAgent: null, requestId: `plan-expiry-${now.toISOString()}` },
        {
          actor: EXPIRY,
          action: 'user.plan.expire',
          target: { type: 'user', id: user.id },
          result: 'success',
          details: { from: { plan: user.plan, periodEnd, source: user.plan_source }, to: { plan: 'free' } },
        },
        trx,
      );
      return true;
    });
    if (changed) expired += 1;
  }
  return { expired };
}
