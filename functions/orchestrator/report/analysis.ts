import { messages } from '../i18n/catalogue';
import { NAICS_SECTORS } from './industries';
import type { ReportRequest } from './submission';
import { DEFAULT_LOCALE, describeMetric, reportFormat } from './words';

export interface YearAnalysis {
  year: number;
  revenue: number;
  netIncome: number | null;
  /** Growth over the previous year in percent; null for the first year, or when the previous year's revenue is under MIN_PERCENT_BASE. */
  growthPct: number | null;
  marginPct: number | null;
}

export type RevenueTrend = 'growing' | 'declining' | 'flat' | 'volatile' | 'insufficient data';

/** Everything the report states about the numbers, computed once in DATA_PREPARATION. */
export interface ReportAnalysis {
  companyName: string;
  /** The report's locale (BCP 47): its language chooses the report's language (i18n/catalogue.ts), the whole locale how numbers and dates are written. */
  locale: string;
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

/**
 * The smallest amount a percentage (growth, margin, compound growth) is taken of: one unit of the
 * currency. Of less (0, or a revenue like 1e-300) the percentage is not computable and the report
 * says so (a dash in the table, no sentence) instead of printing "∞ %" or hundreds of digits.
 */
export const MIN_PERCENT_BASE = 1;

/** `part` as a percentage of `base`; null when the base is under MIN_PERCENT_BASE or the result is not finite. */
export function percentOf(part: number, base: number): number | null {
  if (!(base >= MIN_PERCENT_BASE)) return null;
  return finite((part / base) * 100);
}

const finite = (value: number): number | null => (Number.isFinite(value) ? value : null);
const roundOrNull = (value: number | null) => (value === null ? null : finite(round(value)));

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
    const growthPct = previous ? roundOrNull(percentOf(entry.revenue - previous.revenue, previous.revenue)) : null;
    const marginPct = entry.net_income === undefined ? null : roundOrNull(percentOf(entry.net_income, entry.revenue));
    return { year: entry.year, revenue: entry.revenue, netIncome: entry.net_income ?? null, growthPct, marginPct };
  });
  const growth = years.map((y) => y.growthPct).filter((g): g is number => g !== null);
  const margins = years.map((y) => y.marginPct).filter((m): m is number => m !== null);
  const first = years[0];
  const last = years[years.length - 1];
  const span = first && last ? last.year - first.year : 0;
  const cagrPct =
    first && last && span > 0 && first.revenue >= MIN_PERCENT_BASE && last.revenue >= MIN_PERCENT_BASE
      ? roundOrNull(((last.revenue / first.revenue) ** (1 / span) - 1) * 100)
      : null;
  const volatility = standardDeviation(growth);
  const employees = profile.employees ?? null;
  return {
    companyName: request.company_name,
    locale: request.locale ?? DEFAULT_LOCALE,
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
    growthVolatilityPct: roundOrNull(volatility),
    averageMarginPct: margins.length ? round(mean(margins)!) : null,
    marginChangePts: margins.length >= 2 ? round(margins[margins.length - 1] - margins[0]) : null,
    revenuePerEmployee: last && employees ? Math.round(last.revenue / employees) : null,
    trend: classifyTrend(growth, volatility),
    goals: profile.goals ?? [],
    challenges: profile.challenges ?? [],
    keyMetrics: Object.entries(profile.key_metrics ?? {}).map(([name, value]) => ({ name, value })),
  };
}

export interface Figure {
  label: string;
  value: string;
}

/** The three or four headline figures, labelled in the report's language: the cover, the presentation's key figures and its infographic. */
export function keyFigures(a: ReportAnalysis): Figure[] {
  const f = reportFormat(a.locale);
  const { t } = messages(a.locale);
  const first = a.years[0];
  const last = a.years[a.years.length - 1];
  const figures: (Figure | null)[] = [
    last ? { label: t('figure.revenue', { year: String(last.year) }), value: f.money(last.revenue, a.currency) } : null,
    a.cagrPct !== null ? { label: t('figure.cagr', { from: String(first.year), to: String(last.year) }), value: f.percent(a.cagrPct, { signed: true }) } : null,
    a.averageMarginPct !== null ? { label: t('figure.averageMargin'), value: f.percent(a.averageMarginPct) } : null,
    a.employees !== null ? { label: t('figure.employees'), value: f.number(a.employees, 0) } : null,
  ];
  return figures.filter((x): x is Figure => x !== null);
}

/** The key performance indicators of the executive summary: the latest year's figures and the client's own metrics (none repeats a headline figure). */
export function indicatorFigures(a: ReportAnalysis): Figure[] {
  const f = reportFormat(a.locale);
  const { t, tOr } = messages(a.locale);
  const last = a.years[a.years.length - 1];
  const figures: (Figure | null)[] = [
    last?.growthPct != null ? { label: t('figure.growthYear', { year: String(last.year) }), value: f.percent(last.growthPct, { signed: true }) } : null,
    last?.marginPct != null ? { label: t('figure.marginYear', { year: String(last.year) }), value: f.percent(last.marginPct) } : null,
    a.revenuePerEmployee !== null ? { label: t('figure.revenuePerEmployee'), value: f.money(a.revenuePerEmployee, a.currency) } : null,
    // A known metric's label in the report's language; a key made into words stays in English words.
    ...a.keyMetrics.map((m) => {
      const { label } = describeMetric(m.name);
      return { label: tOr(`metric.${label}`, label), value: f.metric(m.name, m.value, a.currency) };
    }),
  ];
  return figures.filter((x): x is Figure => x !== null).slice(0, 6);
}
