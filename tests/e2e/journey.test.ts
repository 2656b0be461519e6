import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runJourney, type Step } from '../../scripts/journey';
import { startHostProcess, type HostProcess } from './process';

const pdfParse = require('pdf-parse/lib/pdf-parse.js') as (data: Buffer) => Promise<{ text: string; numpages: number }>;

const STAGES = [
  'WORKFLOW_START',
  'PROFILE_RETRIEVAL',
  'STATUS_UPDATE',
  'DATA_PREPARATION',
  'AI_ORCHESTRATION',
  'PDF_ENHANCEMENT',
  'STORAGE_PROCESSING',
  'WORKFLOW_COMPLETE',
];

let dir: string;
let host: HostProcess;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journey-'));
  host = await startHostProcess(dir);
});
afterAll(async () => {
  await host?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('sign in, pay for pro, get the plan, order a report, download it, and find it all on the dashboard', async () => {
  const company = 'Riverside Hydro Engineering';
  const steps: Step[] = [];
  const journey = await runJourney({
    baseUrl: host.origin,
    dataDir: path.join(dir, '.data'),
    email: 'newcomer@example.com',
    company,
    onStep: (s) => steps.push(s),
  });

  // Signed up as a free user, paid, and identity now says pro and active.
  expect(journey.user.user).toMatchObject({ email: 'newcomer@example.com', role: 'user', plan: 'free', status: 'active' });
  expect(journey.confirmed.status).toBe('succeeded');
  expect(journey.refreshed.user).toMatchObject({ plan: 'pro' });
  expect(journey.validated).toMatchObject({ valid: true, user: { id: journey.user.user.id, plan: 'pro', status: 'active' } });
  expect(journey.userStatus).toMatchObject({ plan: 'pro', status: 'active', sync: { state: 'synced' } });
  expect(journey.userStatus.payments[0]).toMatchObject({ paymentIntentId: journey.intent.paymentIntentId, status: 'succeeded' });

  // The report ran through every stage and its PDF holds the company name and the charts as tagged vector figures.
  expect(journey.report).toMatchObject({ status: 'completed', progress_percentage: 100, plan: 'pro', visuals: { status: 'included' } });
  expect(journey.pdf.subarray(0, 5).toString()).toBe('%PDF-');
  const parsed = await pdfParse(journey.pdf);
  expect(parsed.text).toContain(company);
  expect(parsed.numpages).toBeGreaterThan(1);
  expect(parsed.text).toMatch(/Figure 1\.\s*Revenue by year/);
  expect(journey.pdf.toString('latin1')).toMatch(/\/S \/Figure/);
  expect(journey.pdf.toString('latin1')).not.toMatch(/\/Subtype \/Image/);

  // The admin sees it on the overview, the executions list, the status route (every stage logged) and profiles.
  expect(journey.overview.dashboard.health.total_executions).toBeGreaterThanOrEqual(1);
  expect(journey.executions.executions.recent.map((e: any) => e.tracking_id)).toContain(journey.order.trackingId);
  expect(journey.status).toMatchObject({ success: true, trackingId: journey.order.trackingId, status: 'completed' });
  const loggedStages = new Set(journey.status.data.logs.map((l: any) => l.step_name));
  for (const stage of STAGES) expect(loggedStages).toContain(stage);
  expect(journey.profiles.profiles).toEqual([
    expect.objectContaining({ company_name: company, execution_count: 1, latest_status: 'completed', latest_tracking_id: journey.order.trackingId }),
  ]);

  // The audit log holds the plan change, made by the payment service with its service token.
  expect(journey.audit.entries).toEqual([
    expect.objectContaining({
      action: 'user.plan.update',
      result: 'success',
      actor: { type: 'service', id: 'payment-service' },
      target: { type: 'user', id: journey.user.user.id },
    }),
  ]);

  // Every step was reported, none failed.
  expect(steps.length).toBeGreaterThanOrEqual(18);
});
