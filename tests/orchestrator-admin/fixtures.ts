import type { Insertable } from 'kysely';
import type { ExecutionsTable, ProcessingLogExtension, ProcessingLogTable } from '../../functions/orchestrator/db/tables';
import { ROLLUP_TABLES } from '../../functions/orchestrator/db/rollups';
import { countCompanyExecution, countExecution } from '../../functions/orchestrator/rollups/write';
import { insertLogRows } from '../../functions/orchestrator/workflow/log-rows';

type ExecutionInsert = Required<Insertable<ExecutionsTable>>;
import { startTestHost, type TestHost } from '../helpers/host';
import { bearer, signIn, signInAdmin } from '../helpers/identity';
import { db } from '../orchestrator/helpers';

export const MINUTE = 60_000;
const STUCK_TIMER = 'orchestrator-fail-stuck-executions';
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The real time when the test file loaded (Azurite checks SAS links against the real clock). */
export const REAL_START = new Date();
/** The tests' "now": the latest half past the hour before the real time, so hour buckets are known. */
export const NOW = new Date(Math.floor((REAL_START.getTime() - 30 * MINUTE) / HOUR) * HOUR + 30 * MINUTE);
export const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();

/** Fakes Date only (the in-process host keeps real timers), pinned at NOW. */
export function useFakeClock(at: Date = NOW): void {
  jest.useFakeTimers({
    doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'],
  });
  jest.setSystemTime(at);
}

let sequence = 0;

/** One execution row; `createdAgo` places it relative to NOW. Finished rows get a completion time and duration. */
export async function insertExecution(fields: Partial<ExecutionInsert> & { createdAgo?: number } = {}): Promise<string> {
  const { createdAgo = HOUR, ...overrides } = fields;
  const created = ago(createdAgo);
  const status = overrides.processing_status ?? 'completed';
  const duration = overrides.duration_ms ?? (status === 'processing' ? null : 60_000);
  const finished = status !== 'processing';
  const row: ExecutionInsert = {
    tracking_id: `trk_${String(++sequence).padStart(6, '0')}`,
    company_name: 'Acme Corp',
    industry_id: '54',
    processing_status: status,
    progress_percentage: status === 'completed' ? 100 : 40,
    health_status: 'HEALTHY',
    submission: JSON.stringify({ company_name: overrides.company_name ?? 'Acme Corp', industry_id: '54' }),
    requested_by: 'user-1',
    plan: 'pro',
    current_step: finished ? null : 4,
    current_step_name: finished ? null : 'AI_ORCHESTRATION',
    attempts: 1,
    assets: null,
    visuals_status: finished ? 'included' : null,
    visuals_error: null,
    error_message: status === 'failed' ? 'AI request failed' : null,
    error_pattern: status === 'failed' ? 'AI_SERVICE' : null,
    error_source: status === 'failed' ? 'AI_SERVICE' : null,
    error_step: status === 'failed' ? 'AI_ORCHESTRATION' : null,
    created_at: created,
    started_at: created,
    completed_at: finished ? new Date(Date.parse(created) + (duration ?? 0)).toISOString() : null,
    updated_at: created,
    duration_ms: duration,
    quota_period: null,
    ...overrides,
  };
  // As the workflow writes executions: the row and its rollups in one transaction.
  await db()
    .transaction()
    .execute(async (trx) => {
      await trx.insertInto('orchestrator_executions').values(row).execute();
      await countExecution(trx, row, 1);
      await countCompanyExecution(trx, row);
    });
  return row.tracking_id;
}

type LogRow = Required<Insertable<Omit<ProcessingLogTable, 'id'> & ProcessingLogExtension>>;

/** One processing-log row `atAgo` before NOW (a failed AI step unless told otherwise). */
export async function insertLog(fields: Partial<LogRow> & { atAgo?: number } = {}): Promise<void> {
  const { atAgo = HOUR, ...overrides } = fields;
  const row: LogRow = {
    tracking_id: 'trk_log',
    step_name: 'AI_ORCHESTRATION',
    step_number: 4,
    status: 'failed',
    duration_ms: 1200,
    tokens_used: null,
    error_message: 'AI request failed',
    metadata: null,
    timestamp: ago(atAgo),
    error_pattern: 'AI_SERVICE',
    error_source: 'AI_SERVICE',
    error_details: null,
    ...overrides,
  };
  await db()
    .transaction()
    .execute((trx) => insertLogRows(trx, [row], NOW));
}

/** `count` log rows of the same shape. */
export async function insertLogs(count: number, fields: Partial<LogRow> & { atAgo?: number } = {}): Promise<void> {
  for (let i = 0; i < count; i++) await insertLog(fields);
}

export async function clearOrchestratorTables(): Promise<void> {
  await db().deleteFrom('orchestrator_processing_log').execute();
  await db().deleteFrom('orchestrator_executions').execute();
  await db().deleteFrom('orchestrator_admin_actions').execute();
  for (const table of ROLLUP_TABLES) await db().deleteFrom(table).execute();
}

export interface AdminClient {
  get(path: string, token?: string | null): Promise<{ status: number; body: any }>;
  adminToken: string;
  userToken: string;
}

/**
 * Signs in over HTTP as the bootstrap super admin and as a plain user (real OTP login through
 * identity), then GETs under /orchestrator/api/admin with the admin's token unless told otherwise
 * (`null`: no Authorization header).
 */
export async function adminClient(host: TestHost): Promise<AdminClient> {
  const adminToken = (await signInAdmin(host)).accessToken;
  const userToken = (await signIn(host, 'plain-user@example.com')).accessToken;
  return {
    adminToken,
    userToken,
    async get(path, token = adminToken) {
      const res = await host.fetch(`/orchestrator/api/admin/${path}`, { headers: token ? bearer(token) : {} });
      return { status: res.status, body: await res.json() };
    },
  };
}

/**
 * One dev host per test file with a signed-in admin and a fake clock at NOW; the orchestrator
 * tables are emptied before each test. `prepare` runs before the clock is faked (real storage calls);
 * `env` adds host settings.
 */
export function adminTestHost(prepare?: () => Promise<void>, env: Record<string, string> = {}): { host: TestHost; client: AdminClient } {
  const context = {} as { host: TestHost; client: AdminClient };
  beforeAll(async () => {
    // The stuck-execution timer reads the faked Date: moved days ahead, it would fail the fixtures' processing rows mid-test.
    context.host = await startTestHost({ env: { [`AzureWebJobs.${STUCK_TIMER}.Disabled`]: 'true', ...env } });
    await prepare?.();
    useFakeClock();
    context.client = await adminClient(context.host);
  });
  afterAll(async () => {
    jest.useRealTimers();
    await context.host?.stop();
  });
  beforeEach(() => clearOrchestratorTables());
  return context;
}

/** Scores at and around each band threshold (EXCELLENT from 90, GOOD from 85, FAIR from 70, else POOR). */
export const SCORE_BANDS: [number, string][] = [
  [100, 'EXCELLENT'],
  [90, 'EXCELLENT'],
  [89, 'GOOD'],
  [85, 'GOOD'],
  [84, 'FAIR'],
  [70, 'FAIR'],
  [69, 'POOR'],
];
