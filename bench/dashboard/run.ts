import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SignJWT } from 'jose';
import { startDevHost } from '../../devhost/host';
import { identitySigningKeys } from '../../shared/auth/access-token';
import { config } from '../../shared/config';
import { sqliteFile } from '../../shared/sql/db';
import { STATUS_EXECUTION_ID, seed } from './seed';

/**
 * Seeds 100,000 executions and 1,000,000 log rows over 30 days into a fresh SQLite database, then
 * loads each administration route over HTTP through the in-process dev host and prints
 * throughput, p50/p99 latency and memory. Targets: p50 <= 50 ms, p99 <= 150 ms.
 */
const EXECUTIONS = Number(process.env.BENCH_EXECUTIONS ?? 100_000);
const LOG_ROWS = Number(process.env.BENCH_LOG_ROWS ?? 1_000_000);
const COMPANIES = Number(process.env.BENCH_COMPANIES ?? 5_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const TARGET = { p50: 50, p99: 150 };

const ROUTES: [string, string][] = [
  ['overview', 'dashboard/overview'],
  ['failures 24h', 'dashboard/failures?timeframe=24h'],
  ['failures 7d', 'dashboard/failures?timeframe=7d'],
  ['failures 30d', 'dashboard/failures?timeframe=30d'],
  ['executions limit=100', 'dashboard/executions?limit=100'],
  ['executions failed', 'dashboard/executions?limit=100&status=failed'],
  [`status (100 log rows)`, `status/${STATUS_EXECUTION_ID}`],
  ['profiles', 'profiles'],
  ['profiles search', 'profiles?search=wonka%20lab&limit=20'],
  ['profiles search+status', 'profiles?search=acme&status=failed&page=2&limit=10'],
];

/** An admin access token signed with identity's own key, as identity's login would issue it. */
async function adminToken(): Promise<string> {
  const [key] = await identitySigningKeys();
  const cfg = config();
  return new SignJWT({ email: 'bench-admin@example.com', role: 'admin', permissions: [], plan: 'enterprise', status: 'active', sid: 'bench' })
    .setProtectedHeader({ alg: key.alg, kid: key.kid })
    .setIssuer(cfg.JWT_ISSUER)
    .setAudience(cfg.JWT_AUDIENCE)
    .setSubject('bench-admin')
    .setIssuedAt()
    .setExpirationTime('1h')
    .setJti(`bench-${Date.now()}`)
    .sign(key.privateKey);
}

/** The part of autocannon's API used here (the package ships no types). */
interface LoadResult {
  latency: { p50: number; p99: number };
  requests: { average: number; total: number };
  non2xx: number;
  errors: number;
}
const autocannon = require('autocannon') as (options: {
  url: string;
  headers: Record<string, string>;
  connections: number;
  duration: number;
}) => Promise<LoadResult>;

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-dashboard-'));
  const host = await startDevHost({
    settingsFile: path.join(dir, 'local.settings.json'),
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error' },
  });
  try {
    const seedStarted = performance.now();
    const sqlite = new Database(sqliteFile());
    sqlite.pragma('journal_mode = WAL');
    const seeded = seed(sqlite, { executions: EXECUTIONS, logRows: LOG_ROWS, companies: COMPANIES, now: new Date() });
    // Planner statistics, as `PRAGMA optimize` keeps them in a long-lived database, and the WAL
    // folded into the database file as checkpoints do in steady state (the host's connection stays open).
    sqlite.exec('analyze');
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    sqlite.close();
    const fileSize = fs.statSync(sqliteFile()).size;
    console.log(
      `seeded ${seeded.executions.toLocaleString()} executions and ${seeded.logRows.toLocaleString()} log rows (${COMPANIES.toLocaleString()} companies, 30 days) in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s; database ${mb(fileSize)}`,
    );
    console.log(`load: ${CONNECTIONS} connections, ${SECONDS} s per route, ${os.cpus().length} cores shared with other work\n`);

    const headers = { authorization: `Bearer ${await adminToken()}` };
    const base = `${host.url}/orchestrator/api/admin/`;
    const rows: string[] = [];
    let allMet = true;
    for (const [name, route] of ROUTES) {
      const check = await fetch(base + route, { headers });
      if (check.status !== 200) throw new Error(`${route} answered ${check.status}: ${await check.text()}`);
      const size = (await check.arrayBuffer()).byteLength;
      for (let i = 0; i < 5; i++) await (await fetch(base + route, { headers })).arrayBuffer();
      const result = await autocannon({ url: base + route, headers, connections: CONNECTIONS, duration: SECONDS });
      const { p50, p99 } = result.latency;
      const met = p50 <= TARGET.p50 && p99 <= TARGET.p99 && result.non2xx === 0 && result.errors === 0;
      allMet &&= met;
      rows.push(
        `${name.padEnd(24)} ${String(Math.round(result.requests.average)).padStart(6)} req/s  p50 ${String(p50).padStart(4)} ms  p99 ${String(p99).padStart(4)} ms  ` +
          `${String(result.requests.total).padStart(6)} requests  ${(size / 1024).toFixed(1).padStart(6)} KB  non-2xx ${result.non2xx}  ${met ? 'ok' : 'MISSED'}`,
      );
      console.log(rows[rows.length - 1]);
    }
    const usage = process.memoryUsage();
    console.log(`\nmemory: rss ${mb(usage.rss)}, heap used ${mb(usage.heapUsed)}, max rss ${mb(process.resourceUsage().maxRSS * 1024)}`);
    console.log(
      allMet ? `all routes within p50 <= ${TARGET.p50} ms and p99 <= ${TARGET.p99} ms` : `some routes missed p50 <= ${TARGET.p50} ms / p99 <= ${TARGET.p99} ms`,
    );
  } finally {
    await host.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
