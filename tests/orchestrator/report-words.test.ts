import { deterministicSection } from '../../functions/orchestrator/ai/offline';
import { promptFacts } from '../../functions/orchestrator/ai/openai';
import { reportModel } from '../../functions/orchestrator/report/pdf';
import { checkSectionContent } from '../../functions/orchestrator/ai/section-content';
import { analyse, indicatorFigures, keyFigures } from '../../functions/orchestrator/report/analysis';
import { fontFallback, fontsDraw, FULLY_COVERED_BLOCKS } from '../../functions/orchestrator/report/report-fonts';
import { checkReportRequest } from '../../functions/orchestrator/report/submission';
import { reportCharts } from '../../functions/orchestrator/report/visuals';
import { describeMetric, documentLanguage, reportFormat, sentence, withoutFieldNames } from '../../functions/orchestrator/report/words';
import { SECTIONS } from '../../functions/orchestrator/workflow/stages';
import { demoReportRequest } from '../../scripts/demo-profile';
import { ACME } from './helpers';

const NBSP = '\u00a0';
/** Text as a reader compares it: no-break spaces as spaces. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

describe('the words of the report', () => {
  it('labels known metrics from the dictionary and formats them in their unit', () => {
    const f = reportFormat();
    expect(describeMetric('gross_margin_pct')).toEqual({ label: 'Gross margin', unit: 'percent' });
    expect(plain(`${describeMetric('gross_margin_pct').label} ${f.metric('gross_margin_pct', 38.5, 'USD')}`)).toBe('Gross margin 38.5 %');
    expect(f.metric('arr', 2_500_000, 'EUR')).toBe('€2.50M');
    expect(f.metric('nps', 41.6, 'USD')).toBe('42');
    expect(f.metric('dso', 45, 'USD')).toBe('45 days');
    // Spaces and camelCase in a key are read as word breaks before the dictionary is asked.
    expect(describeMetric('Customer Retention pct').label).toBe('Customer retention');
    expect(describeMetric('ebitdaMarginPct').label).toBe('EBITDA margin');
  });

  it('turns unknown keys into words, reading the unit from the last word', () => {
    expect(describeMetric('avg_contract_value_usd')).toEqual({ label: 'Average contract value (USD)', unit: 'number' });
    expect(describeMetric('field_staff_utilisation_pct')).toEqual({ label: 'Field staff utilisation', unit: 'percent' });
    expect(describeMetric('onboarding_days')).toEqual({ label: 'Onboarding', unit: 'days' });
    expect(describeMetric('yoy_sku_count')).toEqual({ label: 'Year-over-year SKU count', unit: 'number' });
    // A three-letter last word that is no currency stays a word.
    expect(describeMetric('open_kpi').label).toBe('Open KPI');
  });

  it('formats numbers, amounts and dates for the locale, en-US by default', () => {
    const us = reportFormat();
    const de = reportFormat('de-DE');
    const day = new Date('2026-11-26T23:30:00Z');
    expect(plain(us.percent(17.74, { signed: true }))).toBe('+17.7 %');
    expect(us.percent(10)).toBe(`10${NBSP}%`);
    expect(us.money(4_420_000, 'USD')).toBe('$4.42M');
    expect(us.date(day)).toBe('November 26, 2026');
    expect(us.number(1_234_567, 0)).toBe('1,234,567');
    expect(plain(de.percent(38.5))).toBe('38,5 %');
    expect(plain(de.money(4_420_000, 'EUR'))).toBe('4,42 Mio. €');
    expect(de.date(day)).toBe('26. November 2026');
    expect(us.points(-2.6)).toBe('2.6 percentage points');
    expect(documentLanguage('en-GB')).toBe('en-GB');
    expect(documentLanguage('de-DE')).toBe('en');
    // The typesetter takes a two-letter region only: a numeric one (UN M49) leaves the region out.
    for (const tag of ['en-419', 'en-001', 'en-150']) expect([tag, documentLanguage(tag)]).toEqual([tag, 'en']);
  });

  it('accepts a locale the runtime formats for, in canonical form, and refuses one it does not', () => {
    const request = demoReportRequest('Acme');
    expect(checkReportRequest({ ...request, locale: 'en-gb' }).locale).toBe('en-GB');
    expect(checkReportRequest(request).locale).toBeUndefined();
    expect(() => checkReportRequest({ ...request, locale: 'qq-QQ' })).toThrow(/locale "qq-QQ"/);
  });

  it('makes whole sentences and removes field names from prose', () => {
    expect(sentence('  engineering   consultancy for water utilities ')).toBe('Engineering consultancy for water utilities.');
    expect(sentence('Done!')).toBe('Done!');
    expect(sentence(`Margin 38.5${NBSP}%`)).toBe(`Margin 38.5${NBSP}%.`);
    expect(withoutFieldNames('The gross_margin_pct and avg_contract_value_usd rose.')).toBe('The gross margin and average contract value (USD) rose.');
  });

  it('writes the demo profile in whole sentences with labelled, formatted figures and no field names', () => {
    const analysis = analyse(demoReportRequest('Demo Analytics'));
    const text = SECTIONS.flatMap((s) => {
      const content = deterministicSection(s, analysis);
      return [...content.paragraphs, ...content.bullets];
    });
    for (const paragraph of SECTIONS.flatMap((s) => deterministicSection(s, analysis).paragraphs)) expect(paragraph).toMatch(/^[A-Z“].*[.!?”]$/s);
    const all = plain(text.join('\n'));
    expect(all).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
    expect(all).toContain('gross margin at 38.5 %');
    expect(all).toContain('customer retention at 91 %');
    // The description is quoted as the client's words, not run into the next sentence.
    expect(all).toContain('with 42 employees. In its own words: “Engineering consultancy for water utilities.”\n');
    expect(all).toContain('Revenue rose from $3.10M in 2022 to $4.42M in 2024, a compound annual growth rate of +19.4 %.');
    expect(keyFigures(analysis).map((f) => plain(`${f.label}: ${f.value}`))).toEqual([
      'Revenue 2024: $4.42M',
      'Growth per year, 2022–2024: +19.4 %',
      'Average net margin: 8.8 %',
      'Employees: 42',
    ]);
    expect(indicatorFigures(analysis).map((f) => f.label)).toEqual([
      'Revenue growth 2024',
      'Net margin 2024',
      'Revenue per employee',
      'Gross margin',
      'Customer retention',
    ]);
  });

  /** Every word the report prints about the figures: sections, headline and indicator figures, chart words and data, the PDF's table and closing note, the AI's facts. */
  function everyReportText(history: { year: number; revenue: number; net_income?: number }[]): string {
    const analysis = analyse(checkReportRequest({ ...ACME, profile: { ...ACME.profile, employees: 1, revenue_history: history } }));
    const sections = SECTIONS.map((s) => ({ id: s.id, title: s.title, content: deterministicSection(s, analysis), model: 'offline' }));
    const charts = reportCharts(analysis);
    const { model } = reportModel(
      {
        trackingId: 'rpt-extreme',
        plan: 'pro',
        generatedAt: new Date('2026-01-01T00:00:00Z'),
        analysis,
        sections,
        visuals: { charts: [], infographic: null, status: 'skipped', error: null },
        offline: true,
      },
      [],
    );
    // The charts' data goes to the visual service as JSON, where a non-finite number would turn into null: each is checked before.
    for (const value of charts.flatMap((c) => c.spec.data.datasets.flatMap((d) => d.data))) expect(value === null || Number.isFinite(value)).toBe(true);
    return [
      JSON.stringify(model),
      ...charts.flatMap((c) => [c.caption, c.finding, c.dataSummary]),
      ...[...keyFigures(analysis), ...indicatorFigures(analysis)].map((f) => `${f.label}: ${f.value}`),
      promptFacts(analysis),
    ].join('\n');
  }

  it.each([
    [
      'a revenue of 1e-300 before a real one',
      [
        { year: 2021, revenue: 1e-300, net_income: 1e15 },
        { year: 2022, revenue: 1e7, net_income: 5e5 },
        { year: 2023, revenue: 1.2e7 },
      ],
    ],
    [
      'a year of zero revenue between two',
      [
        { year: 2021, revenue: 5e6, net_income: -1e15 },
        { year: 2022, revenue: 0, net_income: 1e6 },
        { year: 2023, revenue: 6e6, net_income: 1e-300 },
      ],
    ],
    [
      'the largest revenues and incomes the request takes',
      [
        { year: 2000, revenue: 1, net_income: -1e15 },
        { year: 2001, revenue: 1e15, net_income: 1e15 },
        { year: 2002, revenue: 1e-300, net_income: -1e15 },
        { year: 2100, revenue: 1e15 },
      ],
    ],
  ])('prints only finite, readable figures for %s', (_name, history) => {
    const text = everyReportText(history);
    expect(text).not.toMatch(/∞|NaN|Infinity|null %/);
    // No figure written out to hundreds of digits (1e-300 as "$0.000…0001").
    expect(text).not.toMatch(/0{12}/);
  });

  it('says growth and margins cannot be measured on a revenue under one unit of its currency, and which year it is', () => {
    const analysis = analyse(
      checkReportRequest({
        ...ACME,
        profile: {
          ...ACME.profile,
          revenue_history: [
            { year: 2021, revenue: 1e-300, net_income: 1e15 },
            { year: 2022, revenue: 1e7 },
          ],
        },
      }),
    );
    expect(analysis.years.map((y) => [y.year, y.growthPct, y.marginPct])).toEqual([
      [2021, null, null],
      [2022, null, null],
    ]);
    expect(analysis).toMatchObject({ cagrPct: null, averageGrowthPct: null, growthVolatilityPct: null, trend: 'insufficient data' });
    expect(plain(reportFormat().money(1e-300, 'USD'))).toBe('$0.00');
    expect(plain(reportFormat().money(0.5, 'USD'))).toBe('$0.50');
  });

  it('every deterministic section passes the schema a model must meet', () => {
    const analysis = analyse(demoReportRequest('Demo Analytics'));
    for (const s of SECTIONS) expect(checkSectionContent(JSON.stringify(deterministicSection(s, analysis)))).toMatchObject({ ok: true });
  });

  it('captions each chart with its unit, one sentence of what it shows and its data in one line', () => {
    const charts = reportCharts(analyse(demoReportRequest('Demo Analytics')));
    expect(charts.map((c) => [c.id, c.caption])).toEqual([
      ['revenue', 'Revenue by year, USD millions'],
      ['growth-margin', 'Revenue growth and net margin by year, %'],
    ]);
    expect(plain(charts[0].finding)).toBe('Revenue rose by 42.6 % between 2022 and 2024, from $3.10M to $4.42M.');
    expect(charts[0].dataSummary).toBe('$3.10M in 2022, $3.65M in 2023, $4.42M in 2024');
    expect(charts[0].spec.data.datasets[0].data).toEqual([3.1, 3.65, 4.42]);
    expect(plain(charts[1].dataSummary)).toBe('2022: net margin 7.7 %; 2023: growth +17.7 % and net margin 8.5 %; 2024: growth +21.1 % and net margin 10.3 %');
  });

  it('the blocks taken as drawn without asking the fonts are drawn by them, character by character', () => {
    const missing: string[] = [];
    for (const [from, to] of FULLY_COVERED_BLOCKS) {
      for (let cp = from; cp <= to; cp++) {
        const char = String.fromCodePoint(cp);
        if (/[\p{Cn}\p{Cc}\p{Cf}]/u.test(char)) continue;
        if (!fontsDraw(char)) missing.push(`U+${cp.toString(16).toUpperCase()}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('names a script the fonts cannot draw instead of printing boxes, and keeps every script they can', () => {
    const fallback = fontFallback();
    expect(fallback.fit('Łódź Zürich Ωmega Аналитика')).toBe('Łódź Zürich Ωmega Аналитика');
    expect(fallback.scripts.size).toBe(0);
    // Thai, Japanese, Chinese, Korean, Hindi and emoji have their fonts (shared/script-fonts.ts): kept as written.
    const written = 'สยาม Holdings 株式会社 北京测试 삼성 परीक्षण कंपनी 🚀\u200d🔥 👍🏽 ❤\ufe0f\tLtd';
    expect(fallback.fit(written)).toBe(written.replace('\t', ' '));
    expect(fallback.scripts.size).toBe(0);
    // Ethiopic and Tamil have none: named, never boxes.
    expect(fallback.fit('ኢትዮጵያ Trading தமிழ்')).toBe('[Ethiopic] Trading [Tamil]');
    expect([...fallback.scripts]).toEqual(['Ethiopic', 'Tamil']);
    // A combining mark after an undrawable letter stays in its run; one after a drawable letter is kept.
    expect(fontFallback().fit('ኢ\u135f e\u0301')).toBe('[Ethiopic] e\u0301');
  });
});
