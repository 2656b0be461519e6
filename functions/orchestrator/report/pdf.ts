import fs from 'node:fs';
import type { NodeCompiler } from '@myriaddreamin/typst-ts-node-compiler';
import type { Plan } from '../../../shared/auth/access-token';
import type { SectionContent } from '../ai/section-content';
import type { SectionId } from '../workflow/stages';
import { indicatorFigures, keyFigures, MIN_PERCENT_BASE, type Figure, type ReportAnalysis } from './analysis';
import { fontFallback, REPORT_FONT_FAMILY, reportFontFiles, reportScriptFonts, scriptFontFile, type FontFallback } from './report-fonts';
import type { ScriptFont } from '../../../shared/script-fonts';
import { rtlLigaturesInVisualOrder } from './pdf-text-layer';
import { REPORT_TEMPLATE } from './report-template';
import type { ChartImage, ReportVisuals } from './visuals';
import { documentLanguage, reportFormat } from './words';
import type { ServiceContext } from '../../../shared/context';
import { member } from '../../../shared/platform';

export interface WrittenSection {
  id: SectionId;
  title: string;
  content: SectionContent;
  /** The model that wrote it (offline-deterministic-v1 offline). */
  model: string;
  /** A model's structured output: valid, valid after a retry, or replaced by the deterministic text. */
  structuredOutput?: 'valid' | 'retried' | 'deterministic';
}

export interface ReportDocument {
  trackingId: string;
  plan: Plan;
  generatedAt: Date;
  analysis: ReportAnalysis;
  sections: WrittenSection[];
  visuals: ReportVisuals;
  /** Sections written by the offline provider: the cover says so. */
  offline: boolean;
}

export interface RenderedPdf {
  bytes: Buffer;
  pages: number;
  /** Why the PDF went without its charts although the visual service gave them (the typesetter refused them), else null. */
  chartsDropped: string | null;
}

/** What the template prints (report-template.ts), and the shared page (share/page.ts): every string already in words, fitted to the fonts. */
export interface PdfModel {
  /** The font families the text is set in, in fallback order: DejaVu Sans, then the script fonts the text needs. */
  fonts: string[];
  title: string;
  author: string;
  keywords: string[];
  lang: string;
  region: string | null;
  company: string;
  subtitle: string;
  sector: string;
  date: string;
  plan: string;
  trackingId: string;
  headline: Figure[];
  notes: string[];
  sections: {
    title: string;
    indicators: Figure[];
    paragraphs: string[];
    bullets: string[];
    numbered: boolean;
    table: { caption: string; columns: string[]; rows: string[][] } | null;
    charts: { id: string; caption: string; finding: string; alt: string }[];
    /** The charts stand under the section's figures instead of floating (the executive summary's main chart). */
    leadChart: boolean;
  }[];
}

const SUBTITLE = 'Business analysis report';
const listWords = (items: string[]) => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);
const PLAN_NAMES: Record<Plan, string> = { free: 'Free report', pro: 'Pro report', enterprise: 'Enterprise report' };
/** Where each chart sits: the revenue chart is the executive summary's main chart; growth and margin go with the financial analysis. */
const CHART_SECTION: Record<string, SectionId> = { revenue: 'executive_summary', 'growth-margin': 'financial_analysis' };

function yearTable(a: ReportAnalysis): PdfModel['sections'][number]['table'] {
  if (!a.years.length) return null;
  const f = reportFormat(a.locale);
  const withIncome = a.years.some((y) => y.netIncome !== null);
  const dash = '–';
  return {
    caption: withIncome ? 'Revenue, growth and net margin by year' : 'Revenue and growth by year',
    columns: ['Year', `Revenue (${a.currency})`, 'Growth', ...(withIncome ? [`Net income (${a.currency})`, 'Net margin'] : [])],
    rows: a.years.map((y) => [
      String(y.year),
      f.money(y.revenue, a.currency),
      y.growthPct === null ? dash : f.percent(y.growthPct, { signed: true }),
      ...(withIncome ? [y.netIncome === null ? dash : f.money(y.netIncome, a.currency), y.marginPct === null ? dash : f.percent(y.marginPct)] : []),
    ]),
  };
}

