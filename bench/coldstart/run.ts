/**
 * `npm run bench:coldstart`: how long a Function App serving one service takes to start, per
 * service, with and without APPLICATIONINSIGHTS_CONNECTION_STRING. Every sample is a fresh Node
 * process (./sample) that loads the entry point through the emulated worker API, runs the appStart
 * hooks and invokes the service's health function until it answers 200. Reported: the entry
 * point's load time and the time from process start to that first 200, median and p90, and that
 * first 200 as a multiple of the floor measured in the same run (./floor: a bare Node process that
 * answers one HTTP 200), since this VM's speed drifts between runs.
 *
 * Shared by every sample: an in-memory Azurite, one migrated SQLite file, and a local server that
 * stands in for Application Insights' ingestion endpoint and for identity's health route (payment's
 * health asks identity). Samples of all services and both modes are interleaved, so a slow stretch
 * of this shared VM weighs on all of them alike.
 *
 * Besides health, each service's most common real request as the first request of a fresh process
 * (what a user waits for after a scale-out): identity's sign-in code request (POST auth/login, a new
 * e-mail each time), payment's plans, orchestrator's report status (GET api/reports/{id} with a
 * user's token, identity answering from a dev host the bench starts and signs the user in on), and
 * a visual chart (POST api/v1/charts/render, issue 33's PNG body with new data each time). These
 * run with Application Insights, as in Azure.
 *
 * Options (env): BENCH_SAMPLES (default 10), BENCH_SERVICES (default all four), BENCH_NODE_ARGS
 * (flags for every sample process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to see where a start goes).
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startAzurite } from '../../devhost/azurite';
import { startDevHost, type DevHost } from '../../devhost/host';
import { latestCode } from '../../tools/outbox';
import { PROJECT_ROOT } from '../../devhost/paths';
import { generateDevSecrets } from '../../devhost/settings';
import { SERVICE_NAMES, type ServiceName } from '../../shared/config';
import { formatSteal, stealMeter } from '../cpu-steal';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 10);
const SERVICES = (process.env.BENCH_SERVICES?.split(',') ?? SERVICE_NAMES) as ServiceName[];
const MODES = ['without', 'with', 'request'] as const;

/** A real request for ./sample (BENCH_REQUEST); `{n}` in its path and body becomes the sample's number. */
interface RequestOrder {
  fn: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  params?: Record<string, string>;
  body?: string;
}

/**
 * Each service's most common request, and what it needs: a dev host on the bench's database and
 * Azurite (identity for the orchestrator's token check), a user signed in on it, one report.
 */
