import { config, ConfigError } from './config';
import { describeErrors, validator } from './http/body';
import { onceEach } from './once';
import { PLAN_IDS, type Plan } from './plan-ids';

export { isPlan } from './plan-ids';

/** One row of the plan table: what payment sells and charges, and what the orchestrator enforces. */
export interface PlanDefinition {
  id: Plan;
  name: string;
  /** In the smallest currency unit (cents). */
  price: number;
  currency: string;
  /** Reports a user may request per calendar month (UTC); null is unlimited. The advertised line is made from it. */
  reportsPerMonth: number | null;
  /** Every other advertised feature. */
  features: string[];
  /** Changes whenever the price changes, so a payment records which price list it was charged under. */
  priceVersion: string;
}

/**
 * The plan table sold by default. Every feature line is a promise to a buyer and states what the
 * code does for that plan: the sections and the presentation follow the orchestrator's PLAN_REPORTS
 * (functions/orchestrator/workflow/stages.ts; shared/ cannot import it, so the lines are text), and
 * tests/payment/plan-promises.test.ts proves each line over HTTP for a buyer of that plan and fails
 * on a line it has no proof for. Nothing that is not built (branding, SSO) and no support promise
 * (the software cannot prove one) is advertised.
 */
export const DEFAULT_PLANS: readonly PlanDefinition[] = [
  {
    id: 'free',
    name: 'Free',
    price: 0,
    currency: 'usd',
    priceVersion: '2026-01',
    reportsPerMonth: 3,
    features: ['Short report: Executive Summary, Financial Analysis and Recommendations', 'PDF download'],
  },
  {
    id: 'pro',
    name: 'Pro',
    price: 2900,
    currency: 'usd',
    priceVersion: '2026-01',
    reportsPerMonth: 50,
    features: ['Full report: all 6 sections', 'PDF download'],
  },
  {
    id: 'enterprise',
    name: 'Enterprise',
    price: 9900,
    currency: 'usd',
    priceVersion: '2026-01',
    reportsPerMonth: null,
    features: ['Full report: all 6 sections', 'PDF download', 'PowerPoint presentation of each report'],
  },
];

/** The advertised quota line: written from the number the orchestrator enforces, so the two cannot disagree. */
export const quotaFeature = (plan: Pick<PlanDefinition, 'reportsPerMonth'>) =>
  plan.reportsPerMonth === null ? 'Unlimited reports' : `${plan.reportsPerMonth} report${plan.reportsPerMonth === 1 ? '' : 's'} per month`;

/** A plan as GET /payment/plans advertises it: the quota line first, then the other features. */
export const advertisedPlan = (plan: PlanDefinition) => ({ ...plan, features: [quotaFeature(plan), ...plan.features] });

/** A feature line that speaks of report counts ("reports ... per month", "unlimited reports") would compete with the quota line. */
const REPORT_WORD = /\breports?\b/i;
const PER_PERIOD = /\b(?:per|a|each|every)\s+(?:month|year|week|day)\b/i;
const UNLIMITED_REPORTS = /\bunlimited reports?\b/i;
function mentionsQuota(feature: string): boolean {
  const at = feature.search(REPORT_WORD);
  return (at >= 0 && PER_PERIOD.test(feature.slice(at))) || UNLIMITED_REPORTS.test(feature);
}

export const PLAN_TABLE_SCHEMA = {
  type: 'array',
  minItems: PLAN_IDS.length,
  maxItems: PLAN_IDS.length,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'name', 'price', 'currency', 'reportsPerMonth', 'features', 'priceVersion'],
    properties: {
      id: { enum: [...PLAN_IDS] },
      name: { type: 'string', minLength: 1, maxLength: 100 },
      price: { type: 'integer', minimum: 0 },
      currency: { type: 'string', pattern: '^[a-z]{3}$' },
      reportsPerMonth: { type: ['integer', 'null'], minimum: 0, maximum: 1_000_000 },
      features: { type: 'array', items: { type: 'string', maxLength: 200 }, maxItems: 50 },
      priceVersion: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,32}$' },
    },
  },
};

/**
 * The plan table: PLANS_JSON when set (validated; each of free, pro and enterprise exactly once,
 * free at price 0, quotas only in reportsPerMonth), else the defaults. A bad table is a
 * ConfigError; the services check it at start so the host refuses to start rather than failing
 * checkouts or report requests.
 */
export function plans(): readonly PlanDefinition[] {
  return planTable(config().PLANS_JSON);
}

/** Each PLANS_JSON value is parsed once (a ConfigError is not kept: it is thrown again). */
export const planTable = onceEach((source: unknown) => parsePlanTable(source));

/** The plan table of a PLANS_JSON value (undefined: the defaults), or a ConfigError naming every problem. */
export function parsePlanTable(source: unknown): readonly PlanDefinition[] {
  if (source === undefined) return DEFAULT_PLANS;
  const valid = validator<PlanDefinition[]>(PLAN_TABLE_SCHEMA);
  if (!valid(source)) throw new ConfigError(describeErrors(valid.errors).map((e) => `PLANS_JSON: ${e.field} ${e.message}`));
  const table = source;
  if (new Set(table.map((p) => p.id)).size !== PLAN_IDS.length)
    throw new ConfigError([`PLANS_JSON: must list ${PLAN_IDS.slice(0, -1).join(', ')} and ${PLAN_IDS.at(-1)} exactly once`]);
  if (table.find((p) => p.id === 'free')!.price !== 0) throw new ConfigError(['PLANS_JSON: the free plan must cost 0']);
  if (table.some((p) => p.id !== 'free' && p.price <= 0)) throw new ConfigError(['PLANS_JSON: paid plans need a positive price']);
  const competing = table.flatMap((p) => p.features.filter(mentionsQuota).map((f) => `${p.id}: "${f}"`));
  if (competing.length) throw new ConfigError([`PLANS_JSON: report quotas come from reportsPerMonth; remove these feature lines: ${competing.join(', ')}`]);
  return table;
}

export function findPlan(id: string): PlanDefinition | undefined {
  return plans().find((p) => p.id === id);
}
