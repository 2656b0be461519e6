import { json } from '../../../shared/http/handler';
import { op, type Guard } from '../../../shared/http/route';
import { authorizePlanCaller, updatePlan, type PlanCaller, type PlanChange } from '../plan';

/** The payment service's service token (X-Service + HS256 token), or an admin's access token with admin:users:update. */
export const PLAN_CALLER: Guard<PlanCaller> = {
  describe: 'the payment service (X-Service: payment-service and its service token), or an admin or super_admin holding admin:users:update',
  scheme: {
    name: 'serviceToken',
    definition: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'The service admin token (HS256) with X-Service: payment-service; an admin access token is accepted too',
    },
  },
  refusals: [401, 403],
  check: ({ request, meta }) => authorizePlanCaller(request, meta),
};

export const setPlan = op<PlanCaller, PlanChange, unknown, { userId: string }>(
  "Sets a user's plan (and status when given)",
  async ({ principal, params, body, meta }) => json(200, await updatePlan(principal, params.userId, body, meta)),
);
