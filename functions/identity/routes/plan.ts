import type { HttpFunction } from '../../../shared/functions';
import { readJson } from '../../../shared/http/body';
import { http, json } from '../../../shared/http/handler';
import { requestMeta } from '../guards';
import { authorizePlanCaller, updatePlan, type PlanChange } from '../plan';

/** Spec 4.1: plan required; status optional (unchanged when omitted); updatedBy and timestamp optional. */
const PLAN_BODY = {
  type: 'object',
  required: ['plan'],
  additionalProperties: false,
  properties: {
    plan: { enum: ['free', 'pro', 'enterprise'] },
    status: { enum: ['active', 'inactive'] },
    updatedBy: { type: 'string', minLength: 1, maxLength: 200 },
    timestamp: { type: 'string', format: 'date-time', maxLength: 40 },
  },
} as const;

const setPlan = http('identity', async (request, { requestId }) => {
  const meta = requestMeta(request, requestId);
  const caller = await authorizePlanCaller(request, meta);
  const change = await readJson<PlanChange>(request, PLAN_BODY, 4 * 1024);
  return json(200, await updatePlan(caller, request.params.userId, change, meta));
});

export const planFunctions: HttpFunction[] = [
  { kind: 'http', name: 'identity-user-plan', route: 'identity/admin/users/{userId}/plan', methods: ['PUT'], handler: setPlan },
];
