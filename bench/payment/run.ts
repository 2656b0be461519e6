/**
 * `npm run bench:payment`: signed payment_intent.succeeded events per second end to end (webhook
 * verified, deduplicated and recorded in SQL, plan PUT to identity answered, sync marked) at 16
 * concurrent connections, with p50/p99 latency and memory. The webhook answers only after the
 * plan update reached identity, so its latency is the event-to-plan-updated time. An in-process
 * dev host (SQLite, Azurite, real identity) serves everything; afterwards every payment is checked
 * as synced and every user's plan in identity.
 *
 * Options (env): BENCH_EVENTS (default 6000), BENCH_USERS (default 500), BENCH_CONNECTIONS (default 16).
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Stripe from 'stripe';
import { startDevHost } from '../../devhost/host';
import { config } from '../../shared/config';
import { db } from '../../shared/sql/db';
import { insertUser } from '../../functions/identity/users';
import type { LoadOrder, LoadReport, SignedEvent } from './load';
import { formatSteal, stealMeter } from '../cpu-steal';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 6000);
const USERS = Number(process.env.BENCH_USERS ?? 500);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

/** Runs the load generator (./load) in its own process and waits for its report. */
function load(order: LoadOrder): Promise<LoadReport> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'load.js'));
    child.once('message', (report) => resolve(report as LoadReport));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the load generator exited with code ${code} before reporting`)));
    child.send(order);
  });
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-payment-'));
  const host = await startDevHost({
    settingsFile: path.join(dir, 'local.settings.json'),
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error' },
  });
  try {
    const userIds: string[] = [];
    for (let i = 0; i < USERS; i++) userIds.push((await insertUser({ email: `bench-${i}@example.com` })).id);

    // Events are signed up front (the signature stays valid for 300 s); each is a distinct payment.
    const signer = new Stripe('sk_test_bench');
    const secret = config().STRIPE_WEBHOOK_SECRET;
    const created = Math.floor(Date.now() / 1000);
    const events = Array.from({ length: EVENTS }, (_, i) => {
      const userId = userIds[i % USERS];
      const planType = i % 3 === 0 ? 'enterprise' : 'pro';
      const body = JSON.stringify({
        id: `evt_bench_${i}`,
        object: 'event',
        api_version: Stripe.API_VERSION,
        created: created + Math.floor(i / USERS),
        type: 'payment_intent.succeeded',
        livemode: false,
        pending_webhooks: 1,
        data: {
          object: {
            id: `pi_bench_${i}`,
            object: 'payment_intent',
            amount: planType === 'pro' ? 2900 : 9900,
            currency: 'usd',
            status: 'succeeded',
            metadata: { userId, planType, priceVersion: '2026-01' },
          },
        },
      });
      return { body, signature: signer.webhooks.generateTestHeaderString({ payload: body, secret }) };
    });

    const eventsFile = path.join(dir, 'events.json');
    fs.writeFileSync(eventsFile, JSON.stringify(events satisfies SignedEvent[]));

    const memoryBefore = process.memoryUsage();
    const cpuBefore = process.cpuUsage();
    const steal = stealMeter();
    const { result, seconds, failedSyncs } = await load({ url: `${host.url}/payment/webhook`, connections: CONNECTIONS, eventsFile });
    const cpu = process.cpuUsage(cpuBefore);
    const stealPercent = steal();
    const cpuMsPerEvent = (cpu.user + cpu.system) / 1000 / result.requests.total;
    const memoryAfter = process.memoryUsage();

    const synced = await (db() as any)
      .selectFrom('payment_payments')
      .select((eb: any) => eb.fn.countAll().as('n'))
      .where('sync_state', 'in', ['synced', 'superseded'])
      .executeTakeFirstOrThrow();
    const plans = await (db() as any).selectFrom('users').select(['plan']).where('email', 'like', 'bench-%').execute();
    const upgraded = plans.filter((u: { plan: string }) => u.plan !== 'free').length;

    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
    const lines = [
      `payment webhook bench: ${EVENTS} signed payment_intent.succeeded events, ${USERS} users, ${CONNECTIONS} connections, ${os.cpus().length} cores (load average ${os.loadavg()[0].toFixed(1)}, CPU steal during the run ${formatSteal(stealPercent)})`,
      `  throughput     ${(result.requests.total / seconds).toFixed(0)} events/s end to end (${result.requests.total} in ${seconds.toFixed(1)} s; target 300/s)`,
      `  latency        p50 ${result.latency.p50} ms, p90 ${result.latency.p90} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
      `  responses      ${result['2xx']} 2xx, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts; ${failedSyncs} without a successful sync`,
      `  verified       ${Number(synced.n)}/${EVENTS} payments synced or superseded in SQL; ${upgraded}/${USERS} users upgraded in identity`,
      `  CPU            ${cpuMsPerEvent.toFixed(2)} ms per event in the host process (webhook and identity; the load generator runs in its own): about ${(1000 / cpuMsPerEvent).toFixed(0)} events/s if it had one core to itself`,
      `  memory         rss ${mb(memoryBefore.rss)} -> ${mb(memoryAfter.rss)}, heap ${mb(memoryBefore.heapUsed)} -> ${mb(memoryAfter.heapUsed)}`,
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await host.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
