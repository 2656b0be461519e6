/**
 * A load generator in a process of its own (a bench forks it with `runLoad`), so the host's CPU is
 * measured alone. Two modes against one URL, the same request over and over:
 * - closed loop (default): autocannon, `connections` requests in flight, each sent when the last
 *   answered; measures throughput.
 * - open loop (`ratePerSecond`): requests leave on a fixed schedule whether or not earlier ones have
 *   answered (up to `connections` sockets; more wait in line), and each latency counts from the
 *   time the request was due, not from when a socket was free. A slow server therefore shows up as
 *   latency instead of lowering the offered rate (autocannon's overallRate paces each connection
 *   after its last answer, so it offers less exactly when the server is slow).
 * The payment bench has its own generator for its pre-signed events.
 */
import { fork } from 'node:child_process';
import path from 'node:path';

export interface LoadOrder {
  url: string;
  connections: number;
  durationSeconds: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Open loop at this many requests per second; closed loop when absent. */
  ratePerSecond?: number;
}

export interface LoadResult {
  requests: { total: number; average: number };
  latency: { p50: number; p90: number; p99: number; max: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  /** Open loop: requests per second sent on schedule, and answered within the run. */
  offeredPerSecond?: number;
  achievedPerSecond?: number;
  /** Open loop: requests sent but not answered when the run ended. */
  unanswered?: number;
}

/** Runs one load order in a forked process and returns its result. */
export function runLoad(order: LoadOrder): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'load.js'));
    child.once('message', (result) => resolve(result as LoadResult));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`load generator exited with ${code}`)));
    child.send(order);
  });
}

interface AutocannonResult {
  requests: { total: number; average: number };
  latency: { p50: number; p90: number; p99: number; max: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

async function closedLoop(order: LoadOrder): Promise<LoadResult> {
  const autocannon = require('autocannon') as (options: Record<string, unknown>) => Promise<AutocannonResult>;
  const result = await autocannon({
    url: order.url,
    connections: order.connections,
    duration: order.durationSeconds,
    method: order.method ?? 'GET',
    headers: order.headers,
    body: order.body,
  });
  const { requests, latency, non2xx, errors, timeouts } = result;
  return { requests, latency, '2xx': result['2xx'], non2xx, errors: errors + timeouts };
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0);
const round2 = (n: number) => Math.round(n * 100) / 100;

async function openLoop(order: LoadOrder, rate: number): Promise<LoadResult> {
  const { Pool } = require('undici') as typeof import('undici');
  const url = new URL(order.url);
  const pool = new Pool(url.origin, { connections: order.connections, pipelining: 1 });
  const pathAndQuery = `${url.pathname}${url.search}`;
  const latencies: number[] = [];
  const counts = { ok: 0, non2xx: 0, errors: 0, sent: 0, inWindow: 0 };
  const inFlight = new Set<Promise<void>>();
  const send = (due: number) => {
    counts.sent++;
    const request = (async () => {
      try {
        const response = await pool.request({ path: pathAndQuery, method: (order.method ?? 'GET') as 'GET', headers: order.headers, body: order.body });
        await response.body.dump();
        const done = performance.now();
        latencies.push(done - due);
        if (done <= end) counts.inWindow++;
        if (response.statusCode >= 200 && response.statusCode < 300) counts.ok++;
        else counts.non2xx++;
      } catch {
        counts.errors++;
      }
    })();
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
  };
  const start = performance.now();
  const end = start + order.durationSeconds * 1000;
  const intervalMs = 1000 / rate;
  let index = 0;
  // Every request has its due time start + index/rate; a tick sends all that are due, so a late
  // timer never lowers the rate, and the time a request waited for its tick counts as latency.
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (index < rate * order.durationSeconds && start + index * intervalMs <= now) void send(start + index++ * intervalMs);
      if (now >= end) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  // Requests sent in the window are waited for (up to a grace period): their latency counts.
  await Promise.race([Promise.all(inFlight), new Promise((resolve) => setTimeout(resolve, GRACE_MS))]);
  const result: LoadResult = {
    requests: { total: latencies.length, average: counts.inWindow / order.durationSeconds },
    latency: summary(latencies),
    '2xx': counts.ok,
    non2xx: counts.non2xx,
    errors: counts.errors,
    offeredPerSecond: Math.round(counts.sent / order.durationSeconds),
    achievedPerSecond: Math.round(counts.inWindow / order.durationSeconds),
    unanswered: inFlight.size,
  };
  await pool.destroy();
  return result;
}

const GRACE_MS = 5000;

function summary(latencies: number[]): LoadResult['latency'] {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number) => round2(percentile(sorted, p));
  return { p50: at(50), p90: at(90), p99: at(99), max: round2(sorted.at(-1) ?? 0) };
}

if (require.main === module) {
  process.once('message', async (order: LoadOrder) => {
    const result = order.ratePerSecond ? await openLoop(order, order.ratePerSecond) : await closedLoop(order);
    process.send!(result, () => process.exit(0));
  });
}
