import type { LiveUser } from '../../shared/auth/live-session';
import type { OrchestratorConfig } from './settings';
import { check, checkSql, checkStorage, healthReport, optional, type DependencyCheck } from '../../shared/health';
import { json } from '../../shared/http/handler';
import { httpProbe } from '../../shared/http/probe';
import type { Infer } from '../../shared/http/schemas';
import { trimTrailingSlashes } from '../../shared/text';
import { aiProviderName } from './ai/provider';
import { op, type OrchestratorContext } from './context';
import type * as s from './health-schemas';
import type { VisualClient } from './visual-client';
import { WORKFLOW_LOGGER_VERSION } from './workflow/workflow-logger';

/**
 * The orchestrator's health: SQL, Storage and the workflow log are required; the AI provider (every
 * report fails without it) and the visual service (reports go without charts, the console without
 * its trend chart) are optional, their failure reported as degraded. Each probe of those two is one
 * cheap HTTP request with its own deadline, never a completion.
 */

const PROBE_TIMEOUT_MS = 2500;

/** Why a request got no answer: the connection error's own words (`connect ECONNREFUSED 10.0.0.4:443`), never a URL with a key. */
function unreachable(error: unknown): Error {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`);
  return new Error(`unreachable: ${e?.cause?.message ?? e?.cause?.code ?? e?.message ?? String(error)}`);
}

async function probe(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  try {
    return await httpProbe(url, { headers, timeoutMs: PROBE_TIMEOUT_MS });
  } catch (error) {
    throw unreachable(error);
  }
}

/**
 * The AI provider: offline needs nothing; an endpoint must answer its model list (`GET /models`,
 * Azure OpenAI's `/openai/models`). Any HTTP answer means reachable, except that a key it refuses
 * (401, 403) is reported: every report would fail on it. Without a key (managed identity, or a
 * local server) the answer's status is only shown.
 */
export function checkAi(cfg: OrchestratorConfig): Promise<DependencyCheck> {
  return check(async () => {
    const name = aiProviderName(cfg);
    if (name === 'offline') return 'offline provider (no AI endpoint configured)';
    if (!cfg.ORCHESTRATOR_AI_ENDPOINT) throw new Error(`ORCHESTRATOR_AI_PROVIDER=${name} needs ORCHESTRATOR_AI_ENDPOINT`);
    const base = trimTrailingSlashes(cfg.ORCHESTRATOR_AI_ENDPOINT);
    const key = cfg.ORCHESTRATOR_AI_API_KEY;
    const azure = name === 'azure-openai';
    const url = azure ? `${base}/openai/models?api-version=${encodeURIComponent(cfg.ORCHESTRATOR_AI_API_VERSION)}` : `${base}/models`;
    const headers: Record<string, string> = key ? (azure ? { 'api-key': key } : { authorization: `Bearer ${key}` }) : {};
    const res = await probe(url, headers);
    if (key && (res.status === 401 || res.status === 403)) throw new Error(`the ${name} endpoint refused the API key (${res.status})`);
    return `${name} endpoint reachable (HTTP ${res.status})`;
  }, PROBE_TIMEOUT_MS + 500);
}

/** The visual service: its own health route, which checks its storage and renderer. */
export function checkVisual(visual: Pick<VisualClient, 'url'>): Promise<DependencyCheck> {
  return check(async () => {
    const res = await probe(`${visual.url}/health`);
    let body: { status?: string; reason?: string } = {};
    try {
      body = JSON.parse(res.body) as typeof body;
    } catch {
      // not JSON: the status says it
    }
    if (res.status < 200 || res.status > 299)
      throw new Error(`the visual service is ${body.status ?? `answering ${res.status}`}${body.reason ? ` (${body.reason})` : ''}`);
    return `visual service ${body.status ?? 'healthy'}`;
  }, PROBE_TIMEOUT_MS + 500);
}

/** The workflow log: its batch writer, and whether it found the log table. */
function checkWorkflowLog(ctx: Pick<OrchestratorContext, 'logWriter'>): Promise<DependencyCheck> {
  return check(async () => {
    const stats = ctx.logWriter.getStats();
    if (stats.tableMissing) throw new Error('log table missing: logging to the console only');
    return `${stats.pending} rows pending, ${stats.persisted} persisted, ${stats.failedFlushes} failed flushes`;
  });
}

/**
 * GET orchestrator/health: dependency health (SQL, Storage and the workflow log required; the AI
 * provider and the visual service optional: degraded with the problem); `?schema=check` compares
 * the log table with what the logger needs.
 */
export const health = op<LiveUser | undefined, unknown, Infer<typeof s.HEALTH_QUERY>>(
  "Health of the orchestrator and its dependencies; with schema=check, the log table's schema against the workflow logger",
  async ({ query, ctx }) => {
    if (query.schema === 'check') {
      // Loaded with the first schema check: it needs the query builder, which a plain health call
      // on SQLite never loads (a cold start's first probe).
      const { checkLogSchema } = require('./workflow/schema-check') as typeof import('./workflow/schema-check');
      const result = await checkLogSchema(ctx.db);
      return json(200, { service: 'orchestrator', workflowLoggerVersion: WORKFLOW_LOGGER_VERSION, timestamp: ctx.now().toISOString(), ...result });
    }
    return healthReport(
      'orchestrator',
      {
        sql: () => checkSql(ctx),
        storage: () => checkStorage(ctx.storage, ctx.config.ORCHESTRATOR_REPORTS_CONTAINER),
        workflowLog: () => checkWorkflowLog(ctx),
        ai: optional(() => checkAi(ctx.config)),
        visual: optional(() => checkVisual(ctx.visual)),
      },
      query.skip ? [query.skip] : [],
    );
  },
);
