import fs from 'node:fs';
import type { NodeCompiler } from '@myriaddreamin/typst-ts-node-compiler';
import type { Plan } from '../../../shared/auth/access-token';
import type { SectionContent } from '../ai/section-content';
import type { SectionId } from '../workflow/stages';
import { indicatorFigures, keyFigures, MIN_PERCENT_BASE, type Figure, type ReportAnalysis } from './analysis';
import { fontFallback, REPORT_FONT_FAMILY, reportFontFiles, reportScriptFonts, scriptFontFile, type FontFallback } from './report-fonts';
import type { ScriptFont } from '../../../shared/script-fonts';
import { marksCopyWithTheirLetters } from './pdf-mark-spans';
import { rtlLigaturesInVisualOrder } from './pdf-text-layer';
import { REPORT_TEMPLATE } from './report-template';
import type { ChartImage, ReportVisuals } from './visuals';
import { documentLanguage, reportFormat } from './words';
import { messages, type Messages } from '../i18n/catalogue';
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
  /** The report's locale: the shared page takes its own fixed words from the catalogue with it. */
  locale: string;
  /** The template's fixed words in the report's language; `page` has %page% and %pages% for the template to fill. */
  labels: { contents: string; page: string; figure: string; table: string; reference: string };
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

/** Where each chart sits: the revenue chart is the executive summary's main chart; growth and margin go with the financial analysis. */
const CHART_SECTION: Record<string, SectionId> = { revenue: 'executive_summary', 'growth-margin': 'financial_analysis' };

function yearTable(a: ReportAnalysis, { t }: Messages, fit: (text: string) => string): PdfModel['sections'][number]['table'] {
  if (!a.years.length) return null;
  const f = reportFormat(a.locale);
  const withIncome = a.years.some((y) => y.netIncome !== null);
  const dash = '–';
  const currency = a.currency;
  // Every word through the font fallback: a Japanese table head or a yen amount ("310万") is text in a script the font may lack.
  return {
    caption: fit(t('table.caption', { income: withIncome ? 'yes' : 'no' })),
    columns: [
      t('table.year'),
      t('table.revenue', { currency }),
      t('table.growth'),
      ...(withIncome ? [t('table.netIncome', { currency }), t('table.netMargin')] : []),
    ].map(fit),
    rows: a.years.map((y) =>
      [
        String(y.year),
        f.money(y.revenue, a.currency),
        y.growthPct === null ? dash : f.percent(y.growthPct, { signed: true }),
        ...(withIncome ? [y.netIncome === null ? dash : f.money(y.netIncome, a.currency), y.marginPct === null ? dash : f.percent(y.marginPct)] : []),
      ].map(fit),
    ),
  };
}

