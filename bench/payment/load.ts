/**
 * The payment bench's load generator, run in its own process (bench/payment/run.ts forks it) so
 * the host's CPU is measured alone and the two can use both cores. It reads the pre-signed events
 * from the file named by the parent and posts each once through autocannon: the first
 * `warmupEvents` as a warm-up (JIT, statement caches, connection pools), then the rest, timed from
 * the first measured request to the last measured answer (autocannon's own end comes on its
 * one-second tick, which would round the window up by as much as a second). It sends back the measured result and
 * how many responses were refused or reported a failed plan sync.
 */
import fs from 'node:fs';

/** The part of autocannon's API used here (the package ships no types). */
export interface LoadResult {
  requests: { total: number };
  latency: { p50: number; p90: number; p99: number; max: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface LoadRequest {
  method: string;
  setupRequest: (request: Record<string, unknown>) => Record<string, unknown>;
  onResponse: (status: number, body: string) => void;
}
const autocannon = require('autocannon') as (options: { url: string; connections: number; amount: number; requests: LoadRequest[] }) => Promise<LoadResult>;

export interface LoadOrder {
  url: string;
  connections: number;
  eventsFile: string;
  warmupEvents: number;
}
export interface SignedEvent {
  body: string;
  signature: string;
}
export interface LoadReport {
  result: LoadResult;
  seconds: number;
  failedSyncs: number;
}

/** Posts each event once, `connections` at a time; `failedSyncs` counts answers refused, or with a plan sync that failed. */
async function post(url: string, connections: number, events: SignedEvent[]): Promise<{ result: LoadResult; failedSyncs: number; seconds: number }> {
  let next = 0;
  let failedSyncs = 0;
  let firstSent = 0;
  let lastAnswered = 0;
  const result = await autocannon({
    url,
    connections: Math.min(connections, events.length),
    amount: events.length,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          if (next === 0) firstSent = performance.now();
          const event = events[next++ % events.length];
          return { ...request, body: event.body, headers: { 'content-type': 'application/json', 'stripe-signature': event.signature } };
        },
        onResponse: (status, body) => {
          lastAnswered = performance.now();
          // An event that moves no plan (a partial refund) answers without a sync; one that moves a plan must have pushed it.
          if (status !== 200 || JSON.parse(body).sync?.success === false) failedSyncs++;
        },
      },
    ],
  });
  return { result, failedSyncs, seconds: (lastAnswered - firstSent) / 1000 };
}

async function run(order: LoadOrder): Promise<void> {
  const events = JSON.parse(fs.readFileSync(order.eventsFile, 'utf8')) as SignedEvent[];
  await post(order.url, order.connections, events.slice(0, order.warmupEvents));
  process.send!('measuring');
  const report: LoadReport = await post(order.url, order.connections, events.slice(order.warmupEvents));
  process.send!(report, () => process.exit(0));
}

// A failed load run ends the process with the error, which the bench reports.
process.once(
  'message',
  (order: LoadOrder) =>
    void run(order).catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    }),
);
