/**
 * The report's fixed text in English: the catalogue every other language follows (same keys, same
 * placeholders; tests/orchestrator/report-i18n.test.ts checks). Messages are ICU MessageFormat
 * (intl-messageformat): `{name}` a value, `{n, plural, one {…} other {…}}` a count,
 * `{x, select, a {…} other {…}}` a choice. Numbers come formatted by the report's locale (a report
 * in English words may have German numbers: the offline writer's); a plural's case is chosen from `n`. Apostrophes are typographic (’), since ' quotes in ICU.
 */
export const en = {
  'cover.subtitle': 'Business analysis report',
  'cover.title': '{company} – Business analysis report',
  'cover.sector': '{industry} (NAICS {code})',
  'cover.plan': '{plan, select, free {Free report} pro {Pro report} other {Enterprise report}}',
  'cover.contents': 'In this report',
  'cover.reference': 'Reference {id}',
  'cover.page': 'Page {page} of {pages}',
  'cover.offline': 'Generated offline: the text was written deterministically from the submitted figures, without an AI model.',
  'cover.offlineEnglish':
    'The sections of this report are in English: they were written offline, without an AI model, and the offline writer writes English only. Headings, tables and captions are in {language}.',
  'cover.noVisuals': 'Produced without visuals: the charts could not be made when this report was produced.',
  'cover.scripts': 'Text in {scripts} cannot be drawn with this report’s font and appears as its script’s name in brackets.',

  'label.figure': 'Figure',
  'label.table': 'Table',

  'section.executive_summary': 'Executive Summary',
  'section.financial_analysis': 'Financial Analysis',
  'section.market_position': 'Market Position',
  'section.operations': 'Operations and Productivity',
  'section.risks_and_challenges': 'Risks and Challenges',
  'section.recommendations': 'Recommendations',
  'section.about': 'About this report',

  'figure.revenue': 'Revenue {year}',
  'figure.cagr': 'Growth per year, {from}–{to}',
  'figure.averageMargin': 'Average net margin',
  'figure.employees': 'Employees',
  'figure.growthYear': 'Revenue growth {year}',
  'figure.marginYear': 'Net margin {year}',
  'figure.revenuePerEmployee': 'Revenue per employee',

  'table.caption': '{income, select, yes {Revenue, growth and net margin by year} other {Revenue and growth by year}}',
  'table.year': 'Year',
  'table.revenue': 'Revenue ({currency})',
  'table.growth': 'Growth',
  'table.netIncome': 'Net income ({currency})',
  'table.netMargin': 'Net margin',

  'chart.revenue.caption': 'Revenue by year, {currency}{unit, select, billions { billions} millions { millions} thousands { thousands} other {}}',
  'chart.revenue.dataset': 'Revenue ({currency}{unit, select, billions { billions} millions { millions} thousands { thousands} other {}})',
  'chart.revenue.description': 'Revenue of {company} by year',
  'chart.revenue.single': 'Revenue in {year} was {amount}.',
  'chart.revenue.change': 'Revenue {direction, select, up {rose} other {fell}} by {percent} between {from} and {to}, from {first} to {last}.',
  'chart.revenue.point': '{amount} in {year}',
  'chart.growthMargin.caption':
    '{series, select, both {Revenue growth and net margin by year, %} growth {Revenue growth by year, %} other {Net margin by year, %}}',
  'chart.growthMargin.growthDataset': 'Revenue growth (%)',
  'chart.growthMargin.marginDataset': 'Net margin (%)',
  'chart.growthMargin.description': 'Revenue growth over the previous year and net margin, percent',
  'chart.growthMargin.range': 'between {low} and {high}',
  'chart.growthMargin.growth': 'Growth was {range} a year.',
  'chart.growthMargin.margin': 'The net margin was {margin} in {year}.',
  'chart.growthMargin.marginChange': 'The net margin {direction, select, up {went} other {fell}} from {first} in {from} to {last} in {to}.',
  'chart.growthMargin.growthAndMargin': 'Growth was {range} a year, while the net margin was {margin} in {year}.',
  'chart.growthMargin.growthAndMarginChange':
    'Growth was {range} a year, while the net margin {direction, select, up {went} other {fell}} from {first} in {from} to {last} in {to}.',
  'chart.growthMargin.pointGrowth': 'growth {value}',
  'chart.growthMargin.pointMargin': 'net margin {value}',
  'chart.separator': ', ',
  'chart.growthMargin.point': '{year}: {values}',

  'unit.points': '{n, plural, one {{value} percentage point} other {{value} percentage points}}',
  'unit.days': '{n, plural, one {{value} day} other {{value} days}}',
  'unit.months': '{n, plural, one {{value} month} other {{value} months}}',

  'about.prepared':
    'This report was prepared on {date} for {company} from the profile and figures the company supplied; no other data was used. Amounts are in {currency}, and numbers and dates follow the {locale} conventions.',
  'about.method':
    'Growth is the change in revenue over the previous year. The compound annual growth rate is the constant yearly rate that leads from the first year’s revenue to the last. Net margin is net income divided by revenue, and revenue per employee divides the latest year’s revenue by the headcount supplied.',
  'about.tinyRevenue':
    'A percentage of a revenue under one unit of {currency} cannot be computed meaningfully: such growth and margins are shown as a dash and left out of the averages.',
  'about.offline': 'The text was written deterministically from the figures (offline mode), without an AI model: the same figures always give the same report.',
  'about.offlineEnglish': 'The offline writer writes English only, so the sections are in English while the rest of the report is in {language}.',
  'about.ai':
    'The text was written by an AI model{model, select, none {} other { ({model})}} in {language} from the figures in this report, which it was told to use as given and never to add to; the figures, tables and charts are computed, not written by the model.',
  'about.deterministic':
    'The model’s answers for {sections} did not have the required structure, so {count, plural, one {that section was} other {those sections were}} written deterministically from the figures, in English.',
  'about.chartsMissing':
    'The charts could not be produced when this report was made (the chart service was unavailable); every figure they would show is in the tables and the text.',
  'about.chartsDropped': 'The charts could not be set in this document; every figure they would show is in the tables and the text.',
  'about.scripts':
    'Some submitted text is written in {scripts}, which the report’s font ({font}: Latin, Greek, Cyrillic and more) cannot draw; it appears as the script’s name in brackets, and the document’s title keeps the original.',
  'about.reference': 'Reference: {id}.',

  // The metric dictionary's labels (report/words.ts METRIC_DICTIONARY), by their English label.
  'metric.Gross margin': 'Gross margin',
  'metric.Net margin': 'Net margin',
  'metric.Operating margin': 'Operating margin',
  'metric.EBITDA margin': 'EBITDA margin',
  'metric.Customer retention': 'Customer retention',
  'metric.Retention rate': 'Retention rate',
  'metric.Customer churn': 'Customer churn',
  'metric.Revenue growth': 'Revenue growth',
  'metric.Market share': 'Market share',
  'metric.Employee turnover': 'Employee turnover',
  'metric.Utilization': 'Utilization',
  'metric.Billable utilization': 'Billable utilization',
  'metric.On-time delivery': 'On-time delivery',
  'metric.Recurring revenue share': 'Recurring revenue share',
  'metric.Customer satisfaction': 'Customer satisfaction',
  'metric.Net Promoter Score': 'Net Promoter Score',
  'metric.Customers': 'Customers',
  'metric.Active users': 'Active users',
  'metric.Annual recurring revenue': 'Annual recurring revenue',
  'metric.Monthly recurring revenue': 'Monthly recurring revenue',
  'metric.Customer acquisition cost': 'Customer acquisition cost',
  'metric.Customer lifetime value': 'Customer lifetime value',
  'metric.Lifetime value to acquisition cost': 'Lifetime value to acquisition cost',
  'metric.Average contract value': 'Average contract value',
  'metric.Order backlog': 'Order backlog',
  'metric.Inventory turnover': 'Inventory turnover',
  'metric.Days sales outstanding': 'Days sales outstanding',
  'metric.Payback period': 'Payback period',

  // NAICS 2022 sectors (report/industries.ts), by code.
  'sector.11': 'Agriculture, Forestry, Fishing and Hunting',
  'sector.21': 'Mining, Quarrying, and Oil and Gas Extraction',
  'sector.22': 'Utilities',
  'sector.23': 'Construction',
  'sector.31-33': 'Manufacturing',
  'sector.42': 'Wholesale Trade',
  'sector.44-45': 'Retail Trade',
  'sector.48-49': 'Transportation and Warehousing',
  'sector.51': 'Information',
  'sector.52': 'Finance and Insurance',
  'sector.53': 'Real Estate and Rental and Leasing',
  'sector.54': 'Professional, Scientific, and Technical Services',
  'sector.55': 'Management of Companies and Enterprises',
  'sector.56': 'Administrative and Support and Waste Management and Remediation Services',
  'sector.61': 'Educational Services',
  'sector.62': 'Health Care and Social Assistance',
  'sector.71': 'Arts, Entertainment, and Recreation',
  'sector.72': 'Accommodation and Food Services',
  'sector.81': 'Other Services (except Public Administration)',
  'sector.92': 'Public Administration',

  'share.download': 'Download the PDF',
  'share.headline': 'Headline figures',
  'share.figuresOf': '{section}: figures',
  'share.footer': 'Reference {id}. Shared with a link that expires on {date}.',

  'email.readySubject': 'Your report on {company} is ready',
  'email.ready': 'Your report on {company} is ready.',
  'email.open': 'Open it here: {link}',
  'email.shareNote':
    'The page opens on any device without signing in, for {days, plural, one {# day} other {# days}}, and has the PDF on it. Anyone you forward this link to can read the report until then; your report’s share links list it, and you can revoke it there.',
  'email.failedSubject': 'Your report on {company} could not be produced',
  'email.failed': 'Your report on {company} could not be produced.',
  'email.status': 'Its status: {link}',
  'email.tracking': 'Tracking id: {id}',
  'email.why': 'You receive this e-mail because you requested the report. To stop these e-mails, turn them off with',
  'failure.cancelled': 'The report was cancelled by an administrator.',
  'failure.timeout': 'The report took too long to produce and was stopped.',
  'failure.aiService': 'The AI service that writes the report failed.',
  'failure.rateLimit': 'The AI service that writes the report was too busy.',
  'failure.other': 'The report could not be produced because of an error on our side.',
  'failure.whatNext': 'Quote its tracking id to support; an administrator can run it again.',
  'failure.ownerCancelled': 'The report was cancelled at your request; it does not count against your quota.',
} as const;

/** A key of the catalogue. */
export type MessageKey = keyof typeof en;
/** A language's catalogue: every key English has (the compiler checks; the test checks the placeholders). */
export type Catalogue = Record<MessageKey, string>;
