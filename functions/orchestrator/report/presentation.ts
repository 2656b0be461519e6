import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import PptxGenJS from 'pptxgenjs';
import { xmlChars } from '../../../shared/text';
import { contentText } from '../ai/section-content';
import { messages } from '../i18n/catalogue';
import { keyFigures } from './analysis';
import type { ReportDocument } from './pdf';

/**
 * The enterprise presentation, written here with pptxgenjs rather than through the visual
 * service's presentations route, whose request shape no published contract fixes: a title slide, a key
 * figures slide (with the KPI infographic), one slide per chart, one per section. pptxgenjs writes
 * text into the XML parts as given, so every text goes through xmlChars: a control character in a
 * company name ("Gamma\u0001Co") made five parts malformed, which PowerPoint refuses or "repairs".
 */
async function buildPresentation(report: ReportDocument): Promise<Buffer> {
  const { analysis: a, visuals } = report;
  // The deck's words in the report's language, from the PDF's catalogue (i18n/).
  const { t, tOr } = messages(a.locale);
  const pptx = new PptxGenJS();
  pptx.layout = 'LAYOUT_WIDE';
  pptx.title = xmlChars(t('cover.title', { company: a.companyName }));

  const title = pptx.addSlide();
  title.addText(xmlChars(a.companyName), { x: 0.5, y: 2.2, w: 12.3, h: 1.2, fontSize: 40, bold: true, color: '1F4788', align: 'center' });
  title.addText(xmlChars(`${t('cover.subtitle')} – ${tOr(`sector.${a.industryId}`, a.industryName)}`), {
    x: 0.5,
    y: 3.5,
    w: 12.3,
    h: 0.6,
    fontSize: 20,
    align: 'center',
  });
  title.addText(`${report.generatedAt.toISOString().slice(0, 10)} - ${report.trackingId}`, {
    x: 0.5,
    y: 4.3,
    w: 12.3,
    h: 0.4,
    fontSize: 12,
    color: '555555',
    align: 'center',
  });

  const figures = pptx.addSlide();
  figures.addText(t('share.headline'), { x: 0.5, y: 0.3, w: 12, h: 0.8, fontSize: 28, bold: true, color: '1F4788' });
  figures.addTable(
    keyFigures(a).map((f) => [{ text: xmlChars(f.label) }, { text: xmlChars(f.value), options: { bold: true } }]),
    { x: 0.5, y: 1.3, w: visuals.infographic ? 5.8 : 12, fontSize: 14 },
  );
  if (visuals.infographic)
    figures.addImage({
      data: `data:image/png;base64,${visuals.infographic.toString('base64')}`,
      x: 6.6,
      y: 1.3,
      w: 6.2,
      h: 4.6,
      sizing: { type: 'contain', w: 6.2, h: 4.6 },
    });

  for (const chart of visuals.charts) {
    if (!chart.png) continue;
    const slide = pptx.addSlide();
    slide.addText(xmlChars(chart.caption), { x: 0.5, y: 0.3, w: 12, h: 0.8, fontSize: 28, bold: true, color: '1F4788' });
    slide.addImage({ data: `data:image/png;base64,${chart.png.toString('base64')}`, x: 1.5, y: 1.3, w: 10, h: 4.5 });
    slide.addText(xmlChars(chart.finding), { x: 1.5, y: 6, w: 10, h: 0.6, fontSize: 14, color: '555555' });
  }

  for (const section of report.sections) {
    const slide = pptx.addSlide();
    slide.addText(xmlChars(section.title), { x: 0.5, y: 0.3, w: 12, h: 0.8, fontSize: 28, bold: true, color: '1F4788' });
    slide.addText(xmlChars(contentText(section.content).slice(0, 1500)), { x: 0.5, y: 1.3, w: 12.3, h: 5.7, fontSize: 14, valign: 'top' });
  }
  return (await pptx.write({ outputType: 'nodebuffer' })) as Buffer;
}

/**
 * Runs in a worker thread: zipping the deck is synchronous CPU work that would stall the event
 * loop, and pptxgenjs loads node:fs with a dynamic import that module sandboxes (test runners)
 * refuse. Buffers arrive as Uint8Array through structured clone.
 */
export function renderPresentation(report: ReportDocument): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(__filename, { workerData: { presentation: report } });
    worker.once('message', (bytes: Uint8Array) => resolve(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
    worker.once('error', reject);
    worker.once('exit', (code) => code !== 0 && reject(new Error(`presentation worker exited with code ${code}`)));
  });
}

if (!isMainThread && (workerData as { presentation?: ReportDocument } | null)?.presentation) {
  const input = (workerData as { presentation: ReportDocument }).presentation;
  const toBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const report: ReportDocument = {
    ...input,
    visuals: {
      ...input.visuals,
      infographic: input.visuals.infographic && toBuffer(input.visuals.infographic),
      charts: input.visuals.charts.map((c) => ({ ...c, svg: toBuffer(c.svg), png: c.png && toBuffer(c.png) })),
    },
  };
  buildPresentation(report).then(
    (bytes) => parentPort!.postMessage(bytes),
    (error) => {
      throw error;
    },
  );
}
