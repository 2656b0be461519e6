/**
 * npm run docs:report [-- --out <dir>] [--pdf <file>] [--company <name>] [--plan free|pro|enterprise] [--locale <tag> --ai]
 *
 * `--locale` makes the report in that locale's language (docs/report/<locale>, with `--out`);
 * `--ai` has its sections written by the local AI stand-in (tools/ai-stand-in.ts), which answers in
 * the report's language, instead of the offline writer, which writes English.
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
import { OpenAiProvider } from '../functions/orchestrator/ai/openai';
import type { AiProvider } from '../functions/orchestrator/ai/provider';
import { messages } from '../functions/orchestrator/i18n/catalogue';
import { parseAppConfig } from '../functions/settings';
import { startChatServer } from '../tools/ai-stand-in';
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

/** A report rendered as the workflow renders it (offline unless another writer is given), with the charts of the visual service the context's configuration names. */
export async function renderDemoReport(
  ctx: OrchestratorContext,
  request: ReportRequest,
  plan: Plan,
  generatedAt: Date,
  trackingId = 'rpt-demo',
  ai: AiProvider = new OfflineProvider(),
): Promise<RenderedPdf> {
  const analysis = analyse(request);
  const sections = [];
  for (const section of sectionsFor(plan)) {
    const draft = await ai.writeSection(section, analysis);
    sections.push({
      id: section.id,
      title: messages(analysis.locale).t(`section.${section.id}`),
      content: draft.content,
      model: draft.model,
      structuredOutput: draft.structuredOutput,
    });
  }
  const visuals = await fetchVisuals(ctx.visual, analysis, { presentation: PLAN_REPORTS[plan].presentation });
  const document: ReportDocument = { trackingId, plan, generatedAt, analysis, sections, visuals, offline: ai.offline };
  return renderReportPdf(ctx, document);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: REPORT_PAGES_DIR },
      pdf: { type: 'string' },
      company: { type: 'string', default: 'Demo Analytics' },
      plan: { type: 'string', default: 'pro' },
      locale: { type: 'string' },
      ai: { type: 'boolean', default: false },
    },
  });
  const pdftoppm = onPath('pdftoppm');
  if (!pdftoppm) throw new Error('pdftoppm is missing: npm run test:tools installs poppler-utils (or apt-get install poppler-utils)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'report-pages-'));
  const host = await startDevHost({
    settingsFile: path.join(dir, 'local.settings.json'),
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error' },
  });
  const standIn = values.ai ? await startChatServer() : null;
  try {
    const ctx = orchestratorContext(host.platform, createLogger({ component: 'report-pages' }));
    const ai = standIn
      ? new OpenAiProvider(
          'openai',
          parseAppConfig({ SERVICES: 'orchestrator', ORCHESTRATOR_AI_ENDPOINT: standIn.url, ORCHESTRATOR_AI_MODEL: 'local-stand-in' }),
          () => {
            throw new Error('no managed identity for the local stand-in');
          },
        )
      : new OfflineProvider();
    const request = { ...demoReportRequest(values.company!), ...(values.locale ? { locale: values.locale } : {}) };
    const rendered = await renderDemoReport(ctx, request, values.plan as Plan, DOCS_DATE, 'rpt-demo', ai);
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
    await standIn?.close();
    await host.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module)
  main().catch((error) => {
    process.stderr.write(`${(error as Error).stack}\n`);
    process.exit(1);
  });
