/**
 * `npm run bench:report`: what the report's PDF stage costs, for the demo profile (scripts/demo-profile.ts).
 *
 * - load: a fresh Node process requiring the Typst compiler and creating it with the report's fonts
 *   (what the first report of an instance pays once), median of 5 processes;
 * - typesetting: renderReportPdf alone on a document with its two SVG charts, first call and warm
 *   p50/p99, with the memory after the runs (the compiler's cache is evicted after each document);
 * - the PDF stage as PDF_ENHANCEMENT runs it: the charts from the visual service (an in-process dev
 *   host with its own Azurite) as SVG, then the PDF. Each run changes the revenue a little, so the
 *   visual service draws every chart anew (no cache hit), as for a real client.
 *
 * Hold the machine lock: `flock /tmp/heavy.lock npm run bench:report`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevHost } from '../../devhost/host';
import { orchestratorContext } from '../../functions/orchestrator/context';
import { createLogger } from '../../shared/logging';
import { OfflineProvider } from '../../functions/orchestrator/ai/offline';
import { analyse } from '../../functions/orchestrator/report/analysis';
import { renderReportPdf, type ReportDocument, type WrittenSection } from '../../functions/orchestrator/report/pdf';
import type { ReportRequest } from '../../functions/orchestrator/report/submission';
import { fetchVisuals } from '../../functions/orchestrator/report/visuals';
import { sectionsFor } from '../../functions/orchestrator/workflow/stages';
import { demoReportRequest } from '../../scripts/demo-profile';
import { formatSteal, stealMeter } from '../cpu-steal';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const ms = (value: number) => `${value.toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}, mean ${ms(sorted.reduce((a, b) => a + b, 0) / sorted.length)} (${sorted.length} runs)`;
}

/** Requiring the compiler and creating it with the fonts, in a process of its own. */
function coldLoad(): void {
  const script = `
    const t0 = performance.now();
    const { NodeCompiler } = require('@myriaddreamin/typst-ts-node-compiler');
    const t1 = performance.now();
    const fs = require('fs');
    const { reportFontFiles } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'functions', 'orchestrator', 'report', 'report-fonts.js'))});
    NodeCompiler.create({ fontArgs: [{ fontBlobs: reportFontFiles().map((f) => fs.readFileSync(f)) }] });
    const t2 = performance.now();
    process.stdout.write(JSON.stringify({ require: t1 - t0, create: t2 - t1 }));`;
  const samples = Array.from(
    { length: 5 },
    () => JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { require: number; create: number },
  );
  const median = (key: 'require' | 'create') => samples.map((s) => s[key]).sort((a, b) => a - b)[2];
  console.log(`load (fresh process, median of 5): require ${ms(median('require'))}, create with fonts ${ms(median('create'))}`);
}

async function sections(request: ReportRequest): Promise<WrittenSection[]> {
  const analysis = analyse(request);
  const ai = new OfflineProvider();
  const out: WrittenSection[] = [];
  for (const s of sectionsFor('pro')) {
    const draft = await ai.writeSection(s, analysis);
    out.push({ id: s.id, title: s.title, content: draft.content, model: draft.model });
  }
  return out;
}

/** The demo profile with its revenue moved by `i` units, so its charts are new to the visual service's cache. */
function variant(i: number): ReportRequest {
  const request = demoReportRequest('Demo Analytics');
  return {
    ...request,
    profile: { ...request.profile, revenue_history: request.profile.revenue_history.map((y) => ({ ...y, revenue: y.revenue + i })) },
  };
}

async function main(): Promise<void> {
  coldLoad();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-report-'));
  const host = await startDevHost({
    settingsFile: path.join(dir, 'local.settings.json'),
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error' },
  });
  const steal = stealMeter();
  try {
    const ctx = orchestratorContext(host.platform, createLogger({ component: 'bench' }));
    const request = demoReportRequest('Demo Analytics');
    const analysis = analyse(request);
    const visuals = await fetchVisuals(ctx.visual, analysis, { presentation: false });
    if (visuals.status !== 'included') throw new Error(`visual service: ${visuals.error}`);
    const document: ReportDocument = {
      trackingId: 'rpt-bench',
      plan: 'pro',
      generatedAt: new Date(),
      analysis,
      sections: await sections(request),
      visuals,
      offline: true,
    };
    let started = performance.now();
    const first = await renderReportPdf(ctx, document);
    const firstMs = performance.now() - started;
    console.log(`demo report: ${first.pages} pages, ${first.bytes.length.toLocaleString('en-US')} bytes, ${visuals.charts.length} SVG charts`);
    const typesetting: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      started = performance.now();
      await renderReportPdf(ctx, document);
      typesetting.push(performance.now() - started);
    }
    console.log(`typesetting (renderReportPdf): first ${ms(firstMs)}, warm ${summary(typesetting)}; rss ${mb(process.memoryUsage().rss)}`);

    const stage: number[] = [];
    const charts: number[] = [];
    for (let i = 1; i <= RUNS; i++) {
      const req = variant(i);
      const a = analyse(req);
      started = performance.now();
      const v = await fetchVisuals(ctx.visual, a, { presentation: false });
      const fetched = performance.now();
      if (v.status !== 'included') throw new Error(`visual service: ${v.error}`);
      await renderReportPdf(ctx, { ...document, analysis: a, visuals: v });
      stage.push(performance.now() - started);
      charts.push(fetched - started);
    }
    console.log(`PDF stage (charts drawn anew as SVG, fetched, then the PDF): ${summary(stage)}; of which charts ${summary(charts)}`);
    console.log(`budget: PDF stage p50 <= 500 ms; rss ${mb(process.memoryUsage().rss)}; CPU steal ${formatSteal(steal())}`);
  } finally {
    await host.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
