/**
 * `npm run bench:payment`: signed Stripe events per second end to end (webhook verified,
 * deduplicated and recorded in SQL, plan PUT to identity answered, sync marked) at 16 concurrent
 * connections, with p50/p99 latency and memory. The events are a paying customer base's mix
 * (./mix.ts): renewals (invoice.paid), one-off purchases, partial and full refunds, disputes
 * opened and closed. The webhook answers only after the plan update reached identity, so its
 * latency is the event-to-plan-updated time. An in-process dev host (SQLite, Azurite, real
 * identity) serves everything, with a stub for the one Stripe read renewals make; afterwards no
 * plan sync may be owed, and every user's plan in identity must be the one their ordered events
 * decide (0 updates lost).
 *
 * Then it profiles one event at a time (./profile.ts): signature, SQL, the identity call.
 *
 * Options (env): BENCH_EVENTS (default 6000, after a warm-up of BENCH_WARMUP, default 1000),
 * BENCH_USERS (default 500), BENCH_CONNECTIONS (default 16), BENCH_PROFILE_SAMPLES (default 300).
 */
import { appSettings } from '../../tests/helpers/context';
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Stripe from 'stripe';
import { startDevHost } from '../../devhost/host';

import { db } from '../../shared/sql/db';
import { identityContext } from '../../functions/identity/context';
import { insertUser } from '../../functions/identity/users';
import { paymentContext } from '../../functions/payment/context';
import { createLogger } from '../../shared/logging';
import type { LoadOrder, LoadReport, SignedEvent } from './load';
import { profileEvent, type EventProfile } from './profile';
import type { Plan } from '../../shared/auth/access-token';
import { formatSteal, stealMeter } from '../cpu-steal';
import { signMix, startStripeStub } from './mix';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 6000);
const USERS = Number(process.env.BENCH_USERS ?? 500);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000);
const PROFILE_SAMPLES = Number(process.env.BENCH_PROFILE_SAMPLES ?? 300);
const TARGET_PER_SECOND = 600;

/**
 * Runs the load generator (./load) in its own process; `measuring` is called when its warm-up is
 * over, so the host's CPU and the steal are read over the same window as the throughput.
 */
