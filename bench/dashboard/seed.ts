import type Database from 'better-sqlite3';

/**
 * A realistic history for the administration dashboards: executions spread over `days` days
 * (about 85 % completed, 12 % failed, the newest still processing, a few long-running), each with
 * its workflow log rows, failures classified as the workflow logger does, retried steps, and
 * section steps padding the log to exactly `logRows` rows.
 */
export interface SeedOptions {
  executions: number;
  logRows: number;
  companies: number;
  /** How far back the history goes (30 days covers every dashboard window; 365 is a year). */
  days: number;
  now: Date;
  /** Called every 100,000 executions and at the end, with the rows written so far. */
  progress?: (executions: number, logRows: number) => void;
}

export const STATUS_EXECUTION_ID = 'bench-status-100';
export const STATUS_EXECUTION_LOG_ROWS = 100;

const DAY = 86_400_000;
const STAGES: [number, string][] = [
  [0, 'WORKFLOW_START'],
  [1, 'PROFILE_RETRIEVAL'],
  [2, 'STATUS_UPDATE'],
  [3, 'DATA_PREPARATION'],
  [4, 'AI_ORCHESTRATION'],
  [11, 'PDF_ENHANCEMENT'],
  [12, 'STORAGE_PROCESSING'],
  [99, 'WORKFLOW_COMPLETE'],
];
const SECTIONS: [number, string][] = [
  [5, 'EXECUTIVE_SUMMARY'],
  [6, 'MARKET_ANALYSIS'],
  [7, 'FINANCIAL_REVIEW'],
  [8, 'RISK_ASSESSMENT'],
  [9, 'GROWTH_PLAN'],
  [10, 'RECOMMENDATIONS'],
];
/** error pattern, source, failing stage index, weight, sample message */
const FAILURES: [string, string | null, number, number, string][] = [
  ['AI_SERVICE', 'AI_SERVICE', 4, 30, 'AI service returned 500 Internal Server Error'],
  ['RATE_LIMIT', 'AI_SERVICE', 4, 20, '429 Too Many Requests: retry after 20 seconds'],
  ['TIMEOUT', null, 5, 15, 'Step PDF_ENHANCEMENT timed out after 120000 ms'],
  ['SQL_CONNECTION', 'SQL_DATABASE', 2, 10, 'Failed to connect to server in 15000 ms'],
  ['BLOB_CONNECTION', 'BLOB_STORAGE', 6, 10, 'connect ECONNREFUSED storage account'],
  ['DATABASE_CONSTRAINT', 'SQL_DATABASE', 2, 5, 'Violation of PRIMARY KEY constraint'],
  ['SCHEMA_MISSING', 'SQL_DATABASE', 0, 2, "Invalid column name 'processing_step'"],
  ['OTHER', null, 3, 8, 'Unexpected token in profile data'],
];
const WORDS = [
  'Acme',
  'Northwind',
  'Contoso',
  'Fabrikam',
  'Globex',
  'Initech',
  'Umbrella',
  'Stark',
  'Wayne',
  'Tyrell',
  'Cyberdyne',
  'Soylent',
  'Hooli',
  'Vandelay',
  'Wonka',
  'Gringotts',
];
const KINDS = ['Holdings', 'Foods', 'Logistics', 'Health', 'Energy', 'Retail', 'Labs', 'Capital'];
const INDUSTRIES = ['11', '21', '22', '23', '31', '42', '44', '48', '51', '52', '53', '54', '56', '61', '62', '71', '72', '81'];

function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Word, kind and a zero-padded number unique to the company, so a search for the number finds exactly one company. */
export const companyName = (i: number, companies: number, word: string, kind: string) =>
  `${word} ${kind} ${String(i).padStart(String(companies - 1).length, '0')}`;

