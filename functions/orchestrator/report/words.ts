import { once } from '../../../shared/once';
import type { Language } from '../i18n/catalogue';

/**
 * The message catalogue, loaded with the first report's words rather than with the service: the
 * submit route loads this file for the locale check, and a cold start need not read six catalogues.
 */
const catalogue = () => require('../i18n/catalogue') as typeof import('../i18n/catalogue');
/**
 * The words of the report: labels, units and number formats for the figures a client sends, and the
 * formatting of numbers, amounts and dates for the report's locale. Nothing a client reads is a
 * field name: a known metric has its label and unit from the dictionary below, any other key is
 * turned into words (`avg_contract_value_usd` → "Average contract value (USD)").
 */

/** The locale numbers and dates follow when the request names none. */
export const DEFAULT_LOCALE = 'en-US';

/** How a metric's value reads: a percentage, an amount in the report's currency, a count, a ratio, a score or a duration. */
export type MetricUnit = 'percent' | 'currency' | 'number' | 'ratio' | 'score' | 'days' | 'months';

export interface MetricDefinition {
  label: string;
  unit: MetricUnit;
}

/**
 * Metrics clients commonly send, by key in lower snake case (a key is matched after lower-casing and
 * turning spaces and camelCase into underscores). Labels in American English, the default locale's.
 */
export const METRIC_DICTIONARY: Record<string, MetricDefinition> = {
  gross_margin_pct: { label: 'Gross margin', unit: 'percent' },
  net_margin_pct: { label: 'Net margin', unit: 'percent' },
  operating_margin_pct: { label: 'Operating margin', unit: 'percent' },
  ebitda_margin_pct: { label: 'EBITDA margin', unit: 'percent' },
  customer_retention_pct: { label: 'Customer retention', unit: 'percent' },
  retention_rate_pct: { label: 'Retention rate', unit: 'percent' },
  churn_rate_pct: { label: 'Customer churn', unit: 'percent' },
  churn_pct: { label: 'Customer churn', unit: 'percent' },
  revenue_growth_pct: { label: 'Revenue growth', unit: 'percent' },
  market_share_pct: { label: 'Market share', unit: 'percent' },
  employee_turnover_pct: { label: 'Employee turnover', unit: 'percent' },
  utilization_pct: { label: 'Utilization', unit: 'percent' },
  utilisation_pct: { label: 'Utilization', unit: 'percent' },
  billable_utilization_pct: { label: 'Billable utilization', unit: 'percent' },
  on_time_delivery_pct: { label: 'On-time delivery', unit: 'percent' },
  recurring_revenue_pct: { label: 'Recurring revenue share', unit: 'percent' },
  csat_pct: { label: 'Customer satisfaction', unit: 'percent' },
  nps: { label: 'Net Promoter Score', unit: 'score' },
  net_promoter_score: { label: 'Net Promoter Score', unit: 'score' },
  customers: { label: 'Customers', unit: 'number' },
  customer_count: { label: 'Customers', unit: 'number' },
  active_users: { label: 'Active users', unit: 'number' },
  arr: { label: 'Annual recurring revenue', unit: 'currency' },
  mrr: { label: 'Monthly recurring revenue', unit: 'currency' },
  cac: { label: 'Customer acquisition cost', unit: 'currency' },
  ltv: { label: 'Customer lifetime value', unit: 'currency' },
  clv: { label: 'Customer lifetime value', unit: 'currency' },
  ltv_cac_ratio: { label: 'Lifetime value to acquisition cost', unit: 'ratio' },
  avg_contract_value: { label: 'Average contract value', unit: 'currency' },
  backlog: { label: 'Order backlog', unit: 'currency' },
  order_backlog: { label: 'Order backlog', unit: 'currency' },
  inventory_turnover: { label: 'Inventory turnover', unit: 'ratio' },
  days_sales_outstanding: { label: 'Days sales outstanding', unit: 'days' },
  dso: { label: 'Days sales outstanding', unit: 'days' },
  payback_months: { label: 'Payback period', unit: 'months' },
};

/** Abbreviations spelled out when a key is turned into words. */
const WORDS: Record<string, string> = {
  avg: 'average',
  pct: 'percent',
  num: 'number',
  qty: 'quantity',
  yoy: 'year-over-year',
  mom: 'month-over-month',
  ytd: 'year-to-date',
  rev: 'revenue',
  emp: 'employee',
  cust: 'customer',
  mgmt: 'management',
  ops: 'operations',
  dept: 'department',
  acq: 'acquisition',
  conv: 'conversion',
  util: 'utilization',
  hrs: 'hours',
  yrs: 'years',
};

