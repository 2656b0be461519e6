import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { rebuildRollups } from '../../functions/orchestrator/rollups/rebuild';
import { startDevHost, type DevHost } from '../../devhost/host';
import { db, sqliteFile, sqliteKysely } from '../../shared/sql/db';
import { formatSteal, stealMeter } from '../cpu-steal';
import { runLoad } from '../load';
import { latestCode } from '../../tools/outbox';
import { STATUS_EXECUTION_ID, seed, type SeedOptions } from './seed';

/**
 * Seeds a year of a busy tenant's history (1,000,000 executions and 10,000,000 log rows by default)
 * into SQLite, then loads each administration route over HTTP through the in-process dev host, with
 * the load generator in a process of its own, and prints a table of throughput, p50/p99 latency
 * and the CPU steal during each route's run, then memory. Target: p99 <= 150 ms at 4 connections.
 *
 * Seeding takes minutes. With BENCH_DATA_DIR the database is kept in that folder and reused by the
 * next run with the same sizes (its history is then as old as the seeding: windows read a little
 * less of the newest hours); without it a temporary folder is used and removed.
 */
const SIZES = {
  executions: Number(process.env.BENCH_EXECUTIONS ?? 1_000_000),
  logRows: Number(process.env.BENCH_LOG_ROWS ?? 10_000_000),
  companies: Number(process.env.BENCH_COMPANIES ?? 50_000),
  days: Number(process.env.BENCH_DAYS ?? 365),
};
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const TARGET_P99_MS = 150;

const ROUTES: [string, string][] = [
  ['overview', 'dashboard/overview'],
  ['failures 24h', 'dashboard/failures?timeframe=24h'],
  ['failures 7d', 'dashboard/failures?timeframe=7d'],
  ['failures 30d', 'dashboard/failures?timeframe=30d'],
  ['executions limit=100', 'dashboard/executions?limit=100'],
  ['executions failed', 'dashboard/executions?limit=100&status=failed'],
  ['search one company', `dashboard/executions?limit=100&search=${String(1234).padStart(String(SIZES.companies - 1).length, '0')}`],
  ['search common word', 'dashboard/executions?limit=100&search=wonka'],
  ['status (100 log rows)', `status/${STATUS_EXECUTION_ID}`],
  ['profiles', 'profiles'],
  ['profiles page 2000', 'profiles?page=2000&limit=20'],
  ['profiles failed', 'profiles?status=failed'],
  ['profiles search', 'profiles?search=wonka%20lab&limit=20'],
  ['profiles search+status', 'profiles?search=acme&status=failed&page=2&limit=10'],
];

const ADMIN_EMAIL = 'bench-admin@example.com';