/** The closing section: how the report was made, so a reader can judge what it rests on. */
function aboutSection(report: ReportDocument, chartsMissing: string | null, fallback: FontFallback): string[] {
  const { analysis: a } = report;
  const f = reportFormat(a.locale);
  const deterministic = report.sections.filter((s) => s.structuredOutput === 'deterministic').map((s) => s.title);
  const model = report.sections.find((s) => s.structuredOutput !== 'deterministic')?.model;
  return [
    `This report was prepared on ${f.date(report.generatedAt)} for ${a.companyName} from the profile and figures the company supplied; no other data was used. Amounts are in ${a.currency}, and numbers and dates follow the ${a.locale} conventions.`,
    'Growth is the change in revenue over the previous year. The compound annual growth rate is the constant yearly rate that leads from the first year’s revenue to the last. Net margin is net income divided by revenue, and revenue per employee divides the latest year’s revenue by the headcount supplied.' +
      (a.years.some((y) => y.revenue < MIN_PERCENT_BASE)
        ? ` A percentage of a revenue under one unit of ${a.currency} cannot be computed meaningfully: such growth and margins are shown as a dash and left out of the averages.`
        : ''),
    report.offline
      ? 'The text was written deterministically from the figures (offline mode), without an AI model: the same figures always give the same report.'
      : `The text was written by an AI model${model ? ` (${model})` : ''} from the figures in this report, which it was told to use as given and never to add to; the figures, tables and charts are computed, not written by the model.` +
        (deterministic.length
          ? ` The model’s answers for ${deterministic.join(', ')} did not have the required structure, so ${deterministic.length === 1 ? 'that section was' : 'those sections were'} written deterministically from the figures.`
          : ''),
    ...(chartsMissing ? [chartsMissing] : []),
    ...(fallback.scripts.size
      ? [
          `Some submitted text is written in ${listWords([...fallback.scripts])}, which the report’s font (${REPORT_FONT_FAMILY}: Latin, Greek, Cyrillic and more) cannot draw; it appears as the script’s name in brackets, and the document’s title keeps the original.`,
        ]
      : []),
    `Reference: ${report.trackingId}.`,
  ];
}

/**
 * The template's data: the document in words, every submitted or written string passed through the
 * font fallback (the PDF's fonts); the shared web page passes a fallback that keeps every script,
 * since a browser draws them all.
 */
export function reportModel(
  report: ReportDocument,
  charts: Pick<ChartImage, 'id' | 'caption' | 'finding' | 'dataSummary'>[],
  chartsDropped: string | null = null,
  fallback: FontFallback = fontFallback(),
): { model: PdfModel; fallback: FontFallback } {
  const { analysis: a, visuals } = report;
  const fit = fallback.fit;
  const fitFigure = (x: Figure) => ({ label: fit(x.label), value: fit(x.value) });
  const f = reportFormat(a.locale);
  const lang = documentLanguage(a.locale);
  const placed = new Set(report.sections.map((s) => s.id));
  const chartsOf = (id: SectionId, first: boolean) =>
    charts
      .filter((c) => CHART_SECTION[c.id] === id || (first && !placed.has(CHART_SECTION[c.id])))
      .map((c) => ({ id: c.id, caption: fit(c.caption), finding: fit(c.finding), alt: fit(`${c.caption}: ${c.dataSummary}.`) }));
  // The PDF went without charts its data called for: the visual service failed, or the typesetter refused them.
  const withoutCharts = charts.length === 0 && (chartsDropped !== null || (visuals.status !== 'included' && visuals.charts.length === 0));
  const chartsMissing = !withoutCharts
    ? null
    : (chartsDropped ??
      'The charts could not be produced when this report was made (the chart service was unavailable); every figure they would show is in the tables and the text.');
  const sections: PdfModel['sections'] = report.sections.map((s, i) => ({
    title: fit(s.title),
    indicators: s.id === 'executive_summary' ? indicatorFigures(a).map(fitFigure) : [],
    paragraphs: s.content.paragraphs.map(fit),
    bullets: s.content.bullets.map(fit),
    numbered: s.id === 'recommendations',
    table: s.id === 'financial_analysis' ? yearTable(a) : null,
    charts: chartsOf(s.id, i === 0),
    leadChart: s.id === 'executive_summary',
  }));
  const company = fit(a.companyName);
  const notes = [
    report.offline ? 'Generated offline: the text was written deterministically from the submitted figures, without an AI model.' : '',
    withoutCharts ? 'Produced without visuals: the charts could not be made when this report was produced.' : '',
  ].filter(Boolean);
  const about = aboutSection(report, chartsMissing, fallback).map(fit);
  if (fallback.scripts.size)
    notes.push(`Text in ${listWords([...fallback.scripts])} cannot be drawn with this report’s font and appears as its script’s name in brackets.`);
  const model: PdfModel = {
    fonts: [REPORT_FONT_FAMILY],
    title: `${a.companyName} – ${SUBTITLE}`,
    author: 'Report Platform',
    keywords: [a.industryName, SUBTITLE],
    lang: lang.split('-')[0],
    region: lang.split('-')[1] ?? null,
    company,
    subtitle: SUBTITLE,
    sector: fit(`${a.industryName} (NAICS ${a.industryId})`),
    date: f.date(report.generatedAt),
    plan: PLAN_NAMES[report.plan],
    trackingId: report.trackingId,
    headline: keyFigures(a).map(fitFigure),
    notes,
    sections: [
      ...sections,
      { title: 'About this report', indicators: [], paragraphs: about, bullets: [], numbered: false, table: null, charts: [], leadChart: false },
    ],
  };
  // The script fonts the words need (the charts' text is read by typeset, which sets them too).
  model.fonts.push(...reportScriptFonts(JSON.stringify(model)).map((font) => font.family));
  return { model, fallback };
}

