/**
 * Orchestrator benchmark: workflow logger overhead per logged step, log rows persisted per second
 * on SQLite, the time of a full offline report execution excluding AI time (with the visual
 * service down and up), and what the live session check costs a route. Starts its own dev host in
 * process; HTTP load comes from a process of its own. `npm run bench:orchestrator`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startDevHost } from '../../devhost/host';
import { orchestratorContext } from '../../functions/orchestrator/context';
import { SAMPLE_REQUEST } from '../../functions/orchestrator/workflow/diagnostics';
import { insertExecution } from '../../functions/orchestrator/workflow/executions';
import { LogWriter } from '../../functions/orchestrator/workflow/log-writer';
import { runExecution } from '../../functions/orchestrator/workflow/runner';
import { STAGES } from '../../functions/orchestrator/workflow/stages';
import { WorkflowLogger, type WorkflowLogContext } from '../../functions/orchestrator/workflow/workflow-logger';
import { createLogger } from '../../shared/logging';
import { SYSTEM_CLOCK } from '../../shared/platform';
import { migrateToLatest, sqliteKysely } from '../../shared/sql/db';
import { MIGRATIONS } from '../../functions/migrations';
import { formatSteal, stealMeter } from '../cpu-steal';
import { runLoad } from '../load';
import { latestCode } from '../../tools/outbox';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const memory = () => `rss ${mb(process.memoryUsage().rss)}, heap ${mb(process.memoryUsage().heapUsed)}`;

async function tempSqlite(dir: string) {
  // The same pragmas as the platform's db(): WAL, synchronous NORMAL.
  const database = new Database(path.join(dir, 'bench.sqlite'));
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  const kysely = sqliteKysely(database);
  await migrateToLatest(kysely, MIGRATIONS);
  return kysely;
}

/** What a logger outside any host reads: INFO lines on, the system clock, rows to `writer`. */
const loggerContext = (writer: LogWriter): WorkflowLogContext => ({ config: { LOG_LEVEL: 'info' }, now: () => SYSTEM_CLOCK.now(), logWriter: writer });

/** Per logged event on the workflow's path: the console line (written to /dev/null) and the hand-off to the batch writer. */
async function loggerOverhead(dir: string): Promise<void> {
  const kysely = await tempSqlite(dir);
  const devNull = fs.openSync('/dev/null', 'w');
  const writer = new LogWriter({ database: () => kysely, clock: SYSTEM_CLOCK, batchSize: 500, flushIntervalMs: 250, maxBufferedRows: 1_000_000 });
  const logger = new WorkflowLogger(loggerContext(writer), 'bench-overhead', writer, (line) => fs.writeSync(devNull, line));
  const events = 100_000;
  const samples: number[] = [];
  for (let i = 0; i < 2_000; i++) logger.start(STAGES.DATA_PREPARATION, { warmup: true });
  const started = process.hrtime.bigint();
  for (let i = 0; i < events; i += 2) {
    const t0 = process.hrtime.bigint();
    logger.start(STAGES.AI_ORCHESTRATION, { provider: 'offline', sections: 6 });
    logger.complete(STAGES.AI_ORCHESTRATION, { durationMs: 12, tokensUsed: 300, metadata: { provider: 'offline', sections: 6 } });
    samples.push(Number(process.hrtime.bigint() - t0) / 2 / 1000);
  }
  const totalUs = Number(process.hrtime.bigint() - started) / 1000;
  samples.sort((a, b) => a - b);
  console.log(`logger overhead per logged step event (console line + row hand-off, ${events.toLocaleString()} events):`);
  console.log(
    `  mean ${(totalUs / events).toFixed(2)} µs, p50 ${percentile(samples, 50).toFixed(2)} µs, p99 ${percentile(samples, 99).toFixed(2)} µs (target < 50 µs); ${memory()}`,
  );
  await writer.close();
  fs.closeSync(devNull);
  await kysely.destroy();
}

/** Rows written by the batch writer per second on SQLite (a file database). */
async function rowsPerSecond(dir: string): Promise<void> {
  const kysely = await tempSqlite(dir);
  const writer = new LogWriter({ database: () => kysely, clock: SYSTEM_CLOCK, batchSize: 2000, flushIntervalMs: 10_000, maxBufferedRows: 1_000_000 });
  const logger = new WorkflowLogger(loggerContext(writer), 'bench-rows', writer, () => undefined);
  const rows = 200_000;
  for (let i = 0; i < rows; i++) logger.complete(STAGES.PDF_ENHANCEMENT, { durationMs: i % 1000, metadata: { i } });
  const started = process.hrtime.bigint();
  await writer.flush();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const count = await kysely
    .selectFrom('orchestrator_processing_log')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  console.log(
    `rows persisted: ${Number(count.n).toLocaleString()} in ${seconds.toFixed(2)} s = ${Math.round(rows / seconds).toLocaleString()} rows/s (batches of 2000; target >= 20,000); ${memory()}`,
  );
  await kysely.destroy();
}

