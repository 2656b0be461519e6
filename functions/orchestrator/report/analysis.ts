import { NAICS_SECTORS, type ReportRequest } from './submission';

export interface YearAnalysis {
  year: number;
  revenue: number;
  netIncome: number | null;
  /** Growth over the previous year in percent; null for the first year or after a zero year. */
  growthPct: number | null;
  marginPct: number | null;
}

export type RevenueTrend = 'growing' | 'declining' | 'flat' | 'volatile' | 'insufficient data';

/** Everything the report states about the numbers, computed once in DATA_PREPARATION. */
export interface ReportAnalysis {
  companyName: string;
  industryId: string;
  industryName: string;
  currency: string;
  employees: number | null;
  foundedYear: number | null;
  description: string | null;
  years: YearAnalysis[];
  latestRevenue: number | null;
  cagrPct: number | null;
  averageGrowthPct: number | null;
  growthVolatilityPct: number | null;
  averageMarginPct: number | null;
  marginChangePts: number | null;
  revenuePerEmployee: number | null;
  trend: RevenueTrend;
  goals: string[];
  challenges: string[];
  keyMetrics: { name: string; value: number }[];
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : null);

function standardDeviation(values: number[]): number | null {
  const m = mean(values);
  if (m === null || values.length < 2) return null;
  return Math.sqrt(values.reduce((sum, v) => sum + (v - m) ** 2, 0) / (values.length - 1));
}

function classifyTrend(growth: number[], volatility: number | null): RevenueTrend {
  if (!growth.length) return 'insufficient data';
  if (volatility !== null && volatility > 25) return 'volatile';
  const average = mean(growth)!;
  if (average > 2) return 'growing';
  if (average < -2) return 'declining';
  return 'flat';
}

export function analyse(request: ReportRequest): ReportAnalysis {
  const { profile } = request;
  const history = [...(profile.revenue_history ?? [])].sort((a, b) => a.year - b.year);
  const years: YearAnalysis[] = history.map((entry, i) => {
    const previous = history[i - 1];
    const growthPct = previous && previous.revenue > 0 ? round(((entry.revenue - previous.revenue) / previous.revenue) * 100) : null;
    const marginPct = entry.net_income !== undefined && entry.revenue > 0 ? round((entry.net_income / entry.revenue) * 100) : null;
    return { year: entry.year, revenue: entry.revenue, netIncome: entry.net_income ?? null, growthPct, marginPct };
  });
  const growth = years.map((y) => y.growthPct).filter((g): g is number => g !== null);
  const margins = years.map((y) => y.marginPct).filter((m): m is number => m !== null);
  const first = years[0];
  const last = years[years.length - 1];
  const span = first && last ? last.year - first.year : 0;
  const cagrPct = first && last && span > 0 && first.revenue > 0 && last.revenue > 0 ? round(((last.revenue / first.revenue) ** (1 / span) - 1) * 100) : null;
  const volatility = standardDeviation(growth);
  const employees = profile.employees ?? null;
  return {
    companyName: request.company_name,
    industryId: request.industry_id,
    industryName: NAICS_SECTORS[request.industry_id] ?? request.industry_id,
    currency: profile.currency ?? 'USD',
    employees,
    foundedYear: profile.founded_year ?? null,
    description: profile.description ?? null,
    years,
    latestRevenue: last?.revenue ?? null,
    cagrPct,
    averageGrowthPct: growth.length ? round(mean(growth)!) : null,
    growthVolatilityPct: volatility === null ? null : round(volatility),
    averageMarginPct: margins.length ? round(mean(margins)!) : null,
    marginChangePts: margins.length >= 2 ? round(margins[margins.length - 1] - margins[0]) : null,
    revenuePerEmployee: last && employees ? Math.round(last.revenue / employees) : null,
    trend: classifyTrend(growth, volatility),
    goals: profile.goals ?? [],
    challenges: profile.challenges ?? [],
    keyMetrics: Object.entries(profile.key_metrics ?? {}).map(([name, value]) => ({ name, value })),
  };
}

export function formatMoney(value: number, currency: string): string {
  const abs = Math.abs(value);
  const [scaled, suffix] = abs >= 1e9 ? [value / 1e9, 'B'] : abs >= 1e6 ? [value / 1e6, 'M'] : abs >= 1e3 ? [value / 1e3, 'K'] : [value, ''];
  return `${currency} ${round(scaled, 2).toLocaleString('en-US')}${suffix}`;
}

export const formatPct = (value: number | null) => (value === null ? 'n/a' : `${value > 0 ? '+' : ''}${value}%`);

/** The headline figures (KPI infographic, cover page, presentation). */
export function keyFigures(a: ReportAnalysis): { label: string; value: string }[] {
  const figures = [
    { label: 'Latest revenue', value: a.latestRevenue === null ? 'n/a' : formatMoney(a.latestRevenue, a.currency) },
    { label: 'Revenue CAGR', value: formatPct(a.cagrPct) },
    { label: 'Average net margin', value: a.averageMarginPct === null ? 'n/a' : `${a.averageMarginPct}%` },
    { label: 'Employees', value: a.employees === null ? 'n/a' : a.employees.toLocaleString('en-US') },
    { label: 'Revenue per employee', value: a.revenuePerEmployee === null ? 'n/a' : formatMoney(a.revenuePerEmployee, a.currency) },
  ];
  return [...figures, ...a.keyMetrics.slice(0, 3).map((m) => ({ label: m.name, value: m.value.toLocaleString('en-US') }))];
}
