/**
 * A load generator in a process of its own (a bench forks it with `runLoad`), so the host's CPU is
 * measured alone: autocannon against one URL, closed loop, for a duration. Used where the load is
 * the same request over and over; the payment bench has its own generator for its pre-signed events.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export interface LoadOrder {
  url: string;
  connections: number;
  /** How long to run; `amount` (a number of requests) wins when both are given. */
  durationSeconds: number;
  amount?: number;
  method?: string;
  headers?: Record<string, string>;
  /**
   * Every `[<n>]` in it becomes a new value per request (a random prefix of the generator's run and
   * a counter), a body never the same twice, in this run or another. (Not
   * autocannon's idReplacement: 3.x-8.x announce 27 more bytes per id than its ids have, so the
   * server waits for bytes that never come.)
   */
  body?: string;
}

export interface LoadResult {
  requests: { total: number; average: number };
  /** Seconds the run took. */
  duration: number;
  latency: { p50: number; p99: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  /** CPU ms the load generator's process used (start-up included). */
  cpuMs: number;
}

/** Runs one load order in a forked process and returns autocannon's result. */
export function runLoad(order: LoadOrder): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'load.js'));
    child.once('message', (result) => resolve(result as LoadResult));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`load generator exited with ${code}`)));
    child.send(order);
  });
}

/** The placeholder of a body that changes on every request. */
export const UNIQUE = '[<n>]';

if (require.main === module) {
  const run = randomBytes(6).toString('hex');
  let unique = 0;
  const autocannon = require('autocannon') as (options: Record<string, unknown>) => Promise<LoadResult>;
  process.once('message', async (order: LoadOrder) => {
    const result = await autocannon({
      url: order.url,
      connections: order.connections,
      duration: order.durationSeconds,
      amount: order.amount,
      method: order.method ?? 'GET',
      headers: order.headers,
      body: order.body,
      ...(order.body?.includes(UNIQUE)
        ? { requests: [{ setupRequest: (request: Record<string, unknown>) => ({ ...request, body: order.body!.replaceAll(UNIQUE, `${run}-${++unique}`) }) }] }
        : {}),
    });
    const cpu = process.cpuUsage();
    process.send!({ ...result, cpuMs: (cpu.user + cpu.system) / 1000 }, () => process.exit(0));
  });
}