/** Full executions run inline (as test-enhanced-orchestrator does), timed without their AI stage. */
async function executions(label: string, env: Record<string, string>, runs: number): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-orch-host-'));
  const host = await startDevHost({
    settingsFile: path.join(dir, 'local.settings.json'),
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error', ...env },
  });
  try {
    const ctx = orchestratorContext(host.platform, createLogger({ component: 'bench' }));
    const totals: number[] = [];
    const withoutAi: number[] = [];
    for (let i = 0; i < runs; i++) {
      const trackingId = `bench-${label}-${i}`;
      await insertExecution(ctx, {
        trackingId,
        companyName: SAMPLE_REQUEST.company_name,
        industryId: SAMPLE_REQUEST.industry_id,
        submission: SAMPLE_REQUEST,
        requestedBy: 'bench',
        plan: 'pro',
        now: ctx.now().toISOString(),
      });
      const result = await runExecution(ctx, trackingId);
      if (result.outcome !== 'completed') throw new Error(`${trackingId} ${result.outcome}: ${result.reason}`);
      const ai = result.steps.find((s) => s.step_name === 'AI_ORCHESTRATION')!.duration_ms;
      totals.push(result.totalDurationMs);
      withoutAi.push(result.totalDurationMs - ai);
    }
    // The first run warms up (worker pools, PDF fonts, containers); report the rest.
    const warm = withoutAi.slice(1).sort((a, b) => a - b);
    console.log(`full offline execution (${label}, pro plan, ${runs - 1} warm runs, first run ${withoutAi[0]} ms):`);
    console.log(
      `  excluding AI: p50 ${percentile(warm, 50)} ms, p99 ${percentile(warm, 99)} ms, mean ${Math.round(warm.reduce((a, b) => a + b, 0) / warm.length)} ms; including offline AI p50 ${percentile(
        totals.slice(1).sort((a, b) => a - b),
        50,
      )} ms; ${memory()}`,
    );
  } finally {
    await host.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * GET /orchestrator/api/reports/{id} under load, with the session check cached for 5 s (the
 * default) and with every request asking identity (cache 0): what the live check costs a route.
 */
async function sessionCheckCost(): Promise<void> {
  console.log('\nlive session check on GET /orchestrator/api/reports/{id}, 8 connections, 8 s each (load generator in its own process):');
  console.log('  | session check | requests/s | p50 | p99 | CPU steal |');
  console.log('  |---|---|---|---|---|');
  for (const [label, seconds] of [
    ['cached 5 s (default)', '5'],
    ['asks identity every request', '0'],
  ] as const) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-orch-session-'));
    const host = await startDevHost({
      settingsFile: path.join(dir, 'local.settings.json'),
      env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error', SESSION_CHECK_CACHE_SECONDS: seconds },
    });
    try {
      const post = (p: string, body: unknown, token?: string) =>
        fetch(`${host.url}${p}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        });
      const email = 'bench-session@example.com';
      await post('/identity/auth/login', { email });
      const code = latestCode(host.dataDir, email);
      const { accessToken } = (await (await post('/identity/auth/verify', { email, code })).json()) as { accessToken: string };
      const { trackingId } = (await (await post('/orchestrator/api/reports', SAMPLE_REQUEST, accessToken)).json()) as { trackingId: string };
      const steal = stealMeter();
      const result = await runLoad({
        url: `${host.url}/orchestrator/api/reports/${trackingId}`,
        connections: 8,
        durationSeconds: 8,
        headers: { authorization: `Bearer ${accessToken}` },
      });
      if (result.non2xx || result.errors) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
      console.log(
        `  | ${label} | ${Math.round(result.requests.average).toLocaleString()} | ${result.latency.p50} ms | ${result.latency.p99} ms | ${formatSteal(steal())} |`,
      );
    } finally {
      await host.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

async function main(): Promise<void> {
  console.log(`orchestrator bench on ${os.cpus().length} cores (${os.cpus()[0]?.model}), Node ${process.version}; the machine may be shared.\n`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-orch-'));
  try {
    await loggerOverhead(fs.mkdtempSync(path.join(dir, 'a-')));
    await rowsPerSecond(fs.mkdtempSync(path.join(dir, 'b-')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const deadVisual = 'http://127.0.0.1:9/visual';
  await executions('visual service down', { VISUAL_URL: deadVisual }, 11);
  await executions('visual service up', {}, 6);
  await sessionCheckCost();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
