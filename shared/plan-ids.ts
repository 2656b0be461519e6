/**
 * The plans, cheapest first: the one list the plan table's schema, the API schemas, the table types,
 * the migrations' checks and the console derive from. A new plan id is a change here (and a
 * migration widening the checks), not a value the plan table may invent.
 */
export const PLAN_IDS = ['free', 'pro', 'enterprise'] as const;

export type Plan = (typeof PLAN_IDS)[number];

export const isPlan = (value: unknown): value is Plan => (PLAN_IDS as readonly unknown[]).includes(value);

/** Where a user's plan comes from: a Stripe subscription, a one-off purchase of one period, or a manual grant. */
export const PLAN_SOURCES = ['subscription', 'one_off', 'manual'] as const;

export type PlanSource = (typeof PLAN_SOURCES)[number];

/** A plan as identity holds it: the plan, when its paid period ends (null: no end) and where it comes from. */
export interface PlanHolding {
  plan: Plan;
  periodEnd: string | null;
  source: PlanSource | null;
}

/**
 * The plan in force at `now`: past the end of its period the user is on free, wherever the plan is
 * read (tokens, the live-session check, the quota), whether or not the expiry timer has run yet.
 */
export function planAt(holding: PlanHolding, now: Date): PlanHolding {
  if (holding.periodEnd === null || Date.parse(holding.periodEnd) > now.getTime()) return holding;
  return { plan: 'free', periodEnd: null, source: null };
}
