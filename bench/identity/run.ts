import { appSettings } from '../../tests/helpers/context';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevHost } from '../../devhost/host';
import { mintServiceToken } from '../../shared/auth/service-token';

import { sqliteFile } from '../../shared/sql/db';
import { signIn } from '../../tests/helpers/identity';
import { formatSteal, stealMeter } from '../cpu-steal';
import { runLoad, type LoadOrder, type LoadResult } from '../load';
import { startFloorServer } from './floor';

const CONNECTIONS = 32;
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 10);
const OPEN_LOOP_RATE = Number(process.env.BENCH_RATE ?? 1000);

type Load = Omit<LoadOrder, 'connections' | 'durationSeconds'>;

interface Row {
  name: string;
  result: LoadResult;
  hostCpuMicrosPerRequest: number;
  steal: number | undefined;
}

/** One measured run: a 2 s warm-up (JIT, statement caches), then the load with the host's CPU time and the steal. */
async function measure(name: string, load: Load, ratePerSecond?: number): Promise<Row> {
  await runLoad({ ...load, connections: CONNECTIONS, durationSeconds: 2, ratePerSecond });
  const cpuBefore = process.cpuUsage();
  const steal = stealMeter();
  const result = await runLoad({ ...load, connections: CONNECTIONS, durationSeconds: DURATION_SECONDS, ratePerSecond });
  const stealPercent = steal();
  const cpu = process.cpuUsage(cpuBefore);
  // The host's own CPU per request (the load generator runs in another process): what bounds throughput on idle cores.
  return { name, result, hostCpuMicrosPerRequest: Math.round((cpu.user + cpu.system) / Math.max(1, result.requests.total)), steal: stealPercent };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function closedTable(rows: Row[], floor: Row): string {
  const lines = [
    `| Closed loop, ${CONNECTIONS} connections, ${DURATION_SECONDS} s | req/s | ÷ floor (SQL) | p50 ms | p99 ms | max ms | host CPU µs/req | non-2xx, errors | CPU steal |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { name, result, hostCpuMicrosPerRequest, steal } of rows) {
    // The floor is a plan update: the ratio means nothing for another route.
    const ratio = name.startsWith('GET') ? '' : (result.requests.average / floor.result.requests.average).toFixed(2);
    lines.push(
      `| ${name} | ${fmt(result.requests.average)} | ${ratio} | ${result.latency.p50} | ${result.latency.p99} | ${result.latency.max} | ${hostCpuMicrosPerRequest} | ${result.non2xx}, ${result.errors} | ${formatSteal(steal)} |`,
    );
  }
  return lines.join('\n');
}

function openTable(rows: Row[]): string {
  const lines = [
    `| Open loop, ${fmt(OPEN_LOOP_RATE)} req/s offered, up to ${CONNECTIONS} connections, ${DURATION_SECONDS} s | offered/s | achieved/s | p50 ms | p90 ms | p99 ms | max ms | unanswered | non-2xx, errors | CPU steal |`,
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { name, result, steal } of rows) {
    lines.push(
      `| ${name} | ${fmt(result.offeredPerSecond!)} | ${fmt(result.achievedPerSecond!)} | ${result.latency.p50} | ${result.latency.p90} | ${result.latency.p99} | ${result.latency.max} | ${result.unanswered} | ${result.non2xx}, ${result.errors} | ${formatSteal(steal)} |`,
    );
  }
  return lines.join('\n');
}

/**
 * `npm run bench:identity`: GET /auth/validate with a user token and PUT /admin/users/{id}/plan with
 * the service token, over HTTP against an in-process dev host (SQLite), 32 connections each; then the
 * same plan update against the floor servers of `./floor.ts`, which run none of the platform's code;
 * then the plan update and the floor at a fixed offered rate (open loop) for latency. Targets: plan
 * update ≥ 0.85 of the floor with SQL in the same run; open-loop p99 under 20 ms.
 */
async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-identity-'));
  const host = await startDevHost({
    settingsFile: path.join(dir, 'local.settings.json'),
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error', SERVICES: 'identity' },
  });
  try {
    const user = await signIn({ ...host, dir, fetch: (p: string, init?: RequestInit) => fetch(`${host.url}${p}`, init) }, 'bench@example.com');
    const cfg = appSettings();
    const serviceToken = await mintServiceToken({ secret: cfg.SERVICE_TOKEN_SECRET, issuer: cfg.PAYMENT_SERVICE_ID, audience: cfg.IDENTITY_SERVICE_ID });
    process.stdout.write(
      `identity bench: ${os.cpus().length} cores (${os.cpus()[0]?.model}), node ${process.version}, SQLite, load generator in its own process, load average ${os.loadavg()[0].toFixed(1)}\n\n`,
    );
    const planUpdate = (base: string): Load => ({
      url: `${base}/identity/admin/users/${user.user.id}/plan`,
      method: 'PUT',
      headers: { authorization: `Bearer ${serviceToken}`, 'x-service': cfg.PAYMENT_SERVICE_ID, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'pro', status: 'active', updatedBy: cfg.PAYMENT_SERVICE_ID, timestamp: new Date().toISOString() }),
    });
    const validate = await measure('GET /identity/auth/validate (target 5,000/s)', {
      url: `${host.url}/identity/auth/validate`,
      headers: { authorization: `Bearer ${user.accessToken}` },
    });
    const plan = await measure('PUT /identity/admin/users/{id}/plan, service token (target ≥ 0.85 of the floor)', planUpdate(host.url));
    // The same request against bare node:http, without and with the same SQL: what no platform code can beat here.
    const floorNoSql = await withFloor(undefined, (url) => measure('floor: bare node:http, same request, no SQL', planUpdate(url)));
    const floor = await withFloor(sqliteFile(cfg), (url) => measure('floor: bare node:http + the same 3 statements (better-sqlite3)', planUpdate(url)));
    const planOpen = await measure('PUT plan, service token (target p99 < 20 ms)', planUpdate(host.url), OPEN_LOOP_RATE);
    const floorOpen = await withFloor(sqliteFile(cfg), (url) => measure('floor with the same 3 statements', planUpdate(url), OPEN_LOOP_RATE));
    process.stdout.write(`${closedTable([validate, plan, floorNoSql, floor], floor)}\n\n${openTable([planOpen, floorOpen])}\n`);
  } finally {
    await host.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function withFloor<T>(sqlite: string | undefined, run: (url: string) => Promise<T>): Promise<T> {
  const floor = await startFloorServer(sqlite);
  try {
    return await run(floor.url);
  } finally {
    await floor.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
