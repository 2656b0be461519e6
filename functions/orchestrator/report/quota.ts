import type { Plan } from '../../../shared/auth/access-token';
import { Code, httpError } from '../../../shared/http/errors';
import { isDuplicateKey } from '../../../shared/sql/dialect';
import type { OrchestratorContext } from '../context';

/** What the quota reaches: the database, and the plan table the plans are sold from. */
type QuotaContext = Pick<OrchestratorContext, 'db' | 'plans'>;

/** The part of the signed-in user the quota reads: their plan in force and when its paid period ends. */
export interface QuotaHolder {
  id: string;
  plan: Plan;
  planPeriodEnd: string | null;
}

export interface QuotaUse {
  /** Reports allowed this period; null is unlimited. */
  limit: number | null;
  /** Reports requested this period, this one included. */
  count: number;
  /** When the count starts again: the end of the paid period, else the start of the next calendar month (UTC). */
  resetsAt: string;
  /** What the period is: the paid period (a subscription's, or a one-off's 30 days), or the calendar month (free, or a plan granted without an end). */
  period: 'billing_period' | 'calendar_month';
}

/** The period a request at `now` counts in, its row key and when it ends. */
export function quotaPeriod(holder: QuotaHolder, now: Date): { key: string; resetsAt: string; period: QuotaUse['period'] } {
  if (holder.planPeriodEnd && Date.parse(holder.planPeriodEnd) > now.getTime()) {
    const end = new Date(holder.planPeriodEnd).toISOString();
    return { key: end, resetsAt: end, period: 'billing_period' };
  }
  const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
  return { key: now.toISOString().slice(0, 7), resetsAt: nextMonth, period: 'calendar_month' };
}

function increment(ctx: QuotaContext, userId: string, period: string, limit: number) {
  return ctx.db
    .updateTable('orchestrator_report_usage')
    .set((eb) => ({ reports: eb('reports', '+', 1) }))
    .where('user_id', '=', userId)
    .where('period', '=', period)
    .where('reports', '<', limit)
    .executeTakeFirst();
}

const limitOf = (ctx: QuotaContext, plan: Plan) => ctx.plans.find((p) => p.id === plan)?.reportsPerMonth ?? null;

/** Reports the user requested in the period `now` falls in. */
async function usedIn(ctx: QuotaContext, userId: string, key: string): Promise<number> {
  const row = await ctx.db.selectFrom('orchestrator_report_usage').select('reports').where('user_id', '=', userId).where('period', '=', key).executeTakeFirst();
  return row?.reports ?? 0;
}

/**
 * Takes one report of the user's quota for the current billing period (their plan's
 * reportsPerMonth, from the plan table the plans are sold from), or refuses with 429
 * REPORT_QUOTA_EXCEEDED. One conditional increment in SQL, so concurrent requests on any number of
 * instances never exceed the limit. A renewal starts a new period, so a new count; an upgrade within
 * the period keeps the count and raises the limit.
 */
export async function takeReportQuota(ctx: QuotaContext, holder: QuotaHolder, now: Date): Promise<QuotaUse> {
  const limit = limitOf(ctx, holder.plan);
  const { key, resetsAt, period } = quotaPeriod(holder, now);
  if (limit === null) return { limit, count: 0, resetsAt, period };
  let taken = limit > 0 && Number((await increment(ctx, holder.id, key, limit)).numUpdatedRows) === 1;
  if (!taken && limit > 0) {
    try {
      await ctx.db.insertInto('orchestrator_report_usage').values({ user_id: holder.id, period: key, reports: 1 }).execute();
      taken = true;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // Another request created this period's row first: count on it.
      taken = Number((await increment(ctx, holder.id, key, limit)).numUpdatedRows) === 1;
    }
  }
  const count = await usedIn(ctx, holder.id, key);
  if (!taken) {
    const retryAfter = Math.max(1, Math.ceil((Date.parse(resetsAt) - now.getTime()) / 1000));
    const per = period === 'billing_period' ? 'billing period' : 'month';
    throw httpError(Code.REPORT_QUOTA_EXCEEDED, `The ${holder.plan} plan allows ${limit} reports per ${per}; ${count} were requested this ${per}`, {
      extra: { plan: holder.plan, limit, count, resetsAt, period },
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
  return { limit, count, resetsAt, period };
}

/** The quota of the current period without taking any: what a next request would find. */
export async function reportQuotaStatus(ctx: QuotaContext, holder: QuotaHolder, now: Date): Promise<QuotaUse & { remaining: number | null }> {
  const limit = limitOf(ctx, holder.plan);
  const { key, resetsAt, period } = quotaPeriod(holder, now);
  const count = limit === null ? 0 : await usedIn(ctx, holder.id, key);
  return { limit, count, remaining: limit === null ? null : Math.max(0, limit - count), resetsAt, period };
}

/** Gives back a report taken at `at` (its request could not be queued, or it was cancelled before delivery). */
export async function returnReportQuota(ctx: Pick<OrchestratorContext, 'db'>, holder: QuotaHolder, use: Pick<QuotaUse, 'limit'>, at: Date): Promise<void> {
  if (use.limit === null) return;
  await ctx.db
    .updateTable('orchestrator_report_usage')
    .set((eb) => ({ reports: eb('reports', '-', 1) }))
    .where('user_id', '=', holder.id)
    .where('period', '=', quotaPeriod(holder, at).key)
    .where('reports', '>', 0)
    .execute();
}
