import type { Kysely } from 'kysely';
import type { Plan, UserStatus } from '../../shared/auth/access-token';
import type { PlanSource } from '../../shared/plan-ids';
import { badRequest, Code, conflict, forbidden, notFound } from '../../shared/http/errors';
import { audit, auditRefusal, type RequestMeta } from './audit';
import type { IdentityContext } from './context';
import type { PlanCaller } from './guards';
import { findRole, isPrivilegedRole, type RoleSource } from './roles';
import { revokeUserSessions } from './sessions';
import type { IdentityTables } from './db/tables';
import { authorizeAccountChange } from './user-admin';
import type { UserRow } from './users';
import { toIso } from '../../shared/sql/dialect';
import { param, precompiled } from '../../shared/sql/precompiled';
import type { Infer } from '../../shared/http/schemas';
import type { PLAN_BODY } from './schemas';

// Payment syncs call this for every successful payment: both statements are compiled once.
const selectTarget = precompiled((database: Kysely<IdentityTables>) => database.selectFrom('users').selectAll().where('id', '=', param('userId')));
const writePlan = precompiled((database: Kysely<IdentityTables>) =>
  database
    .updateTable('users')
    .set({
      plan: param<Plan>('plan'),
      plan_period_end: param<string | null>('periodEnd'),
      plan_source: param<PlanSource>('source'),
      status: param<UserStatus>('status'),
      updated_at: param('updatedAt'),
      plan_request_at: param('requestAt'),
    })
    .where('id', '=', param('userId')),
);

/**
 * Who may make this change. An admin follows the account rules of every admin route; the payment
 * service sets plans of anyone but may never deactivate an admin or super_admin account.
 */
async function authorizeChange(ctx: RoleSource, caller: PlanCaller, target: UserRow, status: UserStatus, executor: Kysely<IdentityTables>): Promise<void> {
  if (caller.admin) return authorizeAccountChange(ctx, caller.admin, target, { status }, executor);
  if (status === 'inactive' && target.status === 'active' && isPrivilegedRole(await findRole(ctx, target.role))) {
    throw forbidden(`The payment service cannot deactivate a user with the ${target.role} role`, Code.PRIVILEGED_ACCOUNT);
  }
}

/**
 * How far ahead of this server's clock a plan update's timestamp may be: callers' clocks drift by
 * seconds, not minutes. A timestamp further ahead would order every later update (a payment's
 * included) as older, pinning the plan until that time.
 */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

function requestTime(timestamp: string, now: Date): string {
  const at = new Date(timestamp);
  if (at.getTime() > now.getTime() + MAX_CLOCK_SKEW_MS) {
    throw badRequest(
      `timestamp ${timestamp} is more than ${MAX_CLOCK_SKEW_MS / 60_000} minutes ahead of the server clock (${now.toISOString()})`,
      Code.PLAN_TIMESTAMP_IN_FUTURE,
      { field: 'timestamp', maxSkewSeconds: MAX_CLOCK_SKEW_MS / 1000 },
    );
  }
  return at.toISOString();
}

/**
 * Sets plan (and status when given) with updated_at, in one transaction with its audit entry. Plan
 * updates are ordered by their request time (the body's timestamp, else the time of arrival): one
 * older than the last applied for this user is refused with 409 and the current plan, so a slow
 * sync can never overwrite a newer one.
 */
export async function updatePlan(ctx: IdentityContext, caller: PlanCaller, userId: string, change: Infer<typeof PLAN_BODY>, meta: RequestMeta) {
  const updatedBy = change.updatedBy ?? caller.defaultUpdatedBy;
  const entry = { actor: caller.actor, action: 'user.plan.update', target: { type: 'user', id: userId } };
  // A refusal is audited after its transaction rolled back; a success commits with its entry.
  const result = await auditRefusal(ctx, meta, entry, () =>
    ctx.db.transaction().execute(async (trx) => {
      const [before] = await selectTarget.execute({ userId }, trx);
      if (!before) throw notFound(`No user has id ${userId}`, Code.USER_NOT_FOUND);
      const status = change.status ?? before.status;
      await authorizeChange(ctx, caller, before, status, trx);
      const now = ctx.now();
      const updatedAt = now.toISOString();
      const requestAt = change.timestamp ? requestTime(change.timestamp, now) : updatedAt;
      // A request time beyond the allowed skew, stored before this rule, orders nothing: it would pin the plan forever.
      const lastRequestAt = toIso(before.plan_request_at);
      if (lastRequestAt && requestAt < lastRequestAt && Date.parse(lastRequestAt) <= now.getTime() + MAX_CLOCK_SKEW_MS) {
        throw conflict(`A newer plan update (requested at ${lastRequestAt}) was already applied`, Code.PLAN_UPDATE_STALE, {
          current: { userId, plan: before.plan, status: before.status, requestedAt: lastRequestAt },
        });
      }
      // Free has no period; a plan without an end is held until changed (a manual grant, or a payment made before periods).
      const periodEnd = change.plan === 'free' || !change.periodEnd ? null : new Date(change.periodEnd as string).toISOString();
      const source = change.source ?? 'manual';
      await writePlan.execute({ userId, plan: change.plan, periodEnd, source, status, updatedAt, requestAt }, trx);
      const revokedSessions = status === 'inactive' && before.status === 'active' ? await revokeUserSessions(ctx, userId, 'user_deactivated', trx) : 0;
      await audit(
        ctx,
        meta,
        {
          ...entry,
          result: 'success',
          details: {
            from: { plan: before.plan, periodEnd: toIso(before.plan_period_end), source: before.plan_source, status: before.status },
            to: { plan: change.plan, periodEnd, source, status },
            updatedBy,
            ...(change.timestamp ? { requestTimestamp: change.timestamp } : {}),
            ...(revokedSessions ? { revokedSessions } : {}),
          },
        },
        trx,
      );
      return { plan: change.plan, periodEnd, source, status, updatedAt };
    }),
  );
  return {
    success: true,
    message: 'User plan updated',
    userId,
    plan: result.plan,
    planPeriodEnd: result.periodEnd,
    planSource: result.source,
    status: result.status,
    updatedBy,
    timestamp: toIso(result.updatedAt)!,
  };
}
