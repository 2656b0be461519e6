import PDFDocument from 'pdfkit';
import { keyFigures, type ReportAnalysis } from './analysis';
import type { ReportVisuals } from './visuals';

export interface WrittenSection {
  title: string;
  text: string;
}

export interface ReportDocument {
  trackingId: string;
  plan: string;
  generatedAt: Date;
  analysis: ReportAnalysis;
  sections: WrittenSection[];
  visuals: ReportVisuals;
  /** Sections written by the offline provider: the cover says so. */
  offline: boolean;
}

const BRAND = '#1f4788';
const MUTED = '#555555';

function heading(doc: PDFKit.PDFDocument, text: string): void {
  doc.fillColor(BRAND).font('Helvetica-Bold').fontSize(20).text(text).moveDown(0.6);
  doc.fillColor('#000000').font('Helvetica').fontSize(11);
}

/** The report PDF: cover, key figures (with the KPI infographic), charts, then one page per section. */
export function renderReportPdf(report: ReportDocument): Promise<Buffer> {
  const { analysis: a, visuals } = report;
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `${a.companyName} business report`, Author: 'Report Platform', Subject: report.trackingId },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const width = doc.page.width - 100;

  doc.moveDown(8).fillColor(BRAND).font('Helvetica-Bold').fontSize(30).text(a.companyName, { width, align: 'center' });
  doc.moveDown(0.5).fillColor('#000000').font('Helvetica').fontSize(16).text('Business Analysis Report', { width, align: 'center' });
  doc.moveDown(1).fontSize(12).fillColor(MUTED).text(`${a.industryName} (NAICS ${a.industryId})`, { width, align: 'center' });
  doc.text(`Generated ${report.generatedAt.toISOString().slice(0, 10)} - ${report.plan} plan - ${report.trackingId}`, { width, align: 'center' });
  doc.moveDown(3).fontSize(10);
  if (report.offline)
    doc.text('Generated offline: the sections were written deterministically from the submitted figures, without an AI model.', { width, align: 'center' });
  if (visuals.status !== 'included') {
    doc
      .moveDown(0.5)
      .text(
        visuals.status === 'skipped'
          ? 'Produced without visuals: the visual service was unavailable.'
          : 'Some visuals were unavailable when this report was produced.',
        { width, align: 'center' },
      );
  }

  doc.addPage();
  heading(doc, 'Key Figures');
  for (const figure of keyFigures(a)) {
    const y = doc.y;
    doc.font('Helvetica').fillColor(MUTED).text(figure.label, 50, y, { width: 250 });
    doc.font('Helvetica-Bold').fillColor('#000000').text(figure.value, 300, y, { width: 245 });
    doc.moveDown(0.3);
  }
  if (visuals.infographic) {
    doc.moveDown(1);
    doc.image(visuals.infographic, 50, doc.y, { fit: [width, doc.page.height - doc.y - 60], align: 'center' });
  }

  if (visuals.charts.length) {
    doc.addPage();
    heading(doc, 'Charts');
    const slot = (doc.page.height - doc.y - 60) / visuals.charts.length;
    for (const chart of visuals.charts) {
      const top = doc.y;
      doc.font('Helvetica-Bold').fontSize(11).text(chart.title, 50, top);
      doc.image(chart.png, 50, top + 16, { fit: [width, slot - 26], align: 'center' });
      doc.y = top + slot;
    }
  }

  for (const section of report.sections) {
    doc.addPage();
    heading(doc, section.title);
    doc.font('Helvetica').fontSize(11).fillColor('#000000').text(section.text, { width, align: 'left', lineGap: 3 });
  }
  doc.end();
  return done;
}
