/**
 * npm run docs:report [-- --out <dir>] [--pdf <file>] [--company <name>] [--plan free|pro|enterprise]
 *
 * Renders the demo profile's report (scripts/demo-profile.ts) the way PDF_ENHANCEMENT does: the
 * offline writer's sections, the charts from a real visual service (an in-process dev host with
 * its own Azurite), the Typst PDF. Then `pdftoppm -r 50` turns each page into a PNG in docs/report
 * (by default), which docs/report.md shows, so a reader sees the report without running anything.
 * The date is fixed, so an unchanged report gives the same pages. Needs Debian's poppler-utils
 * (`npm run test:tools` gets it).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startDevHost } from '../devhost/host';
import type { Plan } from '../shared/auth/access-token';
import { createLogger } from '../shared/logging';
import { OfflineProvider } from '../functions/orchestrator/ai/offline';
import { orchestratorContext, type OrchestratorContext } from '../functions/orchestrator/context';
import { analyse } from '../functions/orchestrator/report/analysis';
import { renderReportPdf, type ReportDocument, type RenderedPdf } from '../functions/orchestrator/report/pdf';
import type { ReportRequest } from '../functions/orchestrator/report/submission';
import { fetchVisuals } from '../functions/orchestrator/report/visuals';
import { PLAN_REPORTS, sectionsFor } from '../functions/orchestrator/workflow/stages';
import { demoReportRequest } from './demo-profile';
import { onPath } from './test-tools';

const ROOT = path.resolve(__dirname, '..', '..');
export const REPORT_PAGES_DIR = path.join(ROOT, 'docs', 'report');
/** The date the documented pages carry. */
const DOCS_DATE = new Date('2026-11-26T09:00:00Z');

/** A report rendered as the workflow renders it, offline, with the charts of the visual service the context's configuration names. */
export async function renderOfflineReport(
  ctx: OrchestratorContext,
  request: ReportRequest,
  plan: Plan,
  generatedAt: Date,
  trackingId = 'rpt-demo',
): Promise<RenderedPdf> {
  const analysis = analyse(request);
  const ai = new OfflineProvider();
  const sections = [];
  for (const section of sectionsFor(plan)) {
    const draft = await ai.writeSection(section, analysis);
    sections.push({ id: section.id, title: section.title, content: draft.content, model: draft.model });
  }
  const visuals = await fetchVisuals(ctx.visual, analysis, { presentation: PLAN_REPORTS[plan].presentation });
  const document: ReportDocument = { trackingId, plan, generatedAt, analysis, sections, visuals, offline: true };
  return renderReportPdf(ctx, document);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: REPORT_PAGES_DIR },
      pdf: { type: 'string' },
      company: { type: 'string', default: 'Demo Analytics' },
      plan: { type: 'string', default: 'pro' },
    },
  });
  const pdftoppm = onPath('pdftoppm');
  if (!pdftoppm) throw new Error('pdftoppm is missing: npm run test:tools installs poppler-utils (or apt-get install poppler-utils)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-pages-'));
  const host = await startDevHost({
    settingsFile: path.join(dir, 'local.settings.json'),
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error' },
  });
  try {
    const ctx = orchestratorContext(host.platform, createLogger({ component: 'report-pages' }));
    const rendered = await renderOfflineReport(ctx, demoReportRequest(values.company!), values.plan as Plan, DOCS_DATE);
    const pdfFile = values.pdf ?? path.join(dir, 'report.pdf');
    fs.writeFileSync(pdfFile, rendered.bytes);
    fs.mkdirSync(values.out!, { recursive: true });
    for (const old of fs.readdirSync(values.out!).filter((f) => /^page-\d+\.png$/.test(f))) fs.rmSync(path.join(values.out!, old));
    execFileSync(pdftoppm, ['-png', '-r', '50', pdfFile, path.join(values.out!, 'page')]);
    // pdftoppm pads page numbers to the page count's width; plain numbers keep the links in docs/report.md stable.
    for (const file of fs.readdirSync(values.out!)) {
      const match = /^page-0*(\d+)\.png$/.exec(file);
      if (match && file !== `page-${match[1]}.png`) fs.renameSync(path.join(values.out!, file), path.join(values.out!, `page-${match[1]}.png`));
    }
    process.stdout.write(
      `${rendered.pages} pages, ${rendered.bytes.length.toLocaleString('en-US')} bytes${rendered.chartsDropped ? ` (${rendered.chartsDropped})` : ''}; pages in ${values.out}${values.pdf ? `, PDF in ${values.pdf}` : ''}\n`,
    );
  } finally {
    await host.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module)
  main().catch((error) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  });
