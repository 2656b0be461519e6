import { percentOf, type ReportAnalysis, type RevenueTrend } from '../report/analysis';
import { describeMetric, inSentence, reportFormat, sentence, type ReportFormat } from '../report/words';
import type { SectionDefinition, SectionId } from '../workflow/stages';
import type { AiProvider, SectionDraft } from './provider';
import { tidyContent, type SectionContent } from './section-content';

/**
 * The deterministic writer: each section in whole sentences from the computed figures, numbers in
 * the report's locale. It is the offline provider, and the text a model's section falls back to
 * when its answer misses the schema twice.
 */

const TREND_WORDS: Record<RevenueTrend, string> = {
  growing: 'steady growth',
  declining: 'a decline',
  flat: 'a broadly flat line',
  volatile: 'volatile revenue',
  'insufficient data': 'too short a history to call a trend',
};

/** "a, b and c". */
function listWords(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const count = (n: number, noun: string) => `${NUMBER_WORDS[n] ?? n} ${noun}${n === 1 ? '' : 's'}`;

function revenueSentences(a: ReportAnalysis, f: ReportFormat): string[] {
  if (!a.years.length) return [`${a.companyName} supplied no revenue history, so this report rests on the qualitative profile.`];
  const first = a.years[0];
  const last = a.years[a.years.length - 1];
  if (a.years.length === 1) return [`Revenue in ${last.year} was ${f.money(last.revenue, a.currency)}; with a single year, growth cannot yet be measured.`];
  const verb = last.revenue > first.revenue ? 'rose' : last.revenue < first.revenue ? 'fell' : 'held';
  return [
    `Revenue ${verb} from ${f.money(first.revenue, a.currency)} in ${first.year} to ${f.money(last.revenue, a.currency)} in ${last.year}` +
      (a.cagrPct !== null ? `, a compound annual growth rate of ${f.percent(a.cagrPct, { signed: true })}.` : '.'),
  ];
}

/** The margin in one sentence, for the summary; the financial analysis gives the detail. */
function marginHeadline(a: ReportAnalysis, f: ReportFormat): string {
  if (a.averageMarginPct === null) return '';
  const change =
    a.marginChangePts === null || a.marginChangePts === 0 ? '' : ` and ${a.marginChangePts > 0 ? 'widened' : 'narrowed'} by ${f.points(a.marginChangePts)}`;
  return `The net margin averaged ${f.percent(a.averageMarginPct)}${change} over the period.`;
}

function marginSentences(a: ReportAnalysis, f: ReportFormat): string[] {
  const margins = a.years.filter((y) => y.marginPct !== null);
  if (!margins.length) return ['No net income was supplied, so margins cannot be assessed.'];
  const first = margins[0];
  const last = margins[margins.length - 1];
  const out = [`The net margin averaged ${f.percent(a.averageMarginPct!)} over the period.`];
  if (a.marginChangePts !== null && margins.length >= 2) {
    out.push(
      a.marginChangePts === 0
        ? `It was unchanged at ${f.percent(last.marginPct!)} between ${first.year} and ${last.year}.`
        : `It ${a.marginChangePts > 0 ? 'widened' : 'narrowed'} by ${f.points(a.marginChangePts)}, from ${f.percent(first.marginPct!)} in ${first.year} to ${f.percent(last.marginPct!)} in ${last.year}.`,
    );
  }
  const losses = a.years.filter((y) => y.netIncome !== null && y.netIncome < 0).map((y) => String(y.year));
  if (losses.length) out.push(`The company closed ${listWords(losses)} with a net loss.`);
  return out;
}

function metricsSentences(a: ReportAnalysis, f: ReportFormat): string[] {
  if (!a.keyMetrics.length) return [];
  const parts = a.keyMetrics.map((m) => `${inSentence(describeMetric(m.name).label)} at ${f.metric(m.name, m.value, a.currency)}`);
  const out = [`The operating metrics supplied put ${listWords(parts)}.`];
  // Gross against net margin: what overheads and other costs take out of each unit of revenue.
  const gross = a.keyMetrics.find((m) => describeMetric(m.name).label === 'Gross margin');
  const last = a.years[a.years.length - 1];
  if (gross && last?.marginPct != null && gross.value > last.marginPct) {
    out.push(
      `With a gross margin of ${f.percent(gross.value)} and a net margin of ${f.percent(last.marginPct)} in ${last.year}, overheads and other costs take about ${f.points(gross.value - last.marginPct)} of revenue, the main lever on profit besides growth.`,
    );
  }
  return out;
}

/** How growth moved from year to year, and whether profit grew faster than revenue. */
function growthPathSentences(a: ReportAnalysis, f: ReportFormat): string[] {
  const growth = a.years.filter((y) => y.growthPct !== null);
  if (!growth.length) return [];
  const steps = growth.map((y) => `${f.percent(y.growthPct!, { signed: true })} in ${y.year}`);
  const out = [`Revenue growth was ${listWords(steps)}.`];
  if (growth.length >= 2) {
    const firstG = growth[0].growthPct!;
    const lastG = growth[growth.length - 1].growthPct!;
    out.push(
      lastG > firstG ? 'Growth accelerated over the period.' : lastG < firstG ? 'Growth slowed over the period.' : 'Growth held steady over the period.',
    );
  }
  if (a.averageGrowthPct !== null && a.growthVolatilityPct !== null) {
    out.push(
      `On average it was ${f.percent(a.averageGrowthPct, { signed: true })} a year, with a standard deviation of ${f.points(a.growthVolatilityPct)}: ${TREND_WORDS[a.trend]}.`,
    );
  }
  return out;
}

function profitSentences(a: ReportAnalysis, f: ReportFormat): string[] {
  const withIncome = a.years.filter((y) => y.netIncome !== null);
  if (withIncome.length < 2) return [];
  const first = withIncome[0];
  const last = withIncome[withIncome.length - 1];
  // A change from a loss, or from under one unit of the currency, is no percentage.
  const incomeChange = percentOf(last.netIncome! - first.netIncome!, first.netIncome!);
  const revenueChange = percentOf(last.revenue - first.revenue, first.revenue);
  if (incomeChange === null || revenueChange === null) return [];
  const comparison =
    incomeChange > revenueChange
      ? 'faster than revenue, so each additional sale is more profitable than the average one'
      : incomeChange < revenueChange
        ? 'more slowly than revenue, so costs are rising faster than sales'
        : 'in step with revenue';
  return [
    `Net income went from ${f.money(first.netIncome!, a.currency)} in ${first.year} to ${f.money(last.netIncome!, a.currency)} in ${last.year} (${f.percent(incomeChange, { signed: true })}, against ${f.percent(revenueChange, { signed: true })} for revenue): it grew ${comparison}.`,
  ];
}

function risksFromFigures(a: ReportAnalysis, f: ReportFormat): string[] {
  return [
    a.trend === 'volatile'
      ? `Revenue is volatile: growth varies by ${f.points(a.growthVolatilityPct ?? 0)} from year to year (standard deviation), which makes planning harder.`
      : '',
    a.trend === 'declining' ? 'Revenue is declining on average, which puts fixed costs and margins under pressure.' : '',
    a.marginChangePts !== null && a.marginChangePts < 0 ? `The net margin narrowed by ${f.points(a.marginChangePts)} over the period.` : '',
    a.years.some((y) => y.netIncome !== null && y.netIncome < 0) ? 'At least one year closed with a net loss.' : '',
  ].filter(Boolean);
}

const WRITERS: Record<SectionId, (a: ReportAnalysis, f: ReportFormat) => SectionContent> = {
  executive_summary: (a, f) => {
    const founded = a.foundedYear ? `, founded in ${a.foundedYear},` : '';
    const staff = a.employees !== null ? ` with ${f.number(a.employees, 0)} employees` : '';
    const opening = `${a.companyName}${founded} operates in the ${a.industryName} sector (NAICS ${a.industryId})${staff}.`;
    const conclusion =
      a.trend === 'growing' && (a.marginChangePts ?? 0) >= 0
        ? 'The business is growing profitably; the question for the coming years is how to add capacity without diluting the margin.'
        : a.trend === 'growing'
          ? 'The business is growing, but the margin is not keeping pace; growth needs to be made profitable.'
          : a.trend === 'insufficient data'
            ? 'A longer revenue history would allow firmer conclusions; the recommendations below rest on the goals and challenges supplied.'
            : `With ${TREND_WORDS[a.trend]}, the priority is to protect the most profitable activities before expanding.`;
    return {
      paragraphs: [
        [opening, a.description ? `In its own words: “${sentence(a.description)}”` : ''].filter(Boolean).join(' '),
        [...revenueSentences(a, f), marginHeadline(a, f)].filter(Boolean).join(' '),
        a.goals.length ? `${conclusion} Its first stated goal is: “${a.goals[0]}”.` : conclusion,
      ],
      bullets: [],
    };
  },
  financial_analysis: (a, f) => {
    const path = growthPathSentences(a, f);
    return {
      paragraphs: [(path.length ? path : revenueSentences(a, f)).join(' '), [...marginSentences(a, f), ...profitSentences(a, f)].join(' ')],
      bullets: [],
    };
  },
  market_position: (a, f) => ({
    paragraphs: [
      [
        `${a.companyName} competes in the ${a.industryName} sector.`,
        a.cagrPct !== null
          ? a.cagrPct >= 5
            ? `Its compound growth of ${f.percent(a.cagrPct, { signed: true })} a year outpaces mature sectors, which typically grow in the low single digits, so it is likely gaining share.`
            : `Its compound growth of ${f.percent(a.cagrPct, { signed: true })} a year is at or below the low single-digit growth typical of mature sectors, so it is holding rather than gaining share.`
          : a.years.length >= 2
            ? 'Its first or last revenue is under one unit of its currency, so its compound growth, and with it its position against the sector, cannot be measured.'
            : 'Without a revenue history, its position against the sector cannot be measured.',
      ].join(' '),
      a.goals.length
        ? `The company has set itself ${count(a.goals.length, 'goal')}, listed below; each depends on keeping its current growth and margin.`
        : 'No goals were supplied; setting two or three measurable goals would give the next review a yardstick.',
    ],
    bullets: a.goals,
  }),
  operations: (a, f) => ({
    paragraphs: [
      [
        a.employees !== null ? `${a.companyName} employs ${f.number(a.employees, 0)} people.` : 'Headcount was not supplied.',
        a.revenuePerEmployee !== null && a.years.length
          ? `In ${a.years[a.years.length - 1].year} each employee generated ${f.money(a.revenuePerEmployee, a.currency)} of revenue.`
          : '',
      ]
        .filter(Boolean)
        .join(' '),
      metricsSentences(a, f).join(' ') ||
        'No key operating metrics were supplied; retention, utilization and margin by service line would sharpen this analysis.',
    ],
    bullets: [],
  }),
  risks_and_challenges: (a, f) => {
    const risks = risksFromFigures(a, f);
    return {
      paragraphs: [
        risks.length ? risks.join(' ') : 'The figures themselves show no acute financial risk: no year closed with a loss and the margin did not narrow.',
        a.challenges.length
          ? `The company reports ${count(a.challenges.length, 'challenge')} of its own, listed below; the recommendations address ${a.challenges.length === 1 ? 'it' : 'them'} first.`
          : 'The company reported no challenges of its own.',
      ],
      bullets: a.challenges,
    };
  },
  recommendations: (a) => {
    const actions = [
      ...a.challenges.slice(0, 3).map((c) => `Address “${c}” with a named owner, a budget and a quarterly milestone.`),
      a.marginChangePts !== null && a.marginChangePts < 0 ? 'Review pricing and the cost of delivery to restore the net margin.' : '',
      a.trend === 'growing'
        ? 'Invest in capacity ahead of demand while growth holds, and review the investment each quarter.'
        : 'Focus on retention and the most profitable segments before expanding.',
      ...a.goals.slice(0, 2).map((g) => `Track progress on “${g}” with one measurable indicator, reviewed every quarter.`),
    ].filter(Boolean);
    return {
      paragraphs: [
        actions.length === 1
          ? 'One action follows from the figures, goals and challenges in this report.'
          : `The following ${count(actions.length, 'action')} follow from the figures, goals and challenges in this report, in order of priority.`,
      ],
      bullets: actions,
    };
  },
};

/** One section in the deterministic writer's words. */
export function deterministicSection(section: SectionDefinition, analysis: ReportAnalysis): SectionContent {
  return tidyContent(WRITERS[section.id](analysis, reportFormat(analysis.locale, 'en')));
}

/** Writes each section deterministically from the figures: same input, same report; no network. */
export class OfflineProvider implements AiProvider {
  readonly name = 'offline' as const;
  readonly offline = true;

  async writeSection(section: SectionDefinition, analysis: ReportAnalysis): Promise<SectionDraft> {
    return { content: deterministicSection(section, analysis), tokensUsed: null, model: 'offline-deterministic-v1' };
  }
}
