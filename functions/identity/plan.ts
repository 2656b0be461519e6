import type { HttpRequest } from '@azure/functions';
import type { Kysely } from 'kysely';
import type { Plan, UserStatus } from '../../shared/auth/access-token';
import { ServiceTokenError, verifyServiceToken } from '../../shared/auth/service-token';
import { bearerToken } from '../../shared/auth/access-token';
import { config } from '../../shared/config';
import { HttpError, notFound } from '../../shared/http/errors';
import { audit, type Actor, type RequestMeta } from './audit';
import { adminActor, authenticate, requireAdminPermission, userActor } from './guards';
import { revokeUserSessions } from './sessions';
import { identityDb, type IdentityTables } from './tables';
import { toIso } from '../../shared/sql/dialect';
import { param, precompiled } from '../../shared/sql/precompiled';

const invalidServiceToken = (message: string) => new HttpError(401, 'Invalid service token', message, 'AUTH_SERVICE_TOKEN_INVALID');

/** Who may call the plan endpoint: spec 5.1's two modes. */
export interface PlanCaller {
  actor: Actor;
  /** updatedBy when the body leaves it out. */
  defaultUpdatedBy: string;
}

/**
 * Service-token mode when X-Service names the payment service: the token must carry the fixed
 * header prefix and, beyond the spec, a valid HS256 signature (current or previous secret) and the
 * right claims. Any other call is admin-JWT mode with admin:users:update.
 */
export async function authorizePlanCaller(request: HttpRequest, meta: RequestMeta): Promise<PlanCaller> {
  const cfg = config();
  if (request.headers.get('x-service') === cfg.PAYMENT_SERVICE_ID) {
    const token = bearerToken(request);
    try {
      if (!token) throw new ServiceTokenError('no Bearer token');
      verifyServiceToken(token, {
        secrets: [cfg.SERVICE_TOKEN_SECRET, cfg.SERVICE_TOKEN_SECRET_PREVIOUS].filter((s): s is string => Boolean(s)),
        issuer: cfg.PAYMENT_SERVICE_ID,
        audience: cfg.IDENTITY_SERVICE_ID,
        requiredPermission: 'admin:users:update',
      });
    } catch (error) {
      const reason = error instanceof ServiceTokenError ? error.message : 'token is malformed';
      await audit(meta, { actor: { type: 'service', id: cfg.PAYMENT_SERVICE_ID }, action: 'user.plan.update', target: { type: 'user', id: request.params.userId ?? null }, result: 'failure', reason: `service_token: ${reason}` });
      throw invalidServiceToken(`The service token is not valid: ${reason}`);
    }
    return { actor: { type: 'service', id: cfg.PAYMENT_SERVICE_ID }, defaultUpdatedBy: cfg.PAYMENT_SERVICE_ID };
  }
  const auth = await authenticate(request);
  try {
    requireAdminPermission(auth, 'admin:users:update');
  } catch (error) {
    await audit(meta, { actor: userActor(auth), action: 'user.plan.update', target: { type: 'user', id: request.params.userId ?? null }, result: 'failure', reason: (error as HttpError).code });
    throw error;
  }
  return { actor: adminActor(auth), defaultUpdatedBy: auth.user.email };
}

export interface PlanChange {
  plan: Plan;
  status?: UserStatus;
  updatedBy?: string;
  timestamp?: string;
}

// Payment syncs call this for every successful payment: both statements are compiled once.
const selectPlan = precompiled((database: Kysely<IdentityTables>) => database.selectFrom('users').select(['plan', 'status']).where('id', '=', param('userId')));
const writePlan = precompiled((database: Kysely<IdentityTables>) =>
  database
    .updateTable('users')
    .set({ plan: param<Plan>('plan'), status: param<UserStatus>('status'), updated_at: param('updatedAt') })
    .where('id', '=', param('userId')),
);

/** Sets plan (and status when given) with updated_at, in one transaction with its audit entry. */
export async function updatePlan(caller: PlanCaller, userId: string, change: PlanChange, meta: RequestMeta) {
  const updatedBy = change.updatedBy ?? caller.defaultUpdatedBy;
  const result = await identityDb()
    .transaction()
    .execute(async (trx) => {
      const [before] = await selectPlan.execute({ userId }, trx);
      if (!before) return undefined;
      const status = change.status ?? before.status;
      const updatedAt = new Date().toISOString();
      await writePlan.execute({ userId, plan: change.plan, status, updatedAt }, trx);
      const revokedSessions = status === 'inactive' && before.status === 'active' ? await revokeUserSessions(userId, 'user_deactivated', trx) : 0;
      await audit(
        meta,
        {
          actor: caller.actor,
          action: 'user.plan.update',
          target: { type: 'user', id: userId },
          result: 'success',
          details: { from: { plan: before.plan, status: before.status }, to: { plan: change.plan, status }, updatedBy, ...(change.timestamp ? { requestTimestamp: change.timestamp } : {}), ...(revokedSessions ? { revokedSessions } : {}) },
        },
        trx,
      );
      return { plan: change.plan, status, updatedAt };
    });
  if (!result) {
    await audit(meta, { actor: caller.actor, action: 'user.plan.update', target: { type: 'user', id: userId }, result: 'failure', reason: 'user_not_found' });
    throw notFound(`No user has id ${userId}`, 'USER_NOT_FOUND');
  }
  return { success: true, message: 'User plan updated', userId, plan: result.plan, status: result.status, updatedBy, timestamp: toIso(result.updatedAt)! };
}
