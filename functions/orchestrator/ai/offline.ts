import { formatMoney, formatPct, type ReportAnalysis } from '../report/analysis';
import type { SectionDefinition, SectionId } from '../workflow/stages';
import type { AiProvider, SectionDraft } from './provider';

const list = (items: string[]) => items.map((item) => `- ${item}`).join('\n');

function revenueSentence(a: ReportAnalysis): string {
  if (!a.years.length) return `${a.companyName} supplied no revenue history, so the analysis rests on the qualitative profile.`;
  const first = a.years[0];
  const last = a.years[a.years.length - 1];
  if (a.years.length === 1) return `Revenue in ${last.year} was ${formatMoney(last.revenue, a.currency)}.`;
  return `Revenue moved from ${formatMoney(first.revenue, a.currency)} in ${first.year} to ${formatMoney(last.revenue, a.currency)} in ${last.year}, a compound annual growth rate of ${formatPct(a.cagrPct)}; the trend is ${a.trend}.`;
}

const WRITERS: Record<SectionId, (a: ReportAnalysis) => string> = {
  executive_summary: (a) =>
    [
      `${a.companyName} operates in ${a.industryName} (NAICS ${a.industryId})${a.employees !== null ? ` with ${a.employees.toLocaleString('en-US')} employees` : ''}${a.foundedYear ? `, founded in ${a.foundedYear}` : ''}.`,
      a.description ?? '',
      revenueSentence(a),
      a.averageMarginPct !== null ? `The average net margin over the period is ${a.averageMarginPct}%.` : '',
      a.goals.length ? `Its first stated goal is: ${a.goals[0]}.` : '',
    ]
      .filter(Boolean)
      .join(' '),
  financial_analysis: (a) =>
    [
      revenueSentence(a),
      ...a.years.map(
        (y) =>
          `${y.year}: revenue ${formatMoney(y.revenue, a.currency)}, growth ${formatPct(y.growthPct)}${y.marginPct !== null ? `, net margin ${y.marginPct}%` : ''}.`,
      ),
      a.averageGrowthPct !== null
        ? `Average year-over-year growth is ${formatPct(a.averageGrowthPct)} with a volatility (standard deviation) of ${a.growthVolatilityPct ?? 0} points.`
        : '',
      a.marginChangePts !== null
        ? `Net margin ${a.marginChangePts >= 0 ? 'improved' : 'declined'} by ${Math.abs(a.marginChangePts)} points from the first to the last year.`
        : '',
    ]
      .filter(Boolean)
      .join('\n'),
  market_position: (a) =>
    [
      `${a.companyName} competes in the ${a.industryName} sector.`,
      a.cagrPct !== null
        ? `A compound growth of ${formatPct(a.cagrPct)} ${a.cagrPct >= 5 ? 'outpaces a mature sector growing in the low single digits' : 'is at or below the low single-digit growth typical of mature sectors'}.`
        : '',
      a.goals.length ? `Stated goals:\n${list(a.goals)}` : 'No goals were supplied.',
    ]
      .filter(Boolean)
      .join('\n'),
  operations: (a) =>
    [
      a.employees !== null ? `Headcount: ${a.employees.toLocaleString('en-US')}.` : 'Headcount was not supplied.',
      a.revenuePerEmployee !== null ? `Revenue per employee: ${formatMoney(a.revenuePerEmployee, a.currency)}.` : '',
      a.keyMetrics.length
        ? `Key metrics:\n${list(a.keyMetrics.map((m) => `${m.name}: ${m.value.toLocaleString('en-US')}`))}`
        : 'No key operating metrics were supplied.',
    ]
      .filter(Boolean)
      .join('\n'),
  risks_and_challenges: (a) => {
    const risks = [
      a.trend === 'volatile' ? `Revenue is volatile (growth standard deviation ${a.growthVolatilityPct} points), which complicates planning.` : '',
      a.trend === 'declining' ? 'Revenue is declining on average.' : '',
      a.marginChangePts !== null && a.marginChangePts < 0 ? `Net margin fell by ${Math.abs(a.marginChangePts)} points.` : '',
      a.years.some((y) => y.netIncome !== null && y.netIncome < 0) ? 'At least one year closed with a net loss.' : '',
    ].filter(Boolean);
    return [
      a.challenges.length ? `Challenges reported:\n${list(a.challenges)}` : 'No challenges were reported.',
      risks.length ? `Risks in the figures:\n${list(risks)}` : 'The figures show no acute financial risk.',
    ].join('\n');
  },
  recommendations: (a) => {
    const actions = [
      ...a.challenges.slice(0, 3).map((c) => `Address "${c}" with an owner, a budget and a quarterly milestone.`),
      a.marginChangePts !== null && a.marginChangePts < 0 ? 'Review pricing and cost of delivery to restore the net margin.' : '',
      a.trend === 'growing'
        ? 'Invest in capacity ahead of demand while growth holds.'
        : 'Focus on retention and the most profitable segments before expanding.',
      ...a.goals.slice(0, 2).map((g) => `Track progress on "${g}" with one measurable indicator.`),
    ].filter(Boolean);
    return list(actions);
  },
};

/** Writes each section deterministically from the figures: same input, same report; no network. */
export class OfflineProvider implements AiProvider {
  readonly name = 'offline' as const;
  readonly offline = true;

  async writeSection(section: SectionDefinition, analysis: ReportAnalysis): Promise<SectionDraft> {
    return { text: WRITERS[section.id](analysis), tokensUsed: null, model: 'offline-deterministic-v1' };
  }
}
