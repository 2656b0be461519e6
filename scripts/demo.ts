/**
 * `npm run demo`: the whole journey against a running `npm start` (another terminal), every call to
 * the platform through the typed client (client/index.ts), printing each step with what it called
 * and what came back, ending with the PDF's path, the shared report page's address and the dashboard.
 * DEMO_URL overrides the host (default http://127.0.0.1:7071); the data directory comes from
 * local.settings.json as the dev host reads it.
 */
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { applyLocalSettings } from '../shared/config/local-settings';
import { platformClient } from '../client';
import { runJourney, type Step } from './journey';

/** Where the platform keeps its outbox: local.settings.json under the environment, read as every local entry point reads it. */
function dataDir(): string {
  applyLocalSettings();
  return process.env.DATA_DIR!;
}

async function main(): Promise<void> {
  const baseUrl = (process.env.DEMO_URL ?? `http://127.0.0.1:${process.env.PORT ?? 7071}`).replace(/\/+$/, '');
  try {
    await platformClient({ baseUrl }).identity.GET('/identity/health');
  } catch {
    throw new Error(`nothing answers at ${baseUrl}: start the platform with \`npm start\` in another terminal first`);
  }
  const suffix = randomBytes(3).toString('hex');
  const email = `demo-${suffix}@example.com`;
  const company = `Demo Analytics ${suffix.toUpperCase()}`;
  process.stdout.write(`Journey against ${baseUrl} as ${email} for "${company}"\n\n`);
  let n = 0;
  const print = (step: Step) => {
    const ok = typeof step.status === 'number' ? step.status < 400 : !['failed', 'processing', 'requires_payment_method'].includes(step.status);
    process.stdout.write(
      `${String(++n).padStart(2)}. ${ok ? 'OK  ' : 'FAIL'} ${step.name}\n      ${step.call} -> ${step.status}${step.summary ? `\n      ${step.summary}` : ''}\n`,
    );
  };
  const journey = await runJourney({ baseUrl, dataDir: dataDir(), email, company, onStep: print });
  const health = journey.overview.dashboard.health;
  // The page count as the workflow logged it (PDF_ENHANCEMENT's metadata, read through the admin status route).
  const pdfStep = journey.status.data.logs.find((l) => l.step_name === 'PDF_ENHANCEMENT' && l.status === 'completed');
  const metadata = typeof pdfStep?.metadata === 'string' ? (JSON.parse(pdfStep.metadata) as { pdf_pages?: number }) : pdfStep?.metadata;
  const pages = (metadata as { pdf_pages?: number } | undefined)?.pdf_pages;
  process.stdout.write(
    [
      '',
      `Every step succeeded.`,
      `PDF report: ${journey.pdfPath} (${pages ?? '?'} pages, ${(journey.pdf.length / 1024).toFixed(0)} KiB)`,
      `Shared report page (no account needed, until ${journey.share.expiresAt}): ${journey.share.url}`,
      `Dashboard: health ${health.score} (${health.status}), ${health.total_executions} executions, success rate ${health.success_rate}%, average ${health.avg_processing_time_ms} ms`,
      `Administration console: ${baseUrl}/orchestrator/console/ (sign in as admin@example.com; the code is in ${path.join(dataDir(), 'outbox')})`,
      '',
    ].join('\n'),
  );
}

main().catch((error) => {
  process.stderr.write(`\nThe journey stopped: ${(error as Error).message}\n`);
  process.exit(1);
});
