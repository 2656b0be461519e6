import type { FontFallback } from '../report/report-fonts';
import { CHARTS_DROPPED_NOTE, reportModel, type PdfModel, type ReportDocument } from '../report/pdf';

/**
 * What a shared report page is made from: the very document the PDF was typeset from (analysis,
 * written sections, plan, date) and the chart SVGs the PDF drew, stored beside the PDF as
 * `report-page.json` when the report is made (report-store.ts). The page's words then come from
 * pdf.ts's reportModel, the PDF's own model: nothing of the sections is written twice.
 */
export interface ReportPageData {
  version: 1;
  document: Omit<ReportDocument, 'generatedAt' | 'visuals'> & {
    generatedAt: string;
    visuals: { status: ReportDocument['visuals']['status']; error: string | null };
  };
  /** The charts the PDF drew (none when the typesetter refused them), as the visual service made them. */
  charts: { id: string; caption: string; finding: string; dataSummary: string; svg: string }[];
  /** The typesetter refused the charts: the PDF went without them and said so. */
  chartsDropped: boolean;
}

/** The page data of a rendered report: `chartsDropped` is the PDF's (renderReportPdf). */
export function pageDataOf(document: ReportDocument, chartsDropped: boolean): ReportPageData {
  const { visuals, generatedAt, ...rest } = document;
  return {
    version: 1,
    document: { ...rest, generatedAt: generatedAt.toISOString(), visuals: { status: visuals.status, error: visuals.error } },
    charts: chartsDropped
      ? []
      : visuals.charts.map((c) => ({ id: c.id, caption: c.caption, finding: c.finding, dataSummary: c.dataSummary, svg: c.svg.toString('utf8') })),
    chartsDropped,
  };
}

// eslint-disable-next-line no-control-regex -- removing control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/** A browser draws every script: text keeps its characters (no "[Thai]" fallback), only controls and line breaks go. */
const BROWSER_TEXT: FontFallback = { scripts: new Set(), fit: (text) => text.replace(/[\t\r\n]+/g, ' ').replace(CONTROLS, '') };

/** The PDF's model of the stored report, for the web page (its SVGs by chart id beside it). */
export function pageModelOf(data: ReportPageData): { model: PdfModel; svgs: Map<string, string> } {
  const document: ReportDocument = {
    ...data.document,
    generatedAt: new Date(data.document.generatedAt),
    visuals: { charts: [], infographic: null, status: data.document.visuals.status, error: data.document.visuals.error },
  };
  const { model } = reportModel(document, data.charts, data.chartsDropped ? CHARTS_DROPPED_NOTE : null, BROWSER_TEXT);
  return { model, svgs: new Map(data.charts.map((c) => [c.id, c.svg])) };
}
