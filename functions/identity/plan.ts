import type { HttpRequest } from '@azure/functions';
import type { Kysely } from 'kysely';
import type { Plan, UserStatus } from '../../shared/auth/access-token';
import { ServiceTokenError, verifyServiceToken } from '../../shared/auth/service-token';
import { bearerToken } from '../../shared/auth/access-token';
import { config } from '../../shared/config';
import { badRequest, Code, conflict, forbidden, HttpError, notFound, unauthorized } from '../../shared/http/errors';
import { audit, type Actor, type RequestMeta } from './audit';
import { adminActor, authenticate, requireAdminPermission, userActor } from './guards';
import { findRole, isPrivilegedRole } from './roles';
import { revokeUserSessions } from './sessions';
import { identityDb, type IdentityTables } from './tables';
import { authorizeAccountChange, type AdminActor } from './user-admin';
import type { UserRow } from './users';
import { toIso } from '../../shared/sql/dialect';
import { param, precompiled } from '../../shared/sql/precompiled';

const invalidServiceToken = (message: string) => unauthorized(message, Code.AUTH_SERVICE_TOKEN_INVALID);

/**
 * Who may call the plan endpoint, in one of two modes: the payment service (service token), or an
 * admin (access token), whose change obeys the same account rules as PATCH /admin/users/{id}.
 */
export interface PlanCaller {
  actor: Actor;
  /** updatedBy when the body leaves it out. */
  defaultUpdatedBy: string;
  /** Set in admin mode. */
  admin?: AdminActor;
}

/**
 * Service-token mode when X-Service names the payment service: the token must carry the fixed
 * header prefix and, more than the prefix alone, a valid HS256 signature (current or previous
 * secret) and the right claims. Any other call is admin-JWT mode with admin:users:update.
 */
export async function authorizePlanCaller(request: HttpRequest, meta: RequestMeta): Promise<PlanCaller> {
  const cfg = config();
  if (request.headers.get('x-service') === cfg.PAYMENT_SERVICE_ID) {
    const token = bearerToken(request);
    try {
      if (!token) throw new ServiceTokenError('no Bearer token');
      await verifyServiceToken(token, {
        secrets: [cfg.SERVICE_TOKEN_SECRET, cfg.SERVICE_TOKEN_SECRET_PREVIOUS].filter((s): s is string => Boolean(s)),
        issuer: cfg.PAYMENT_SERVICE_ID,
        audience: cfg.IDENTITY_SERVICE_ID,
        requiredPermission: 'admin:users:update',
      });
    } catch (error) {
      const reason = error instanceof ServiceTokenError ? error.message : 'token is malformed';
      await audit(meta, {
        actor: { type: 'service', id: cfg.PAYMENT_SERVICE_ID },
        action: 'user.plan.update',
        target: { type: 'user', id: request.params.userId ?? null },
        result: 'failure',
        reason: `service_token: ${reason}`,
      });
      throw invalidServiceToken(`The service token is not valid: ${reason}`);
    }
    return { actor: { type: 'service', id: cfg.PAYMENT_SERVICE_ID }, defaultUpdatedBy: cfg.PAYMENT_SERVICE_ID };
  }
  const auth = await authenticate(request);
  try {
    requireAdminPermission(auth, 'admin:users:update');
  } catch (error) {
    await audit(meta, {
      actor: userActor(auth),
      action: 'user.plan.update',
      target: { type: 'user', id: request.params.userId ?? null },
      result: 'failure',
      reason: (error as HttpError).code,
    });
    throw error;
  }
  return { actor: adminActor(auth), defaultUpdatedBy: auth.user.email, admin: { actor: adminActor(auth), user: auth.user } };
}

export interface PlanChange {
  plan: Plan;
  status?: UserStatus;
  updatedBy?: string;
  timestamp?: string;
}

// Payment syncs call this for every successful payment: both statements are compiled once.
const selectTarget = precompiled((database: Kysely<IdentityTables>) => database.selectFrom('users').selectAll().where('id', '=', param('userId')));
const writePlan = precompiled((database: Kysely<IdentityTables>) =>
  database
    .updateTable('users')
    .set({ plan: param<Plan>('plan'), status: param<UserStatus>('status'), updated_at: param('updatedAt'), plan_request_at: param('requestAt') })
    .where('id', '=', param('userId')),
);

/**
 * Who may make this change. An admin follows the account rules of every admin route; the payment
 * service sets plans of anyone but may never deactivate an admin or super_admin account.
 */
async function authorizeChange(caller: PlanCaller, target: UserRow, status: UserStatus, executor: Kysely<IdentityTables>): Promise<void> {
  if (caller.admin) return authorizeAccountChange(caller.admin, target, { status }, executor);
  if (status === 'inactive' && target.status === 'active' && isPrivilegedRole(await findRole(target.role))) {
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
export async function updatePlan(caller: PlanCaller, userId: string, change: PlanChange, meta: RequestMeta) {
  const updatedBy = change.updatedBy ?? caller.defaultUpdatedBy;
  const result = await identityDb()
    .transaction()
    .execute(async (trx) => {
      const [before] = await selectTarget.execute({ userId }, trx);
      if (!before) throw notFound(`No user has id ${userId}`, Code.USER_NOT_FOUND);
      const status = change.status ?? before.status;
      await authorizeChange(caller, before, status, trx);
      const now = new Date();
      const updatedAt = now.toISOString();
      const requestAt = change.timestamp ? requestTime(change.timestamp, now) : updatedAt;
      // A request time beyond the allowed skew, stored before this rule, orders nothing: it would pin the plan forever.
      const lastRequestAt = toIso(before.plan_request_at);
      if (lastRequestAt && requestAt < lastRequestAt && Date.parse(lastRequestAt) <= now.getTime() + MAX_CLOCK_SKEW_MS) {
        throw conflict(`A newer plan update (requested at ${lastRequestAt}) was already applied`, Code.PLAN_UPDATE_STALE, {
          current: { userId, plan: before.plan, status: before.status, requestedAt: lastRequestAt },
        });
      }
      await writePlan.execute({ userId, plan: change.plan, status, updatedAt, requestAt }, trx);
      const revokedSessions = status === 'inactive' && before.status === 'active' ? await revokeUserSessions(userId, 'user_deactivated', trx) : 0;
      await audit(
        meta,
        {
          actor: caller.actor,
          action: 'user.plan.update',
          target: { type: 'user', id: userId },
          result: 'success',
          details: {
            from: { plan: before.plan, status: before.status },
            to: { plan: change.plan, status },
            updatedBy,
            ...(change.timestamp ? { requestTimestamp: change.timestamp } : {}),
            ...(revokedSessions ? { revokedSessions } : {}),
          },
        },
        trx,
      );
      return { plan: change.plan, status, updatedAt };
    })
    .catch(async (error) => {
      if (error instanceof HttpError)
        await audit(meta, { actor: caller.actor, action: 'user.plan.update', target: { type: 'user', id: userId }, result: 'failure', reason: error.code });
      throw error;
    });
  return { success: true, message: 'User plan updated', userId, plan: result.plan, status: result.status, updatedBy, timestamp: toIso(result.updatedAt)! };
}
