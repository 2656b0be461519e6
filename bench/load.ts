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
import { randomBytes, randomInt } from 'node:crypto';
import path from 'node:path';

export interface LoadOrder {
  url: string;
  connections: number;
  /** How long to run; `amount` (a number of requests, closed loop only) wins when both are given. */
  durationSeconds: number;
  amount?: number;
  method?: string;
  headers?: Record<string, string>;
  /**
   * Every `[<n>]` in it becomes a new value per request (a random prefix of the generator's run and
   * a counter), a body never the same twice, in this run or another. (Not autocannon's
   * idReplacement: 3.x-8.x announce 27 more bytes per id than its ids have, so the server waits for
   * bytes that never come.)
   */
  body?: string;
  /** Open loop at this many requests per second; closed loop when absent. */
  ratePerSecond?: number;
}

export interface LoadResult {
  requests: { total: number; average: number };
  /** Seconds the run took. */
  duration: number;
  /** CPU ms the load generator's process used (start-up included). */
  cpuMs: number;
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
  duration: number;
  latency: { p50: number; p90: number; p99: number; max: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** The placeholder of a body that changes on every request. */
export const UNIQUE = '[<n>]';
/**
 * The placeholder of digits that change on every request: nine of them, so `12.[<#>]` is a number
 * that differs on every request (unique data, not only a unique label) and still reads as 12.
 */
export const UNIQUE_DIGITS = '[<#>]';

const run = randomBytes(6).toString('hex');
// A random start, so two load generators of one run (one per row) do not send the same digits.
let unique = randomInt(0, 500_000_000);
const hasPlaceholder = (body: string | undefined) => Boolean(body?.includes(UNIQUE) || body?.includes(UNIQUE_DIGITS));
/** The body of the next request: `order.body` with each placeholder replaced by a value never sent before (in this run). */
function nextBody(order: LoadOrder): string | undefined {
  if (!hasPlaceholder(order.body)) return order.body;
  unique++;
  return order.body!.replaceAll(UNIQUE, `${run}-${unique}`).replaceAll(UNIQUE_DIGITS, String(unique).padStart(9, '0'));
}

type Measured = Omit<LoadResult, 'cpuMs'>;

async function closedLoop(order: LoadOrder): Promise<Measured> {
  const autocannon = require('autocannon') as (options: Record<string, unknown>) => Promise<AutocannonResult>;
  const result = await autocannon({
    url: order.url,
    connections: order.connections,
    duration: order.durationSeconds,
    method: order.method ?? 'GET',
    headers: order.headers,
    amount: order.amount,
    body: order.body,
    ...(hasPlaceholder(order.body) ? { requests: [{ setupRequest: (request: Record<string, unknown>) => ({ ...request, body: nextBody(order) }) }] } : {}),
  });
  const { requests, duration, latency, non2xx, errors, timeouts } = result;
  return { requests, duration, latency, '2xx': result['2xx'], non2xx, errors: errors + timeouts };
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0);
const round2 = (n: number) => Math.round(n * 100) / 100;

async function openLoop(order: LoadOrder, rate: number): Promise<Measured> {
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
        const response = await pool.request({ path: pathAndQuery, method: (order.method ?? 'GET') as 'GET', headers: order.headers, body: nextBody(order) });
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
  const result: Measured = {
    requests: { total: latencies.length, average: counts.inWindow / order.durationSeconds },
    duration: order.durationSeconds,
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
  const run = async (order: LoadOrder) => {
    const result = order.ratePerSecond ? await openLoop(order, order.ratePerSecond) : await closedLoop(order);
    const cpu = process.cpuUsage();
    process.send!({ ...result, cpuMs: (cpu.user + cpu.system) / 1000 }, () => process.exit(0));
  };
  // A failed load run ends the process with the error, which the bench reports.
  process.once('message', (order: LoadOrder) => void run(order).catch(failLoad));
}

function failLoad(error: unknown): never {
  console.error(error);
  process.exit(1);
}