function load(order: LoadOrder, measuring: () => void): Promise<LoadReport> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(__dirname, 'load.js'));
    child.on('message', (message) => (message === 'measuring' ? measuring() : resolve(message as LoadReport)));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the load generator exited with code ${code} before reporting`)));
    child.send(order);
  });
}

/** Distinct signed payment_intent.succeeded events, one payment each, signed up front (valid for 300 s). */
function signEvents(prefix: string, count: number, userIds: string[]): SignedEvent[] {
  const signer = new Stripe('sk_test_bench');
  const secret = appSettings().STRIPE_WEBHOOK_SECRET;
  const created = Math.floor(Date.now() / 1000);
  return Array.from({ length: count }, (_, i) => {
    const userId = userIds[i % userIds.length];
    const planType = planOf(i);
    const body = JSON.stringify({
      id: `evt_${prefix}_${i}`,
      object: 'event',
      api_version: Stripe.API_VERSION,
      created: created + Math.floor(i / userIds.length),
      type: 'payment_intent.succeeded',
      livemode: false,
      pending_webhooks: 1,
      data: {
        object: {
          id: `pi_${prefix}_${i}`,
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
}
const planOf = (i: number): Plan => (i % 3 === 0 ? 'enterprise' : 'pro');

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
const us = (micros: number) => `${Math.round(micros).toLocaleString('en-US')} µs`;
const share = (part: number, whole: number) => `${Math.round((100 * part) / whole)} %`;

function profileTable(p: EventProfile): string {
  const rows: [string, number][] = [
    ['Stripe signature check (HMAC-SHA256, constructEvent)', p.signatureMicros],
    ["payment's SQL (event row, payment row, sync lease, mark synced)", p.paymentSqlMicros],
    [`the call to identity (HTTP, route, token, validation; of it ${us(p.identitySqlMicros)} identity's SQL)`, p.identityCallMicros],
    ['the rest of the webhook (its HTTP both ways, the client included; routing, JSON, validation, logging)', p.restMicros],
  ];
  return [
    `| Where one event's time goes (one at a time, mean of ${p.samples}) | time | share |`,
    '|---|---|---|',
    ...rows.map(([name, micros]) => `| ${name} | ${us(micros)} | ${share(micros, p.eventMicros)} |`),
    `| whole event, signed POST to plan updated in identity | ${us(p.eventMicros)} | 100 % |`,
  ].join('\n');
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-payment-'));
  const stripe = await startStripeStub();
  const host = await startDevHost({
    settingsFile: path.join(dir, 'local.settings.json'),
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error', STRIPE_API_BASE: stripe.url },
  });
  try {
    // Users written as identity writes them, with identity's context on the host's platform.
    const identity = identityContext(host.platform, createLogger({ component: 'bench' }));
    const userIds: string[] = [];
    for (let i = 0; i < USERS; i++) userIds.push((await insertUser(identity, { email: `bench-${i}@example.com` })).id);
    const profileUserIds: string[] = [];
    for (let i = 0; i < PROFILE_SAMPLES; i++) profileUserIds.push((await insertUser(identity, { email: `profile-${i}@example.com` })).id);

    // One mix for the warm-up and the measured events: each user's events run on from one to the other.
    const mix = signMix('bench', WARMUP + EVENTS, userIds, appSettings().STRIPE_WEBHOOK_SECRET, Math.floor(Date.now() / 1000));
    const eventsFile = path.join(dir, 'events.json');
    fs.writeFileSync(eventsFile, JSON.stringify(mix.events));

    let cpuBefore = process.cpuUsage();
    let memoryBefore = process.memoryUsage();
    let steal = stealMeter();
    const { result, seconds, failedSyncs } = await load(
      { url: `${host.url}/payment/webhook`, connections: CONNECTIONS, eventsFile, warmupEvents: WARMUP },
      () => {
        cpuBefore = process.cpuUsage();
        memoryBefore = process.memoryUsage();
        steal = stealMeter();
      },
    );
    const cpu = process.cpuUsage(cpuBefore);
    const stealPercent = steal();
    const memoryAfter = process.memoryUsage();
    const cpuMsPerEvent = (cpu.user + cpu.system) / 1000 / result.requests.total;

    // Nothing lost: no plan sync still owed, and each user's plan in identity is what their events decide.
    const owed = await (db() as any)
      .selectFrom('payment_payments')
      .select((eb: any) => eb.fn.countAll().as('n'))
      .where('sync_state', 'in', ['pending', 'failed', 'manual_review'])
      .executeTakeFirstOrThrow();
    const plans: { id: string; plan: Plan }[] = await (db() as any).selectFrom('users').select(['id', 'plan']).where('email', 'like', 'bench-%').execute();
    const lost = plans.filter((u) => mix.expected.get(u.id) !== u.plan);
    const paid = plans.filter((u) => u.plan !== 'free').length;

    const profileSteal = stealMeter();
    const profile = await profileEvent(
      paymentContext(host.platform, createLogger({ bench: 'payment' })),
      `${host.url}/payment/webhook`,
      signEvents('profile', 3 * PROFILE_SAMPLES, profileUserIds),
      profileUserIds.map((id, i) => ({ id, plan: planOf(i + 1) })),
      PROFILE_SAMPLES,
    );
    const profileStealPercent = profileSteal();

    const perSecond = result.requests.total / seconds;
    const lines = [
      `payment webhook bench: ${os.cpus().length} cores (${os.cpus()[0]?.model}), node ${process.version}, SQLite and Azurite, load generator in its own process, load average ${os.loadavg()[0].toFixed(1)}`,
      `${EVENTS} signed events after a warm-up of ${WARMUP}, ${USERS} users, ${CONNECTIONS} connections; each answer comes after the plan update reached identity`,
      `the mix, warm-up included: ${Object.entries(mix.counts)
        .map(([type, n]) => `${type} ${n}`)
        .join(', ')}; ${stripe.calls()} Stripe reads (the stub)`,
      '',
      '| Signed event to plan updated in identity | events/s | p50 ms | p90 ms | p99 ms | max ms | host CPU ms/event | non-2xx, errors | CPU steal |',
      '|---|---|---|---|---|---|---|---|---|',
      `| ${CONNECTIONS} connections, ${result.requests.total} events in ${seconds.toFixed(2)} s (target ${TARGET_PER_SECOND}/s) | ${perSecond.toFixed(0)} | ${result.latency.p50} | ${result.latency.p90} | ${result.latency.p99} | ${result.latency.max} | ${cpuMsPerEvent.toFixed(2)} | ${result.non2xx}, ${result.errors + result.timeouts} | ${formatSteal(stealPercent)} |`,
      '',
      `verified: ${lost.length} updates lost (users whose plan in identity is not what their ordered events decide${
        lost.length
          ? `: ${lost
              .slice(0, 5)
              .map((u) => `${u.id} ${u.plan} != ${mix.expected.get(u.id)}`)
              .join(', ')}`
          : ''
      }), ${Number(owed.n)} plan syncs still owed in SQL, ${failedSyncs} answers refused or with a failed sync; ${paid}/${USERS} users on a paid plan; a refund or dispute of their newest payment decided the plan of ${mix.decidedByRefundOrDispute}; host memory rss ${mb(memoryBefore.rss)} -> ${mb(memoryAfter.rss)}, heap ${mb(memoryBefore.heapUsed)} -> ${mb(memoryAfter.heapUsed)}`,
      '',
      `${profileTable(profile)}`,
      '',
      `profile CPU steal ${formatSteal(profileStealPercent)}`,
    ];
    process.stdout.write(lines.join('\n') + '\n');
    if (lost.length || Number(owed.n) || failedSyncs) process.exitCode = 1;
  } finally {
    await host.stop();
    await stripe.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