export function seed(sqlite: Database.Database, options: SeedOptions): { executions: number; logRows: number } {
  const rnd = random(42);
  const pick = <T>(items: readonly T[]) => items[Math.floor(rnd() * items.length)];
  const totalWeight = FAILURES.reduce((s, f) => s + f[3], 0);
  const pickFailure = () => {
    let r = rnd() * totalWeight;
    for (const f of FAILURES) if ((r -= f[3]) < 0) return f;
    return FAILURES[0];
  };
  const companies = Array.from({ length: options.companies }, (_, i) => companyName(i, options.companies, pick(WORDS), pick(KINDS)));
  const now = options.now.getTime();
  const iso = (t: number) => new Date(t).toISOString();

  const insertExecution = sqlite.prepare(`insert into orchestrator_executions
    (tracking_id, company_name, industry_id, processing_status, progress_percentage, health_status, submission, requested_by, plan,
     current_step, current_step_name, attempts, assets, visuals_status, visuals_error, error_message, error_pattern, error_source, error_step,
     created_at, started_at, completed_at, updated_at, duration_ms)
    values (@tracking_id, @company_name, @industry_id, @processing_status, @progress_percentage, 'HEALTHY', @submission, @requested_by, @plan,
     @current_step, @current_step_name, @attempts, @assets, @visuals_status, null, @error_message, @error_pattern, @error_source, @error_step,
     @created_at, @started_at, @completed_at, @updated_at, @duration_ms)`);
  const insertLog = sqlite.prepare(`insert into orchestrator_processing_log
    (tracking_id, step_name, step_number, status, duration_ms, tokens_used, error_message, metadata, timestamp, error_pattern, error_source, error_details)
    values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);

  let logRows = 0;
  const log = (trackingId: string, [number, name]: [number, string], status: string, at: number, error?: (typeof FAILURES)[number]) => {
    insertLog.run(
      trackingId,
      name,
      number,
      status,
      status === 'started' ? null : Math.floor(200 + rnd() * 20_000),
      number === 4 && status === 'completed' ? Math.floor(500 + rnd() * 4000) : null,
      error ? error[4] : null,
      status === 'completed' ? '{"ok":true}' : null,
      iso(at),
      error ? error[0] : null,
      error ? error[1] : null,
      error ? '{"attempt":1}' : null,
    );
    logRows++;
  };
  const completedIds: string[] = [];
  const createdAt = new Map<string, number>();

  // One transaction per 100,000 executions: a single one would hold gigabytes of write-ahead log.
  const checkpoint = () => sqlite.exec('commit; begin');
  sqlite.exec('begin');
  for (let i = 0; i < options.executions; i++) {
    const trackingId = i === 0 ? STATUS_EXECUTION_ID : `trk_${i.toString(36).padStart(6, '0')}`;
    // i = 0 is the status route's subject, completed with a report file; the next 20 still
    // process, five of them for over 10 minutes.
    const processing = i >= 1 && i <= 20;
    const created =
      i === 0
        ? now - 10 * 60_000
        : now - Math.floor((i / options.executions) * options.days * DAY) - (processing ? 0 : 15 * 60_000) - (i >= 16 && i <= 20 ? 20 * 60_000 : 0);
    const failure = i > 0 && !processing && rnd() < 0.12 ? pickFailure() : undefined;
    const duration = Math.floor(30_000 + rnd() * 210_000);
    const company = pick(companies);
    const stagesRun = failure ? STAGES.slice(0, failure[2]) : processing ? STAGES.slice(0, 4) : STAGES;
    let t = created;
    for (const stage of stagesRun) {
      if (stage[0] === 4 || stage[0] === 11) log(trackingId, stage, 'started', t);
      // One completed execution in twenty had a rate-limited AI call that succeeded on retry.
      if (stage[0] === 4 && !failure && rnd() < 0.05) log(trackingId, stage, 'failed', t + 500, FAILURES[1]);
      t += Math.floor(duration / STAGES.length);
      log(trackingId, stage, 'completed', t);
    }
    if (failure) {
      const stage = STAGES[failure[2]];
      log(trackingId, stage, 'started', t);
      log(trackingId, stage, 'failed', t + 1000, failure);
    }
    if (!processing && !failure) {
      completedIds.push(trackingId);
      createdAt.set(trackingId, created);
    }
    if ((i + 1) % 100_000 === 0) {
      checkpoint();
      options.progress?.(i + 1, logRows);
    }
    insertExecution.run({
      tracking_id: trackingId,
      company_name: company,
      industry_id: pick(INDUSTRIES),
      processing_status: processing ? 'processing' : failure ? 'failed' : 'completed',
      progress_percentage: processing ? 40 : failure ? Math.round((failure[2] / STAGES.length) * 100) : 100,
      submission: JSON.stringify({
        company_name: company,
        industry_id: '54',
        profile: { employees: Math.floor(rnd() * 5000), revenue: { 2024: 1.2e6, 2025: 1.5e6 } },
      }),
      requested_by: `user-${Math.floor(rnd() * 2000)}`,
      plan: pick(['free', 'pro', 'pro', 'enterprise']),
      current_step: processing ? 4 : null,
      current_step_name: processing ? 'AI_ORCHESTRATION' : null,
      attempts: failure && rnd() < 0.3 ? 2 : 1,
      assets:
        !processing && !failure
          ? JSON.stringify([{ kind: 'pdf', blob: `${trackingId}/report.pdf`, contentType: 'application/pdf', fileName: 'report.pdf', size: 48_213 }])
          : null,
      visuals_status: processing ? null : rnd() < 0.03 ? 'skipped' : 'included',
      error_message: failure ? failure[4] : null,
      error_pattern: failure ? failure[0] : null,
      error_source: failure ? failure[1] : null,
      error_step: failure ? STAGES[failure[2]][1] : null,
      created_at: iso(created),
      started_at: iso(created + 500),
      completed_at: processing ? null : iso(t + 1000),
      updated_at: iso(processing ? created + 60_000 : t + 1000),
      duration_ms: processing ? null : t + 1000 - created,
    });
  }
  // The status route's subject: exactly 100 log rows.
  const statusRows = sqlite.prepare('select count(*) as n from orchestrator_processing_log where tracking_id = ?').get(STATUS_EXECUTION_ID) as { n: number };
  for (let k = statusRows.n; k < STATUS_EXECUTION_LOG_ROWS; k++)
    log(STATUS_EXECUTION_ID, SECTIONS[k % SECTIONS.length], k % 2 ? 'completed' : 'started', now - 60_000 + k * 100);
  // Report sections of completed executions fill the log up to the wanted size.
  let k = 0;
  while (logRows < options.logRows) {
    const trackingId = completedIds[k % completedIds.length];
    const at = createdAt.get(trackingId)! + 30_000;
    for (const section of SECTIONS) {
      if (logRows >= options.logRows) break;
      log(trackingId, section, 'completed', at);
    }
    k++;
    if (k % 100_000 === 0) {
      checkpoint();
      options.progress?.(options.executions, logRows);
    }
  }
  sqlite.exec('commit');
  options.progress?.(options.executions, logRows);
  return { executions: options.executions, logRows };
}