/** Signs in as the host's bootstrap super admin with the emailed code, as the console does (the session stays live). */
async function adminToken(host: DevHost): Promise<string> {
  const post = (route: string, body: unknown) =>
    fetch(`${host.url}/identity/auth/${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  // Identity creates the bootstrap admin in the background at start-up.
  for (let attempt = 0; attempt < 50; attempt++) {
    const login = await post('login', { email: ADMIN_EMAIL });
    if (login.status === 200) {
      const verified = await post('verify', { email: ADMIN_EMAIL, code: latestCode(host.dataDir, ADMIN_EMAIL) });
      if (verified.status === 200) return ((await verified.json()) as { accessToken: string }).accessToken;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`could not sign in as ${ADMIN_EMAIL}`);
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** The sizes a kept database was seeded with and when, in a table of the bench's own (not a migration). */
function seededWith(sqlite: Database.Database): (typeof SIZES & { seeded_at: string }) | undefined {
  const table = sqlite.prepare("select name from sqlite_master where type = 'table' and name = 'bench_seed'").get();
  return table
    ? (sqlite.prepare('select executions, logRows, companies, days, seeded_at from bench_seed').get() as typeof SIZES & { seeded_at: string })
    : undefined;
}

/** Seeds the host's database unless it already holds a history of the wanted sizes. */
async function prepareDatabase(): Promise<void> {
  // The first query migrates the host's database (a database kept from before migration 009 gets its rollups filled here).
  await db().selectFrom('orchestrator_executions').select('tracking_id').limit(1).execute();
  const sqlite = new Database(sqliteFile());
  sqlite.pragma('journal_mode = WAL');
  const kept = seededWith(sqlite);
  const same = kept && (Object.keys(SIZES) as (keyof typeof SIZES)[]).every((k) => kept[k] === SIZES[k]);
  if (same) {
    const hours = (Date.now() - Date.parse(kept.seeded_at)) / 3_600_000;
    console.log(`reusing the database seeded ${hours.toFixed(1)} hours ago (${sqliteFile()}, ${mb(fs.statSync(sqliteFile()).size)})`);
    sqlite.close();
    return;
  }
  if (kept) throw new Error(`${sqliteFile()} was seeded with other sizes (${JSON.stringify(kept)}): remove it or use another BENCH_DATA_DIR`);
  const started = performance.now();
  const options: SeedOptions = {
    ...SIZES,
    now: new Date(),
    progress: (executions, logRows) =>
      console.log(`  seeding: ${executions.toLocaleString()} executions, ${logRows.toLocaleString()} log rows (${seconds(started)})`),
  };
  const seeded = seed(sqlite, options);
  // The seed writes raw rows behind the application's back, as a bulk load does: the rollups are rebuilt from them.
  const rebuilding = performance.now();
  await rebuildRollups(sqliteKysely(sqlite));
  console.log(`  rollups rebuilt from the rows in ${seconds(rebuilding)}`);
  // Planner statistics, as `PRAGMA optimize` keeps them in a long-lived database, and the WAL
  // folded into the database file as checkpoints do in steady state.
  sqlite.exec('analyze');
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  sqlite.exec('create table bench_seed (executions integer, logRows integer, companies integer, days integer, seeded_at text)');
  sqlite.prepare('insert into bench_seed values (?, ?, ?, ?, ?)').run(SIZES.executions, SIZES.logRows, SIZES.companies, SIZES.days, options.now.toISOString());
  sqlite.close();
  console.log(
    `seeded ${seeded.executions.toLocaleString()} executions and ${seeded.logRows.toLocaleString()} log rows (${SIZES.companies.toLocaleString()} companies, ${SIZES.days} days) in ${seconds(started)}; database ${mb(fs.statSync(sqliteFile()).size)}`,
  );
}

async function main() {
  const keep = process.env.BENCH_DATA_DIR;
  const dir = keep ? path.resolve(keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'bench-dashboard-'));
  fs.mkdirSync(dir, { recursive: true });
  const hostStarted = performance.now();
  const host = await startDevHost({
    settingsFile: path.join(dir, 'local.settings.json'),
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error', BOOTSTRAP_ADMIN_EMAIL: ADMIN_EMAIL },
  });
  try {
    await prepareDatabase();
    console.log(`host ready and database prepared in ${seconds(hostStarted)}`);
    console.log(
      `load: ${CONNECTIONS} connections, ${SECONDS} s per route, load generator in its own process, ${os.cpus().length} cores shared with other work\n`,
    );

    const headers = { authorization: `Bearer ${await adminToken(host)}` };
    const base = `${host.url}/orchestrator/api/admin/`;
    const header = `${'route'.padEnd(24)} ${'req/s'.padStart(6)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'requests'.padStart(9)} ${'KB'.padStart(7)} ${'steal'.padStart(6)}  result`;
    console.log(header);
    console.log('-'.repeat(header.length));
    const whole = stealMeter();
    let allMet = true;
    for (const [name, route] of ROUTES) {
      const check = await fetch(base + route, { headers });
      if (check.status !== 200) throw new Error(`${route} answered ${check.status}: ${await check.text()}`);
      const size = (await check.arrayBuffer()).byteLength;
      for (let i = 0; i < 5; i++) await (await fetch(base + route, { headers })).arrayBuffer();
      const steal = stealMeter();
      const result = await runLoad({ url: base + route, headers, connections: CONNECTIONS, durationSeconds: SECONDS });
      const { p50, p99 } = result.latency;
      const met = p99 <= TARGET_P99_MS && result.non2xx === 0 && result.errors === 0;
      allMet &&= met;
      console.log(
        `${name.padEnd(24)} ${String(Math.round(result.requests.average)).padStart(6)} ${String(p50).padStart(7)} ${String(p99).padStart(7)} ` +
          `${String(result.requests.total).padStart(9)} ${(size / 1024).toFixed(1).padStart(7)} ${formatSteal(steal()).padStart(6)}  ${met ? 'ok' : `MISSED (non-2xx ${result.non2xx}, errors ${result.errors})`}`,
      );
    }
    const usage = process.memoryUsage();
    console.log(`\nCPU steal over all routes: ${formatSteal(whole())}`);
    console.log(`memory (host process): rss ${mb(usage.rss)}, heap used ${mb(usage.heapUsed)}, max rss ${mb(process.resourceUsage().maxRSS * 1024)}`);
    console.log(allMet ? `every route p99 <= ${TARGET_P99_MS} ms` : `some routes missed p99 <= ${TARGET_P99_MS} ms`);
  } finally {
    await host.stop();
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