/** Written in capitals wherever they appear. */
const ACRONYMS: ReadonlySet<string> = new Set([
  'nps',
  'arr',
  'mrr',
  'cac',
  'ltv',
  'clv',
  'roi',
  'roe',
  'roa',
  'ebit',
  'ebitda',
  'kpi',
  'sla',
  'csat',
  'gmv',
  'aov',
  'arpu',
  'sku',
  'it',
  'hr',
  'fte',
  'b2b',
  'b2c',
  'saas',
  'esg',
  'co2',
  'ai',
  'r&d',
  'eu',
  'us',
  'uk',
]);

/** Suffixes that carry the unit rather than the meaning. */
const PERCENT_SUFFIXES: ReadonlySet<string> = new Set(['pct', 'percent', 'percentage']);
const DURATION_SUFFIXES: Record<string, MetricUnit> = { days: 'days', months: 'months' };

/** ISO 4217 codes this Node knows (Intl), so `_usd` and `_eur` read as a currency and `_kpi` does not. */
const currencies = once((): ReadonlySet<string> => new Set(Intl.supportedValuesOf('currency')));
const isCurrencyCode = (token: string): boolean => token.length === 3 && currencies().has(token.toUpperCase());

/** A key's words, lower case: `avgContractValue_USD` and `avg contract value usd` both give avg, contract, value, usd. */
function tokens(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split(/[\s_]+/)
    .filter(Boolean)
    .map((t) => t.toLowerCase());
}

const capitalise = (text: string) => (text ? text[0].toUpperCase() + text.slice(1) : text);

/** A label inside a sentence: "Gross margin" → "gross margin", but "EBITDA margin" and "Net Promoter Score" stay as they are. */
export const inSentence = (label: string) => (/^[A-Z][a-z]/.test(label) && !/^[A-Z][a-z]+ [A-Z]/.test(label) ? label[0].toLowerCase() + label.slice(1) : label);

/** Words from tokens: abbreviations spelled out, acronyms in capitals, the first word capitalised. */
function wordsOf(parts: string[]): string {
  const words = parts.map((t) => (ACRONYMS.has(t) ? t.toUpperCase() : (WORDS[t] ?? t)));
  return capitalise(words.join(' '));
}

/**
 * The label and unit of a metric key: the dictionary's when it knows the key, otherwise words made
 * from the key, with a unit read from its last word (`_pct` percent, `_usd` a currency named in the
 * label, `_days`/`_months` a duration).
 */
export function describeMetric(key: string): MetricDefinition {
  const parts = tokens(key);
  const known = METRIC_DICTIONARY[parts.join('_')];
  if (known) return known;
  const last = parts[parts.length - 1];
  if (parts.length > 1 && PERCENT_SUFFIXES.has(last)) return { label: wordsOf(parts.slice(0, -1)), unit: 'percent' };
  if (parts.length > 1 && isCurrencyCode(last)) return { label: `${wordsOf(parts.slice(0, -1))} (${last.toUpperCase()})`, unit: 'number' };
  if (parts.length > 1 && DURATION_SUFFIXES[last]) return { label: wordsOf(parts.slice(0, -1)), unit: DURATION_SUFFIXES[last] };
  return { label: wordsOf(parts), unit: 'number' };
}

/** A label for a field or metric name: `customer_retention_pct` → "Customer retention". */
export const humanise = (key: string) => describeMetric(key).label;

/** A snake_case word: two or more lower-case parts joined by underscores. */
const SNAKE_CASE = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g;

/** Free text with every snake_case word turned into words (a model echoing a field name reads as prose). */
export const withoutFieldNames = (text: string) => text.replace(SNAKE_CASE, (word) => inSentence(humanise(word)));

/** Runs of spaces, tabs and line ends (not the no-break spaces that keep "38.5 %" on one line). */
export const collapseSpaces = (text: string) => text.replace(/[ \t\r\n\f\v]+/g, ' ').trim();