/** What the report says when the typesetter refused its charts (the PDF went without them). */
export const CHARTS_DROPPED_NOTE = 'The charts could not be set in this document; every figure they would show is in the tables and the text.';

/**
 * The compiler's root: a folder that does not exist. Every file the template reads is an in-memory
 * shadow under it, so no document can read anything from the disk.
 */
const WORKSPACE = '/typst-report-workspace';

/** Compilers kept at most: one per set of script fonts (Latin alone, Japanese, Japanese and emoji...). */
const MAX_COMPILERS = 3;

/**
 * The Typst compilers, each created with the first report needing its fonts (native module and
 * fonts: about 50 ms for DejaVu Sans) and kept by the platform: a report in Latin script never
 * loads a script font; one in Japanese loads Noto Sans JP (and Noto Sans SC for ideographs JIS
 * lacks). The fonts a compiler has are fixed when it is created, hence one per set.
 */
const TYPST = member('typst compilers', () => {
  const compilers = new Map<string, NodeCompiler>();
  return (scriptFonts: ScriptFont[]): NodeCompiler => {
    const key = scriptFonts.map((font) => font.id).join(',');
    let compiler = compilers.get(key);
    if (compiler) {
      compilers.delete(key);
    } else {
      const { NodeCompiler } = require('@myriaddreamin/typst-ts-node-compiler') as typeof import('@myriaddreamin/typst-ts-node-compiler');
      const files = [...reportFontFiles(), ...scriptFonts.map((font) => scriptFontFile(font))];
      compiler = NodeCompiler.create({ workspace: WORKSPACE, fontArgs: [{ fontBlobs: files.map((file) => fs.readFileSync(file)) }] });
      if (compilers.size >= MAX_COMPILERS) compilers.delete(compilers.keys().next().value!);
    }
    compilers.set(key, compiler);
    return compiler;
  };
});

/** One PDF/UA-1 document from the model and chart files: tagged, with /Lang, title, outline and every font embedded. */
function typeset(
  compilerFor: (fonts: ScriptFont[]) => NodeCompiler,
  model: PdfModel,
  charts: ChartImage[],
  generatedAt: Date,
): { bytes: Buffer; pages: number } {
  // The fonts the words and the charts' text need: the charts name the same families (the visual service's fonts).
  const scriptFonts = reportScriptFonts(JSON.stringify(model) + charts.map((chart) => chart.svg.toString('utf8')).join(''));
  model = { ...model, fonts: [REPORT_FONT_FAMILY, ...scriptFonts.map((font) => font.family)] };
  const c = compilerFor(scriptFonts);
  c.resetShadow();
  try {
    c.mapShadow(`${WORKSPACE}/report.json`, Buffer.from(JSON.stringify(model)));
    for (const chart of charts) c.mapShadow(`${WORKSPACE}/charts/${chart.id}.svg`, chart.svg);
    const compiled = c.compile({ mainFileContent: REPORT_TEMPLATE });
    const document = compiled.result;
    if (!document) {
      const diagnostics = c.fetchDiagnostics(compiled.takeDiagnostics()!) as { message?: string }[];
      throw new Error(`report typesetting failed: ${diagnostics.map((d) => d.message ?? JSON.stringify(d)).join('; ')}`);
    }
    const bytes = rtlLigaturesInVisualOrder(c.pdf(document, { pdfStandard: 'ua-1', creationTimestamp: Math.floor(generatedAt.getTime() / 1000) }));
    return { bytes, pages: document.numOfPages };
  } finally {
    c.resetShadow();
    // Drops memoised layouts older than ten compilations: a long-lived instance stays flat.
    c.evictCache(10);
  }
}

/**
 * The report PDF (Typst, PDF/UA-1): a cover with the headline figures and contents, then the
 * sections flowing one after another with their figures, tables and charts (vector), and a closing
 * note on how the report was made. Charts the typesetter refuses are dropped rather than failing
 * the report, as when the visual service is down, and the report says so.
 */
export async function renderReportPdf(ctx: Pick<ServiceContext, 'platform'>, report: ReportDocument): Promise<RenderedPdf> {
  const compilerFor = ctx.platform.get(TYPST);
  const charts = report.visuals.charts;
  try {
    return { ...typeset(compilerFor, reportModel(report, charts).model, charts, report.generatedAt), chartsDropped: null };
  } catch (error) {
    if (!charts.length) throw error;
    const reason = `charts left out: ${(error as Error).message}`;
    return { ...typeset(compilerFor, reportModel(report, [], CHARTS_DROPPED_NOTE).model, [], report.generatedAt), chartsDropped: reason };
  }
}
