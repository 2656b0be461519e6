import { json } from '../../../shared/http/handler';
import type { Infer } from '../../../shared/http/schemas';
import { op } from '../context';
import type { PlanCaller } from '../guards';
import { updatePlan } from '../plan';
import type * as s from '../schemas';

export const setPlan = op<PlanCaller, Infer<typeof s.PLAN_BODY>, unknown, Infer<typeof s.USER_ID_PARAM>>(
  "Sets a user's plan (and status when given)",
  async ({ ctx, principal, params, body, meta }) => json(200, await updatePlan(ctx, principal, params.userId, body, meta)),
);