/** How a sentence ends: a full stop, question or exclamation mark (Latin or ideographic), then closing quotes or brackets. */
export const SENTENCE_END = /[.!?…。！？]["'”’)」』）]*$/;

/** Text as a whole sentence: trimmed, spaces collapsed, a capital first letter and a closing full stop when it has none. */
export function sentence(text: string): string {
  const trimmed = collapseSpaces(text);
  if (!trimmed) return '';
  const closed = SENTENCE_END.test(trimmed) ? trimmed : `${trimmed}${/[\u3040-\u30ff\u3400-\u9fff]$/.test(trimmed) ? '。' : '.'}`;
  return capitalise(closed);
}

/** Numbers, amounts, percentages and dates as the report's locale writes them. */
export interface ReportFormat {
  locale: string;
  /** An amount in a few significant digits with the locale's compact notation: "$4.42M". */
  money(value: number, currency: string): string;
  /** A count or measure with the locale's grouping: "1,250", "3.2". */
  number(value: number, fractionDigits?: number): string;
  /** A value already in percent, with a space before the sign (ISO 80000): "38.5 %"; signed: "+17.7 %". */
  percent(value: number, options?: { signed?: boolean }): string;
  /** A difference of percentages in the format's language: "1.2 percentage points", "1,2 Prozentpunkte". */
  points(value: number): string;
  /** A calendar date in the locale's long style, in UTC: "November 26, 2026". */
  date(value: Date): string;
  /** A metric's value in its unit. */
  metric(key: string, value: number, currency: string): string;
}

const NBSP = '\u00a0';
const roundTo = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * The formats of a locale; units in words ("percentage points", "days") in `language`, by default
 * the locale's report language (the offline writer, which writes English, asks for English words
 * with the locale's numbers).
 */
export function reportFormat(locale: string = DEFAULT_LOCALE, language?: Language): ReportFormat {
  const words = catalogue().messages(locale, language);
  const cache = new Map<string, Intl.NumberFormat>();
  const nf = (key: string, options: Intl.NumberFormatOptions) => {
    let f = cache.get(key);
    if (!f) cache.set(key, (f = new Intl.NumberFormat(locale, options)));
    return f;
  };
  const number = (value: number, fractionDigits = 1) => nf(`n${fractionDigits}`, { maximumFractionDigits: fractionDigits }).format(value);
  const percent = (value: number, options: { signed?: boolean } = {}) =>
    `${nf(`p${options.signed ? 's' : ''}`, { maximumFractionDigits: 1, signDisplay: options.signed ? 'exceptZero' : 'auto' }).format(value)}${NBSP}%`;
  const money = (value: number, currency: string) => {
    if (Math.abs(value) >= 1)
      return nf(`m${currency}`, { style: 'currency', currency, notation: 'compact', minimumSignificantDigits: 3, maximumSignificantDigits: 3 }).format(value);
    // Under one unit, three significant digits would write 1e-300 out to three hundred places: such an
    // amount takes the currency's own decimals ("$0.00", never "-$0.00").
    const cents = nf(`c${currency}`, { style: 'currency', currency });
    return cents.format(Number(value.toFixed(cents.resolvedOptions().maximumFractionDigits)) || 0);
  };
  const dates = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' });
  return {
    locale,
    money,
    number,
    percent,
    // The plural is chosen by the words' language from the rounded number; the number is written as the locale writes it.
    points: (value) => words.t('unit.points', { n: roundTo(Math.abs(value), 1), value: number(Math.abs(value)) }),
    date: (value) => dates.format(value),
    metric(key, value, currency) {
      switch (describeMetric(key).unit) {
        case 'percent':
          return percent(value);
        case 'currency':
          return money(value, currency);
        case 'ratio':
          return `${number(value)}×`;
        case 'days':
          return words.t('unit.days', { n: roundTo(value, 0), value: number(value, 0) });
        case 'months':
          return words.t('unit.months', { n: roundTo(value, 1), value: number(value) });
        case 'score':
          return number(value, 0);
        default:
          return number(value, 2);
      }
    },
  };
}

/** The locale's canonical form when this Node can format numbers and dates for it, else undefined. */
export function supportedLocale(tag: string): string | undefined {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return Intl.NumberFormat.supportedLocalesOf([canonical]).length && Intl.DateTimeFormat.supportedLocalesOf([canonical]).length ? canonical : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The document language (PDF /Lang, the web page's lang) of a report in this locale: its report
 * language (catalogue.ts: de-AT → de, an unknown language → en), in the locale's region when the
 * locale is of that language; Chinese always in its Simplified script's region (zh-CN unless the
 * locale names another).
 */
export function documentLanguage(locale: string): string {
  const { language, region } = new Intl.Locale(locale);
  const written = catalogue().reportLanguage(locale);
  // The typesetter sets ISO 3166 two-letter regions only: a UN M49 area (419 Latin America, 001 the
  // world, 150 Europe) is left out of the document language; numbers and dates still follow the locale.
  if (language === written && region && /^[A-Z]{2}$/.test(region)) return `${written}-${region}`;
  return written === 'zh' ? 'zh-CN' : written;
}
