import type { Plan } from '../../../shared/auth/access-token';
import { Code, httpError } from '../../../shared/http/errors';
import { isDuplicateKey } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';

/** What the quota reaches: the database, and the plan table the plans are sold from. */
type QuotaContext = Pick<OrchestratorContext, 'db' | 'plans'>;

export interface QuotaUse {
  /** Reports allowed this month; null is unlimited. */
  limit: number | null;
  /** Reports requested this month, this one included. */
  count: number;
  /** Start of the next calendar month (UTC), when the count starts again. */
  resetsAt: string;
}

const monthOf = (now: Date) => now.toISOString().slice(0, 7);
const nextMonth = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));

function increment(ctx: QuotaContext, userId: string, month: string, limit: number) {
  return ctx.db
    .updateTable('orchestrator_report_quota')
    .set((eb) => ({ reports: eb('reports', '+', 1) }))
    .where('user_id', '=', userId)
    .where('month', '=', month)
    .where('reports', '<', limit)
    .executeTakeFirst();
}

/**
 * Takes one report of the user's monthly quota (their plan's reportsPerMonth, from the plan table
 * the plans are sold from), or refuses with 429 REPORT_QUOTA_EXCEEDED. One conditional increment in
 * SQL, so concurrent requests on any number of instances never exceed the limit.
 */
export async function takeReportQuota(ctx: QuotaContext, userId: string, plan: Plan, now: Date): Promise<QuotaUse> {
  const limit = ctx.plans.find((p) => p.id === plan)?.reportsPerMonth ?? null;
  const month = monthOf(now);
  const resetsAt = nextMonth(now).toISOString();
  if (limit === null) return { limit, count: 0, resetsAt };
  let taken = limit > 0 && Number((await increment(ctx, userId, month, limit)).numUpdatedRows) === 1;
  if (!taken && limit > 0) {
    try {
      await ctx.db.insertInto('orchestrator_report_quota').values({ user_id: userId, month, reports: 1 }).execute();
      taken = true;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // Another request created this month's row first: count on it.
      taken = Number((await increment(ctx, userId, month, limit)).numUpdatedRows) === 1;
    }
  }
  const row = await ctx.db
    .selectFrom('orchestrator_report_quota')
    .select('reports')
    .where('user_id', '=', userId)
    .where('month', '=', month)
    .executeTakeFirst();
  const count = row?.reports ?? 0;
  if (!taken) {
    const retryAfter = Math.max(1, Math.ceil((Date.parse(resetsAt) - now.getTime()) / 1000));
    throw httpError(Code.REPORT_QUOTA_EXCEEDED, `The ${plan} plan allows ${limit} reports per month; ${count} were requested this month`, {
      extra: { plan, limit, count, resetsAt },
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
  return { limit, count, resetsAt };
}

/** Gives back a report taken with `use` (its request could not be queued). */
export async function returnReportQuota(ctx: Pick<OrchestratorContext, 'db'>, userId: string, use: QuotaUse, now: Date): Promise<void> {
  if (use.limit === null) return;
  await ctx.db
    .updateTable('orchestrator_report_quota')
    .set((eb) => ({ reports: eb('reports', '-', 1) }))
    .where('user_id', '=', userId)
    .where('month', '=', monthOf(now))
    .where('reports', '>', 0)
    .execute();
}
