/**
 * The plans, cheapest first: the one list the plan table's schema, the API schemas, the table types,
 * the migrations' checks and the console derive from. A new plan id is a change here (and a
 * migration widening the checks), not a value the plan table may invent.
 */
export const PLAN_IDS = ['free', 'pro', 'enterprise'] as const;

export type Plan = (typeof PLAN_IDS)[number];

export const isPlan = (value: unknown): value is Plan => (PLAN_IDS as readonly unknown[]).includes(value);
