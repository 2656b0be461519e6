import { config, ConfigError } from '../../shared/config';
import { describeErrors, validator } from '../../shared/http/body';
import type { Plan } from '../../shared/auth/access-token';

export interface PlanDefinition {
  id: Plan;
  name: string;
  /** In the smallest currency unit (cents). */
  price: number;
  currency: string;
  features: string[];
  /** Changes whenever the price changes, so a payment records which price list it was charged under. */
  priceVersion: string;
}

export const DEFAULT_PLANS: readonly PlanDefinition[] = [
  { id: 'free', name: 'Free', price: 0, currency: 'usd', priceVersion: '2026-01', features: ['3 reports per month', 'Standard charts', 'Email support'] },
  { id: 'pro', name: 'Pro', price: 2900, currency: 'usd', priceVersion: '2026-01', features: ['50 reports per month', 'All chart types and infographics', 'PDF and PowerPoint export', 'Priority email support'] },
  {
    id: 'enterprise', name: 'Enterprise', price: 9900, currency: 'usd', priceVersion: '2026-01',
    features: ['Unlimited reports', 'All visual formats and diagrams', 'Custom branding', 'SSO and audit export', 'Dedicated support'],
  },
];

const PLAN_TABLE_SCHEMA = {
  type: 'array',
  minItems: 3,
  maxItems: 3,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'name', 'price', 'currency', 'features', 'priceVersion'],
    properties: {
      id: { enum: ['free', 'pro', 'enterprise'] },
      name: { type: 'string', minLength: 1, maxLength: 100 },
      price: { type: 'integer', minimum: 0 },
      currency: { type: 'string', pattern: '^[a-z]{3}$' },
      features: { type: 'array', items: { type: 'string', maxLength: 200 }, maxItems: 50 },
      priceVersion: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,32}$' },
    },
  },
};

let cached: { source: unknown; plans: readonly PlanDefinition[] } | undefined;

/**
 * The plan table: PLANS_JSON when set (validated; each of free, pro and enterprise exactly once,
 * free at price 0), else the defaults. A bad table is a ConfigError; start() checks it so the host
 * refuses to start rather than failing checkouts.
 */
export function plans(): readonly PlanDefinition[] {
  const source = config().PLANS_JSON;
  if (cached && cached.source === source) return cached.plans;
  let table: readonly PlanDefinition[] = DEFAULT_PLANS;
  if (source !== undefined) {
    const valid = validator<PlanDefinition[]>(PLAN_TABLE_SCHEMA);
    if (!valid(source)) throw new ConfigError(describeErrors(valid.errors).map((e) => `PLANS_JSON: ${e.field} ${e.message}`));
    table = source;
    if (new Set(table.map((p) => p.id)).size !== 3) throw new ConfigError(['PLANS_JSON: must list free, pro and enterprise exactly once']);
    if (table.find((p) => p.id === 'free')!.price !== 0) throw new ConfigError(['PLANS_JSON: the free plan must cost 0']);
    if (table.some((p) => p.id !== 'free' && p.price <= 0)) throw new ConfigError(['PLANS_JSON: paid plans need a positive price']);
  }
  cached = { source, plans: table };
  return table;
}

export function findPlan(id: string): PlanDefinition | undefined {
  return plans().find((p) => p.id === id);
}

export const isPlan = (value: unknown): value is Plan => value === 'free' || value === 'pro' || value === 'enterprise';
