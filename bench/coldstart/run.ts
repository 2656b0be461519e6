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
import { PROJECT_ROOT } from '../../devhost/paths';
import { generateDevSecrets } from '../../devhost/settings';
import { SERVICE_NAMES, type ServiceName } from '../../shared/config';
import { formatSteal, stealMeter } from '../cpu-steal';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 10);
const SERVICES = (process.env.BENCH_SERVICES?.split(',') ?? SERVICE_NAMES) as ServiceName[];
const MODES = ['without', 'with'] as const;

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
          const env = {
            ...base,
            SERVICES: service,
            BENCH_SERVICE: service,
            ...(mode === 'with' ? { APPLICATIONINSIGHTS_CONNECTION_STRING: connectionString } : {}),
          };
          const result = await runSample(env);
          if (result.status !== '200') throw new Error(`${service} (${mode} App Insights): health answered ${result.status}`);
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
      '| Service | App Insights | Entry point load, median / p90 (ms) | First 200 on health from process start, median / p90 (ms) | First 200 ÷ floor (medians) | Where the time to the first 200 goes, medians: boot / load / appStart / first health call (ms) | Modules after start-up / after the first 200 |\n|---|---|---|---|---|---|---|\n',
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
          `| ${service} | ${mode} | ${ms(percentile(load, 50))} / ${ms(percentile(load, 90))} | ${ms(percentile(first, 50))} / ${ms(percentile(first, 90))} | ${(percentile(first, 50) / floorMedian).toFixed(1)} | ${parts} | ${samples[0].modulesAtStart ?? '?'} / ${samples[0].modules} |\n`,
        );
      }
    }
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