/** The closing section, in the report's language: how the report was made, so a reader can judge what it rests on. */
function aboutSection(report: ReportDocument, words: Messages, chartsMissing: string | null, fallback: FontFallback): string[] {
  const { analysis: a } = report;
  const { t, list } = words;
  const f = reportFormat(a.locale);
  const deterministic = report.sections.filter((s) => s.structuredOutput === 'deterministic').map((s) => s.title);
  const model = report.sections.find((s) => s.structuredOutput !== 'deterministic')?.model;
  const language = words.languageName();
  return [
    t('about.prepared', { date: f.date(report.generatedAt), company: a.companyName, currency: a.currency, locale: a.locale }),
    t('about.method') + (a.years.some((y) => y.revenue < MIN_PERCENT_BASE) ? ` ${t('about.tinyRevenue', { currency: a.currency })}` : ''),
    report.offline
      ? t('about.offline') + (words.language !== 'en' ? ` ${t('about.offlineEnglish', { language })}` : '')
      : t('about.ai', { model: model ?? 'none', language }) +
        (deterministic.length ? ` ${t('about.deterministic', { sections: list(deterministic), count: deterministic.length })}` : ''),
    ...(chartsMissing ? [chartsMissing] : []),
    ...(fallback.scripts.size ? [t('about.scripts', { scripts: list([...fallback.scripts]), font: REPORT_FONT_FAMILY })] : []),
    t('about.reference', { id: report.trackingId }),
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
  const words = messages(a.locale);
  const { t } = words;
  const lang = documentLanguage(a.locale);
  const placed = new Set(report.sections.map((s) => s.id));
  const chartsOf = (id: SectionId, first: boolean) =>
    charts
      .filter((c) => CHART_SECTION[c.id] === id || (first && !placed.has(CHART_SECTION[c.id])))
      .map((c) => ({ id: c.id, caption: fit(c.caption), finding: fit(c.finding), alt: fit(`${c.caption}: ${c.dataSummary}.`) }));
  // The PDF went without charts its data called for: the visual service failed, or the typesetter refused them.
  const withoutCharts = charts.length === 0 && (chartsDropped !== null || (visuals.status !== 'included' && visuals.charts.length === 0));
  // The typesetter's refusal is said in the report's words (CHARTS_DROPPED_NOTE is its English).
  const chartsMissing = !withoutCharts ? null : chartsDropped !== null ? t('about.chartsDropped') : t('about.chartsMissing');
  const sections: PdfModel['sections'] = report.sections.map((s, i) => ({
    // The heading in the report's language, whatever the stored title (reports made before the catalogue stored English).
    title: fit(t(`section.${s.id}`)),
    indicators: s.id === 'executive_summary' ? indicatorFigures(a).map(fitFigure) : [],
    paragraphs: s.content.paragraphs.map(fit),
    bullets: s.content.bullets.map(fit),
    numbered: s.id === 'recommendations',
    table: s.id === 'financial_analysis' ? yearTable(a, words, fit) : null,
    charts: chartsOf(s.id, i === 0),
    leadChart: s.id === 'executive_summary',
  }));
  const company = fit(a.companyName);
  // Every fixed word is fitted before the closing page and the cover's note on scripts are written,
  // so they name every script the report's font lacks (all of Japanese, until its fonts are loaded).
  const notes = [
    report.offline ? t('cover.offline') : '',
    // The offline writer writes English: a report in another language says so on its cover.
    report.offline && words.language !== 'en' ? t('cover.offlineEnglish', { language: words.languageName() }) : '',
    withoutCharts ? t('cover.noVisuals') : '',
  ]
    .filter(Boolean)
    .map(fit);
  const subtitle = t('cover.subtitle');
  const cover = {
    labels: {
      contents: fit(t('cover.contents')),
      page: fit(t('cover.page', { page: '%page%', pages: '%pages%' })),
      figure: fit(t('label.figure')),
      table: fit(t('label.table')),
      reference: fit(t('cover.reference', { id: report.trackingId })),
    },
    subtitle: fit(subtitle),
    sector: fit(t('cover.sector', { industry: words.tOr(`sector.${a.industryId}`, a.industryName), code: a.industryId })),
    date: fit(f.date(report.generatedAt)),
    plan: fit(t('cover.plan', { plan: report.plan })),
    headline: keyFigures(a).map(fitFigure),
    aboutTitle: fit(t('section.about')),
  };
  const about = aboutSection(report, words, chartsMissing, fallback).map(fit);
  if (fallback.scripts.size) notes.push(fit(t('cover.scripts', { scripts: words.list([...fallback.scripts]) })));
  const model: PdfModel = {
    fonts: [REPORT_FONT_FAMILY],
    locale: a.locale,
    labels: cover.labels,
    title: t('cover.title', { company: a.companyName }),
    author: 'Report Platform',
    keywords: [a.industryName, subtitle],
    lang: lang.split('-')[0],
    region: lang.split('-')[1] ?? null,
    company,
    subtitle: cover.subtitle,
    sector: cover.sector,
    date: cover.date,
    plan: cover.plan,
    trackingId: report.trackingId,
    headline: cover.headline,
    notes,
    sections: [
      ...sections,
      { title: cover.aboutTitle, indicators: [], paragraphs: about, bullets: [], numbered: false, table: null, charts: [], leadChart: false },
    ],
  };
  // The script fonts the words need (the charts' text is read by typeset, which sets them too).
  model.fonts.push(...reportScriptFonts(JSON.stringify(model)).map((font) => font.family));
  return { model, fallback };
}

/** What the report says when the typesetter refused its charts (the PDF went without them); the report prints the catalogue's about.chartsDropped, in its language. */
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
    // The text layer made right for copy and search: right-to-left ligatures, then marks drawn back over their letter.
    const bytes = marksCopyWithTheirLetters(
      rtlLigaturesInVisualOrder(c.pdf(document, { pdfStandard: 'ua-1', creationTimestamp: Math.floor(generatedAt.getTime() / 1000) })),
    );
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
