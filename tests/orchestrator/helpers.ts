import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Plan } from '../../shared/auth/access-token';
import { currentPlatform } from '../../shared/platform';
import { orchestratorContext, type OrchestratorContext } from '../../functions/orchestrator/context';
import type { ReportRequest } from '../../functions/orchestrator/report/submission';
import { insertExecution } from '../../functions/orchestrator/workflow/executions';
import type { WorkflowConsoleLine } from '../../functions/orchestrator/workflow/workflow-logger';
import { contextOf } from '../helpers/context';
import type { TestHost } from '../helpers/host';
import { bearer } from '../helpers/identity';

/** The orchestrator's context on the running test host's platform (one host per test file, the process's platform). */
export const orchestratorCtx = (): OrchestratorContext => contextOf(orchestratorContext, { platform: currentPlatform() });
/** The test host's database, as the orchestrator reads it. */
export const db = () => orchestratorCtx().db;
/** `ctx` with `database` as its database (a driver that records the statements compiled for Azure SQL). */
export const withDatabase = <C extends object>(ctx: C, database: unknown): C => Object.defineProperty(ctx, 'db', { value: database });

export const ACME: ReportRequest = {
  company_name: 'Acme Widgets GmbH',
  industry_id: '31-33',
  profile: {
    description: 'Maker of precision widgets for industrial customers.',
    employees: 250,
    founded_year: 1998,
    currency: 'EUR',
    revenue_history: [
      { year: 2020, revenue: 12_000_000, net_income: 900_000 },
      { year: 2021, revenue: 13_500_000, net_income: 1_100_000 },
      { year: 2022, revenue: 15_200_000, net_income: 1_000_000 },
      { year: 2023, revenue: 16_900_000, net_income: 1_400_000 },
    ],
    goals: ['Expand into the Nordic market', 'Automate final assembly'],
    challenges: ['Skilled labour shortage', 'Energy prices'],
    key_metrics: { customer_retention_pct: 91, on_time_delivery_pct: 96 },
  },
};

import { waitFor } from '../helpers/wait';

export { waitFor };

/** Stores an execution as POST /api/reports would (requested by `userId`) and enqueues its message. */
/** Stores an execution as the report route would, without enqueueing it (a lost message, or a run the test drives itself). */
export function storeExecution(trackingId: string, plan: Plan, options: { request?: ReportRequest; userId?: string; now?: string } = {}): Promise<void> {
  const request = options.request ?? ACME;
  return insertExecution(orchestratorCtx(), {
    trackingId,
    companyName: request.company_name,
    industryId: request.industry_id,
    submission: request,
    requestedBy: options.userId ?? 'user-direct',
    plan,
    now: options.now ?? new Date().toISOString(),
  });
}

export async function submitDirect(trackingId: string, plan: Plan, request: ReportRequest = ACME, userId = 'user-direct'): Promise<void> {
  await storeExecution(trackingId, plan, { request, userId });
  const ctx = orchestratorCtx();
  await ctx.storage.enqueueJson(ctx.config.ORCHESTRATOR_QUEUE, { trackingId });
}

export const execution = (trackingId: string) =>
  db().selectFrom('orchestrator_executions').selectAll().where('tracking_id', '=', trackingId).executeTakeFirst();

export const logRows = (trackingId: string) =>
  db().selectFrom('orchestrator_processing_log').selectAll().where('tracking_id', '=', trackingId).orderBy('id').execute();

export function waitForStatus(trackingId: string, status: 'completed' | 'failed', timeoutMs = 30_000) {
  return waitFor(
    async () => {
      const row = await execution(trackingId);
      return row?.processing_status === status ? row : undefined;
    },
    timeoutMs,
    `${trackingId} ${status}`,
  );
}

/** Rows of a finished execution (the runner flushes them at the end of its invocation). */
export function waitForRows(trackingId: string, count: number) {
  return waitFor(
    async () => {
      const rows = await logRows(trackingId);
      return rows.length >= count ? rows : undefined;
    },
    10_000,
    `${count} log rows of ${trackingId}`,
  );
}

/** Captures the workflow logger's console lines (stdout), swallowing the host's other JSON log lines meanwhile. */
export function captureWorkflowLines(): { lines: WorkflowConsoleLine[]; restore: () => void } {
  const lines: WorkflowConsoleLine[] = [];
  const original = process.stdout.write.bind(process.stdout);
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    for (const line of text.split('\n').filter(Boolean)) {
      try {
        const parsed = JSON.parse(line);
        if (typeof parsed.message === 'string' && / WORKFLOW_\d+_/.test(parsed.message)) lines.push(parsed);
        continue;
      } catch {
        // not JSON: pass through
      }
      original(line + '\n', ...(rest as []));
    }
    return true;
  }) as typeof process.stdout.write);
  return { lines, restore: () => spy.mockRestore() };
}

/** A loopback port nothing listens on (the visual service "down"). */
export async function deadPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

// pdf-parse 1.1.1: the library file itself, not index.js (which runs a debug self-test when not required as a module).
const pdfParse = require('pdf-parse/lib/pdf-parse.js') as (data: Buffer) => Promise<{ numpages: number; text: string }>;
export const parsePdf = (data: Buffer) => pdfParse(data);

/**
 * Orders a report over HTTP as `token`'s user (202, or an error naming the answer) and follows its
 * status until it is no longer processing; answers that status, as the owner reads it.
 */
export async function finishedReport<S extends { status: string }>(host: TestHost, token: string, body: unknown): Promise<S> {
  const accepted = await host.fetch('/orchestrator/api/reports', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(token) },
    body: JSON.stringify(body),
  });
  if (accepted.status !== 202) throw new Error(`report request answered ${accepted.status}: ${await accepted.text()}`);
  const { trackingId } = (await accepted.json()) as { trackingId: string };
  return waitFor(
    async () => {
      const response = await host.fetch(`/orchestrator/api/reports/${trackingId}`, { headers: bearer(token) }).catch(() => undefined);
      const answer = response && ((await response.json()) as S);
      return answer && answer.status !== 'processing' ? answer : undefined;
    },
    60_000,
    `report ${trackingId}`,
  );
}
