/**
 * The payment bench's load generator, run in its own process (bench/payment/run.ts forks it) so
 * the host's CPU is measured alone and the two can use both cores. It reads the pre-signed events
 * from the file named by the parent, posts each once through autocannon, and sends back the result
 * and how many responses did not report a successful plan sync.
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

process.once('message', async (order: LoadOrder) => {
  const events = JSON.parse(fs.readFileSync(order.eventsFile, 'utf8')) as SignedEvent[];
  let next = 0;
  let failedSyncs = 0;
  const started = performance.now();
  const result = await autocannon({
    url: order.url,
    connections: order.connections,
    amount: events.length,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          const event = events[next++ % events.length];
          return { ...request, body: event.body, headers: { 'content-type': 'application/json', 'stripe-signature': event.signature } };
        },
        onResponse: (status, body) => {
          if (status !== 200 || !JSON.parse(body).sync?.success) failedSyncs++;
        },
      },
    ],
  });
  const report: LoadReport = { result, seconds: (performance.now() - started) / 1000, failedSyncs };
  process.send!(report, () => process.exit(0));
});
