import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevHost } from '../../devhost/host';
import { mintServiceToken } from '../../shared/auth/service-token';
import { config } from '../../shared/config';
import { signIn } from '../../tests/helpers/identity';

// autocannon ships no types; only the fields read below are declared.
// eslint-disable-next-line @typescript-eslint/no-var-requires
const autocannon = require('autocannon') as (options: object) => Promise<AutocannonResult>;

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

const CONNECTIONS = 32;
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 10);

function mb(bytes: number) {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

async function run(name: string, target: number, options: object) {
  await autocannon({ ...options, connections: CONNECTIONS, duration: 2 }); // warm-up
  const cpuBefore = process.cpuUsage();
  const result = await autocannon({ ...options, connections: CONNECTIONS, duration: DURATION_SECONDS });
  const cpu = process.cpuUsage(cpuBefore);
  const memory = process.memoryUsage();
  const line = {
    benchmark: name,
    requestsPerSecond: Math.round(result.requests.average),
    target,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    total: result.requests.total,
    // Server and load generator share this process: CPU per request bounds throughput on an idle machine.
    cpuMicrosPerRequest: Math.round((cpu.user + cpu.system) / Math.max(1, result.requests.total)),
    loadAverage: os.loadavg()[0].toFixed(1),
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    rss: mb(memory.rss),
    heapUsed: mb(memory.heapUsed),
    meetsTarget: result.requests.average >= target && result.latency.p99 < 20 && result.non2xx === 0,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
  return line;
}

/**
 * `npm run bench:identity`: GET /auth/validate with a user token and PUT /admin/users/{id}/plan with
 * the service token, over HTTP against an in-process dev host (SQLite), 32 connections each.
 */
async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-identity-'));
  const host = await startDevHost({
    settingsFile: path.join(dir, 'local.settings.json'),
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error', SERVICES: 'identity' },
  });
  try {
    const user = await signIn({ ...host, dir, fetch: (p: string, init?: RequestInit) => fetch(`${host.url}${p}`, init) }, 'bench@example.com');
    const cfg = config();
    const serviceToken = mintServiceToken({ secret: cfg.SERVICE_TOKEN_SECRET, issuer: cfg.PAYMENT_SERVICE_ID, audience: cfg.IDENTITY_SERVICE_ID });
    process.stdout.write(`identity bench: ${os.cpus().length} cores (${os.cpus()[0]?.model}), node ${process.version}, ${CONNECTIONS} connections, ${DURATION_SECONDS} s each, SQLite\n`);
    await run('GET /identity/auth/validate', 5000, {
      url: `${host.url}/identity/auth/validate`,
      headers: { authorization: `Bearer ${user.accessToken}` },
    });
    await run('PUT /identity/admin/users/{id}/plan (service token)', 2000, {
      url: `${host.url}/identity/admin/users/${user.user.id}/plan`,
      method: 'PUT',
      headers: { authorization: `Bearer ${serviceToken}`, 'x-service': cfg.PAYMENT_SERVICE_ID, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'pro', status: 'active', updatedBy: cfg.PAYMENT_SERVICE_ID, timestamp: new Date().toISOString() }),
    });
  } finally {
    await host.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