async function realRequests(base: NodeJS.ProcessEnv, dir: string): Promise<{ host: DevHost; orders: Record<ServiceName, RequestOrder>; identityUrl: string }> {
  // Every service on one host, which finds its own identity (not the stand-in).
  const env = Object.fromEntries(
    Object.entries(base).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[0] !== 'IDENTITY_URL'),
  );
  const host = await startDevHost({ settingsFile: path.join(dir, 'local.settings.json'), env: { ...env, PORT: '0', LOG_LEVEL: 'error' } });
  const post = (route: string, body: unknown, token?: string) =>
    fetch(`${host.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const email = 'bench-coldstart@example.com';
  await post('/identity/auth/login', { email });
  const { accessToken } = (await (await post('/identity/auth/verify', { email, code: latestCode(host.dataDir, email) })).json()) as { accessToken: string };
  const { SAMPLE_REQUEST } = await import('../../functions/orchestrator/workflow/diagnostics');
  const created = await post('/orchestrator/api/reports', SAMPLE_REQUEST, accessToken);
  if (created.status !== 202) throw new Error(`the report was not created: ${created.status} ${await created.text()}`);
  const { trackingId } = (await created.json()) as { trackingId: string };
  // The report runs to its end before the samples, so its work does not share the machine with them.
  for (let waited = 0; waited < 120; waited++) {
    const status = (await (
      await fetch(`${host.url}/orchestrator/api/reports/${trackingId}`, { headers: { authorization: `Bearer ${accessToken}` } })
    ).json()) as { status?: string };
    if (['completed', 'failed', 'cancelled'].includes(String(status.status))) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const json = { 'content-type': 'application/json' };
  const chart = {
    charts: [
      {
        id: 'cold',
        type: 'bar',
        data: { labels: ['North', 'South', 'East', 'West', 'Central'], datasets: [{ label: 'Revenue', data: ['{n}', 19, 7, 15, 11] }] },
        options: { title: 'Revenue by region', width: 800, height: 400 },
      },
    ],
    format: 'png',
  };
  return {
    host,
    identityUrl: `${host.url}/identity`,
    orders: {
      identity: { fn: 'identity-login', method: 'POST', path: 'identity/auth/login', headers: json, body: JSON.stringify({ email: 'cold-{n}@example.com' }) },
      payment: { fn: 'payment-plans', method: 'GET', path: 'payment/plans', headers: {} },
      orchestrator: {
        fn: 'orchestrator-reports-get',
        method: 'GET',
        path: `orchestrator/api/reports/${trackingId}`,
        params: { trackingId },
        headers: { authorization: `Bearer ${accessToken}` },
      },
      visual: {
        fn: 'visual-charts-render',
        method: 'POST',
        path: 'visual/api/v1/charts/render',
        headers: { ...json, authorization: `Bearer ${base.VISUAL_API_TOKEN}` },
        body: JSON.stringify(chart).replace('"{n}"', '12.{n}'),
      },
    },
  };
}

interface Sample {
  loadMs: number;
  appStartMs: number;
  firstOk: number;
  /** Node's start and the worker emulation, before the entry point loads; the first health invocation (absent in samples of older code). */
  bootMs?: number;
  firstInvokeMs?: number;
  status: string;
  /** Modules loaded once the entry point and appStart ran (absent in samples of older code), and after the first 200. */
  modulesAtStart?: number;
  modules: number;
}

/** Answers the exporter (any POST: every item accepted) and identity's health probe. */
function startStandIn(): Promise<{ url: string; posts: () => number; close: () => Promise<void> }> {
  let posts = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST') posts++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(req.method === 'POST' ? '{"itemsReceived":1,"itemsAccepted":1,"errors":[]}' : '{"status":"healthy"}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        posts: () => posts,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

/** Runs `script` (./sample or ./floor) in a fresh process and reads the JSON line it prints last. */
function runSample<T = Sample>(env: NodeJS.ProcessEnv, script = 'sample.js'): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), path.join(__dirname, script)], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('exit', (code) => {
      const line = out
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('{'));
      if (code !== 0 || !line) reject(new Error(`sample exited with ${code}:\n${err.slice(-2000)}${out.slice(-2000)}`));
      else resolve(JSON.parse(line));
    });
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const ms = (n: number) => `${Math.round(n)}`;

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-coldstart-'));
  const azurite = await startAzurite();
  const standIn = await startStandIn();
  try {
    const sample = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'local.settings.sample.json'), 'utf8')).Values as Record<string, string>;
    const base: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      ...(await generateDevSecrets(sample)),
      AzureWebJobsStorage: azurite.connectionString,
      DATA_DIR: path.join(dir, 'data'),
      LOG_LEVEL: 'warn',
      IDENTITY_URL: `${standIn.url}/identity`,
      // As in Azure: the real Stripe API is configured (never called by the health probe), so no local Stripe server starts.
      STRIPE_SECRET_KEY: 'sk_test_coldstartbenchmark000000',
      FUNCTIONS_WORKER_RUNTIME: 'node',
    };
    // The database exists before the first sample, as it does in Azure after `npm run migrate`.
    await promisify(execFile)(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'scripts', 'migrate.js')], { env: base });
    const connectionString = `InstrumentationKey=00000000-0000-4000-8000-000000000000;IngestionEndpoint=${standIn.url}/;LiveEndpoint=${standIn.url}/`;

    const real = await realRequests(base, dir);
    let n = 0;
    const results = new Map<string, Sample[]>();
    const floor: number[] = [];
    const steal = stealMeter();
    process.stdout.write(`cold start: ${SAMPLES} fresh processes per service and mode, ${os.cpus().length} cores, Node ${process.version}\n`);
    for (let i = 0; i < SAMPLES; i++) {
      const bare = await runSample<{ firstOk: number; status: string }>({ PATH: process.env.PATH }, 'floor.js');
      if (bare.status !== '200') throw new Error(`the floor process answered ${bare.status}`);
      floor.push(bare.firstOk);
      for (const service of SERVICES) {
        for (const mode of MODES) {
          const order = real.orders[service];
          const number = String(++n);
          const env = {
            ...base,
            SERVICES: service,
            BENCH_SERVICE: service,
            ...(mode === 'without' ? {} : { APPLICATIONINSIGHTS_CONNECTION_STRING: connectionString }),
            ...(mode === 'request'
              ? {
                  BENCH_REQUEST: JSON.stringify({ ...order, body: order.body?.replaceAll('{n}', number) }),
                  ...(service === 'orchestrator' ? { IDENTITY_URL: real.identityUrl } : {}),
                }
              : {}),
          };
          const result = await runSample(env);
          if (result.status !== '200') throw new Error(`${service} (${mode}): answered ${result.status}`);
          const key = `${service}|${mode}`;
          results.set(key, [...(results.get(key) ?? []), result]);
        }
      }
      process.stdout.write(`  round ${i + 1}/${SAMPLES} done\n`);
    }

    process.stdout.write(`\nCPU steal during the run: ${formatSteal(steal())}; requests to the ingestion stand-in: ${standIn.posts()}\n\n`);
    const floorMedian = percentile(floor, 50);
    process.stdout.write(`Floor: a bare Node process to its first HTTP 200, median / p90: ${ms(floorMedian)} / ${ms(percentile(floor, 90))} ms\n\n`);
    process.stdout.write(
      '| Service | First request (App Insights) | Entry point load, median / p90 (ms) | First 200 from process start, median / p90 (ms) | First 200 ÷ floor (medians) | Where the time to the first 200 goes, medians: boot / load / appStart / first call (ms) | Modules after start-up / after the first 200 |\n|---|---|---|---|---|---|---|\n',
    );
    for (const service of SERVICES) {
      for (const mode of MODES) {
        const samples = results.get(`${service}|${mode}`)!;
        const load = samples.map((s) => s.loadMs);
        const first = samples.map((s) => s.firstOk);
        const median = (pick: (s: Sample) => number | undefined) =>
          ms(
            percentile(
              samples.map((s) => pick(s) ?? NaN),
              50,
            ),
          );
        const parts = [median((s) => s.bootMs), median((s) => s.loadMs), median((s) => s.appStartMs), median((s) => s.firstInvokeMs)].join(' / ');
        process.stdout.write(
          `| ${service} | ${mode === 'request' ? `${real.orders[service].method} ${real.orders[service].path.replace(/reports\/[^/]+$/, 'reports/{id}')} (with)` : `health (${mode})`} | ${ms(percentile(load, 50))} / ${ms(percentile(load, 90))} | ${ms(percentile(first, 50))} / ${ms(percentile(first, 90))} | ${(percentile(first, 50) / floorMedian).toFixed(1)} | ${parts} | ${samples[0].modulesAtStart ?? '?'} / ${samples[0].modules} |\n`,
        );
      }
    }
    await real.host.stop();
  } finally {
    await standIn.close();
    await azurite.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
