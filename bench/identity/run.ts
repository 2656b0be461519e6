import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevHost } from '../../devhost/host';
import { mintServiceToken } from '../../shared/auth/service-token';
import { config } from '../../shared/config';
import { sqliteFile } from '../../shared/sql/db';
import { signIn } from '../../tests/helpers/identity';
import { stealMeter } from '../cpu-steal';
import { startFloorServer } from './floor';

const CONNECTIONS = 32;
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 10);
const AUTOCANNON = require.resolve('autocannon/autocannon.js');

interface Load {
  url: string;
  method?: 'GET' | 'PUT';
  headers: Record<string, string>;
  body?: string;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** autocannon in its own process, so the host's CPU time is measured alone and the two can use both cores. */
function autocannon(load: Load, seconds: number): Promise<AutocannonResult> {
  const args = [AUTOCANNON, '-j', '-c', String(CONNECTIONS), '-d', String(seconds), '-m', load.method ?? 'GET'];
  for (const [key, value] of Object.entries(load.headers)) args.push('-H', `${key}=${value}`);
  if (load.body) args.push('-b', load.body);
  args.push(load.url);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout) as AutocannonResult),
    );
  });
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function run(name: string, target: number, load: Load) {
  await autocannon(load, 2); // warm-up: JIT, statement caches
  const cpuBefore = process.cpuUsage();
  const steal = stealMeter();
  const result = await autocannon(load, DURATION_SECONDS);
  const cpuStealPercent = steal();
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
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    // The host's own CPU per request (the load generator runs in another process): what bounds throughput on idle cores.
    hostCpuMicrosPerRequest: Math.round((cpu.user + cpu.system) / Math.max(1, result.requests.total)),
    loadAverage: os.loadavg()[0].toFixed(1),
    cpuStealPercent,
    rss: mb(memory.rss),
    heapUsed: mb(memory.heapUsed),
    meetsTarget: result.requests.average >= target && result.latency.p99 < 20 && result.non2xx === 0,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/**
 * `npm run bench:identity`: GET /auth/validate with a user token and PUT /admin/users/{id}/plan with
 * the service token, over HTTP against an in-process dev host (SQLite), 32 connections each; then the
 * same plan update against the floor servers of `./floor.ts`, which run none of the platform's code.
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
    process.stdout.write(
      `identity bench: ${os.cpus().length} cores (${os.cpus()[0]?.model}), node ${process.version}, ${CONNECTIONS} connections, ${DURATION_SECONDS} s each, SQLite\n`,
    );
    await run('GET /identity/auth/validate', 5000, {
      url: `${host.url}/identity/auth/validate`,
      headers: { authorization: `Bearer ${user.accessToken}` },
    });
    const planUpdate = (base: string): Load => ({
      url: `${base}/identity/admin/users/${user.user.id}/plan`,
      method: 'PUT',
      headers: { authorization: `Bearer ${serviceToken}`, 'x-service': cfg.PAYMENT_SERVICE_ID, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'pro', status: 'active', updatedBy: cfg.PAYMENT_SERVICE_ID, timestamp: new Date().toISOString() }),
    });
    await run('PUT /identity/admin/users/{id}/plan (service token)', 2000, planUpdate(host.url));
    // The same request against bare node:http, without and with the same SQL: what no platform code can beat here.
    for (const [name, file] of [
      ['floor: bare node:http, same request, no SQL', undefined],
      ['floor: bare node:http + the same 3 statements (better-sqlite3)', sqliteFile(cfg)],
    ] as const) {
      const floor = await startFloorServer(file);
      try {
        await run(name, 2000, planUpdate(floor.url));
      } finally {
        await floor.close();
      }
    }
  } finally {
    await host.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
