import { json } from '../../../shared/http/handler';
import { op } from '../../../shared/http/route';
import { updatePlan, type PlanChange } from '../plan';
import type { PlanCaller } from '../guards';

export const setPlan = op<PlanCaller, PlanChange, unknown, { userId: string }>(
  "Sets a user's plan (and status when given)",
  async ({ principal, params, body, meta }) => json(200, await updatePlan(principal, params.userId, body, meta)),
);
