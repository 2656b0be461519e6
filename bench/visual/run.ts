/**
 * Visual service benchmark over HTTP against a dev host in this process (real Azurite in its own
 * process, real render pool), beside a QuickChart-shaped baseline in a process of its own
 * (bench/visual/baseline.ts: Chart.js 4 on @napi-rs/canvas, one thread, no cache); the load
 * generator (autocannon, bench/load.ts) runs in a process of its own for every scenario, so each
 * server's CPU is measured alone, from /proc, all threads. Rows, 4 concurrent, an 800x400 bar chart
 * with unique data per request: the baseline (PNG at density 1 and 2, SVG); the API with the body
 * of issue 33 (a title, format png, so the default quality: 2x) and at 1x, and as SVG;
 * /quickchart/chart with the body quickchart-js posts (PNG at 1x, SVG); cache hits at 4 and 16;
 * the render pool without HTTP, alone and behind the cache (drawn first, then a conditional upload). Each row prints the
 * CPU per chart of our process (HTTP, validation, storage SDK, render threads; and how it splits
 * between the request thread, the render threads and the rest), of Azurite, of the baseline and of
 * the load generator, the CPU steal and the other processes' share of the machine. The verdicts
 * table sets each route and format against the baseline.
 *
 *   npm run bench:visual                      (BENCH_SECONDS=8 per scenario by default)
 *   npm run bench:visual -- --soak            20,000 uncached PNG renders through the API in tenths
 *   npm run bench:visual -- --soak=svg        (SOAK_RENDERS to change the count)
 *   npm run bench:visual -- --steps           only the per-step CPU of one uncached SVG (STEP_RUNS, default 400)
 *
 * Before the rows, the per-step CPU of one uncached SVG through the render API's code (stepsProfile):
 * where our CPU per chart goes, and the cache write through the Storage SDK beside the Put Blob the
 * service makes (shared/blob-put.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevHost } from '../../devhost/host';
import { chartKey, parseChartsRequest, renderChartImage } from '../../functions/visual/charts';
import { imageResult } from '../../functions/visual/results';
import { hashKey } from '../../functions/visual/canonical';
import { cachedOrRendered, CONTENT_TYPES, newStats } from '../../functions/visual/results';
import type { ChartSpec } from '../../functions/visual/chart-spec';
import { HOT_INDEX } from '../../functions/visual/cache-index';
import { visualContext, type VisualContext } from '../../functions/visual/context';
import { createLogger } from '../../shared/logging';
import { themeOf } from '../../functions/visual/themes';
import { formatSteal, stealMeter } from '../cpu-steal';
import { fork, type ChildProcess } from 'node:child_process';
import { runLoad, UNIQUE_DIGITS, type LoadOrder } from '../load';
import { cpuMeter, machineBusyMs, processRssMb, threadCpuMs } from '../proc';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const SOAK = process.argv.find((arg) => arg.startsWith('--soak'));
const SOAK_RENDERS = Number(process.env.SOAK_RENDERS ?? 20_000);
const STEPS_ONLY = process.argv.includes('--steps');
const STEP_RUNS = Number(process.env.STEP_RUNS ?? 400);

/**
 * QuickChart's own server as issue 33 measured it on this machine (node-canvas/cairo, built from
 * source, the better of its Chart.js 2.9.4 and 4 paths, 4 concurrent, 800x400 bar): CPU ms per
 * chart. It cannot be built here without its sources, so the bench runs a baseline of the same
 * shape and prints these beside it.
 */
const ISSUE_QUICKCHART_CPU = { png: 14.4, svg: 5.6 };
/** Our process at most 2/3 of the baseline's CPU per uncached chart: the baseline's over ours at least 1.5. */
const CPU_RATIO_GOAL = 1.5;
const HITS_GOAL = 30;

interface Row {
  scenario: string;
  concurrency: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /**
   * CPU ms per request: this process (request thread and render threads), Azurite, the baseline's
   * process, the load generator; and this process's split: the request thread, the render threads
   * (the pool's busiest threads besides the request thread), the rest (V8's and libuv's helpers).
   */
  cpu: { host?: number; azurite?: number; baseline?: number; load?: number; requestThread?: number; renderThreads?: number; otherThreads?: number };
  /** Share of the machine's two cores that other processes (other work on the machine) took during the row. */
  othersPercent?: number;
  cpuStealPercent: number | undefined;
}
const rows: Row[] = [];

/** Where the first value of the bar chart goes; the load generator makes it 12.<nine digits>, a new value on every request. */
const FIRST_VALUE = '__first_value__';
/** A body as the load generator sends it: unique data per request (nothing is served from the cache) unless `fixed`. */
const bodyText = (body: object, fixed = false) =>
  JSON.stringify(body)
    .replace(`"${FIRST_VALUE}"`, fixed ? '12' : `12.${UNIQUE_DIGITS}`)
    .replace(`\\"${FIRST_VALUE}\\"`, fixed ? '12' : `12.${UNIQUE_DIGITS}`);

/** Issue 33's chart: an 800x400 bar chart with a title, as a render API specification. */
function barChart() {
  return {
    id: 'bench',
    type: 'bar',
    data: { labels: ['North', 'South', 'East', 'West', 'Central'], datasets: [{ label: 'Revenue', data: [FIRST_VALUE, 19, 7, 15, 11] }] },
    options: { title: 'Revenue by region', width: 800, height: 400 },
  };
}

/** The same chart as Chart.js 4 configuration text (what quickchart-js sends, and the baseline draws). */
const chartText = () => JSON.stringify({ type: 'bar', data: barChart().data, options: { plugins: { title: { display: true, text: 'Revenue by region' } } } });

/** The body quickchart-js 3 posts for a chart (toBinary with setWidth/setHeight/setFormat/setVersion, devicePixelRatio 1, the key). */
function quickChartBody(format: 'png' | 'svg', token: string) {
  return { width: 800, height: 400, chart: chartText(), format, devicePixelRatio: 1, version: '4', key: token };
}

const perRequest = (ms: number | undefined, requests: number) => (ms === undefined || !requests ? undefined : Math.round((ms / requests) * 10) / 10);
const show = (ms: number | undefined) => (ms === undefined ? 'n/a' : `${ms}`);

function record(row: Row) {
  rows.push(row);
  const { host, azurite, baseline, load, requestThread, renderThreads, otherThreads } = row.cpu;
  const split =
    requestThread === undefined ? '' : ` (request thread ${show(requestThread)}, render threads ${show(renderThreads)}, other threads ${show(otherThreads)})`;
  console.log(
    `${row.scenario.padEnd(46)} c=${String(row.concurrency).padEnd(2)} ${String(row.perSecond).padStart(5)}/s  p50 ${row.p50} p99 ${row.p99} ms  errors ${row.errors}` +
      `  CPU ms/req: ${baseline === undefined ? `ours ${show(host)}${split}, Azurite ${show(azurite)}` : `baseline ${show(baseline)}`}, load ${show(load)}` +
      `  other processes ${show(row.othersPercent)} %  steal ${formatSteal(row.cpuStealPercent)}`,
  );
}

interface Bench {
  token: string;
  url: string;
  azuritePid?: number;
  /** The QuickChart-shaped baseline's process and address. */
  baseline: { child: ChildProcess; url: string };
  poolSize: number;
  /** The visual service's context on the host's platform, for the rows without HTTP (the render pool, the cache). */
  visual: VisualContext;
}

/** Starts the baseline in a process of its own (bench/visual/baseline.ts). */
function startBaseline(): Promise<Bench['baseline']> {
  const child = fork(path.join(__dirname, 'baseline.js'));
  return new Promise((resolve, reject) => {
    child.once('message', (message) => resolve({ child, url: `http://127.0.0.1:${(message as { port: number }).port}` }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the baseline exited with ${code}`)));
  });
}

/** How the host process's CPU splits: the request thread (its main thread), the render threads (the pool's size of busiest other threads), the rest. */
function threadSplitMeter(pid: number, renderThreads: number): () => { requestThread: number; renderThreads: number; otherThreads: number } | undefined {
  const start = threadCpuMs(pid);
  return () => {
    const end = threadCpuMs(pid);
    if (!end.size) return undefined;
    const used = [...end].map(([tid, ms]) => [tid, ms - (start.get(tid) ?? 0)] as const);
    const main = used.find(([tid]) => tid === pid)?.[1] ?? 0;
    const others = used
      .filter(([tid]) => tid !== pid)
      .map(([, ms]) => ms)
      .sort((a, b) => b - a);
    const render = others.slice(0, renderThreads).reduce((a, b) => a + b, 0);
    const rest = others.slice(renderThreads).reduce((a, b) => a + b, 0);
    return { requestThread: main, renderThreads: render, otherThreads: rest };
  };
}

/**
 * Deletes the cache container and makes it again, so every uncached row starts from the same empty
 * store: Azurite's CPU per request grows with the number of blobs it holds (the soak shows it; Blob
 * Storage's does not), and without this each row would pay for the blobs of the rows before it.
 */
async function emptyStore(bench: Bench): Promise<void> {
  // Only ever the bench's own in-memory Azurite: never a container someone else's data lives in.
  if (bench.azuritePid === undefined) throw new Error('the bench empties the cache container only in an Azurite of its own');
  // The requests the load generator left in flight when it stopped finish first (their p99 is under
  // 200 ms): deleting the container under their uploads would fail them.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const client = await bench.visual.storage.container(bench.visual.config.VISUAL_CACHE_CONTAINER);
  await client.delete();
  await client.create();
  await bench.visual.platform.release(HOT_INDEX);
}

/** One scenario through HTTP, the load generator in its own process; `baseline`: against the baseline's process instead of ours. */
async function load(
  bench: Bench,
  scenario: string,
  route: string,
  concurrency: number,
  body: string,
  options: { amount?: number; baseline?: boolean } = {},
): Promise<Row> {
  const steal = stealMeter();
  const baselinePid = options.baseline ? bench.baseline.child.pid : undefined;
  const cpu = cpuMeter(options.baseline ? { baseline: baselinePid } : { host: process.pid, azurite: bench.azuritePid });
  const split = options.baseline ? undefined : threadSplitMeter(process.pid, bench.poolSize);
  const order: LoadOrder = {
    url: `${options.baseline ? bench.baseline.url : bench.url}${route}`,
    method: 'POST',
    connections: concurrency,
    durationSeconds: SECONDS,
    amount: options.amount,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bench.token}` },
    body,
  };
  const machine = othersMeter();
  const result = await runLoad(order);
  const used = cpu();
  const threads = split?.();
  const done = result['2xx'];
  const othersPercent = machine((used.host ?? 0) + (used.azurite ?? 0) + (used.baseline ?? 0) + result.cpuMs);
  return {
    scenario,
    concurrency,
    perSecond: Math.round(done / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    cpu: {
      host: perRequest(used.host, done),
      azurite: perRequest(used.azurite, done),
      baseline: perRequest(used.baseline, done),
      load: perRequest(result.cpuMs, done),
      requestThread: perRequest(threads?.requestThread, done),
      renderThreads: perRequest(threads?.renderThreads, done),
      otherThreads: perRequest(threads?.otherThreads, done),
    },
    othersPercent,
    cpuStealPercent: steal(),
  };
}

/**
 * The render pool without HTTP: `concurrency` callers of renderChartImage in a closed loop, alone
 * (no validation, no cache) or `withCache`: each render behind the cache as an uncached chart
 * request goes through it (the render, then an upload to Azurite if the key is free). The second is
 * the least an uncached request can cost here with the cache the contract requires; the HTTP rows
 * against it show what the rest of a request (HTTP, auth, validation, hashing) costs.
 */
async function poolRow(format: 'png' | 'svg', withCache: boolean, bench: Bench, concurrency = 4): Promise<Row> {
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const professional = themeOf('professional');
  const steal = stealMeter();
  const cpu = cpuMeter({ host: process.pid, azurite: withCache ? bench.azuritePid : undefined });
  const machine = othersMeter();
  const started = performance.now();
  const end = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const spec = JSON.parse(JSON.stringify(barChart()).replace(`"${FIRST_VALUE}"`, `12.${String(++n).padStart(9, '0')}`)) as ChartSpec;
        const t = performance.now();
        try {
          const render = () => renderChartImage(bench.visual, spec, professional, format, 'standard');
          if (withCache)
            await cachedOrRendered(
              bench.visual,
              chartKey(spec, format, 'standard', professional),
              CONTENT_TYPES[format],
              false,
              newStats(),
              'draw-first',
              render,
            );
          else await render();
          latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = cpu();
  const othersPercent = machine((used.host ?? 0) + (used.azurite ?? 0));
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 10) / 10;
  return {
    scenario: `render pool ${format.toUpperCase()} ${withCache ? '+ cache, drawn first (no HTTP)' : 'alone (no HTTP, no cache)'}`,
    concurrency,
    perSecond: Math.round(latencies.length / seconds),
    p50: at(0.5),
    p99: at(0.99),
    errors,
    cpu: { host: perRequest(used.host, latencies.length), azurite: perRequest(used.azurite, latencies.length) },
    othersPercent,
    cpuStealPercent: steal(),
  };
}

/**
 * The CPU of this process (all its threads, from process.cpuUsage) for each step of one uncached
 * SVG through the render API's code, one chart at a time, averaged over STEP_RUNS charts with
 * unique data: parse (JSON and the body's validation), draw and serialise (the render thread: our
 * SVG context writes the document as Chart.js draws, so the two are one step; with the pool's
 * messages), hash (the cache key), store (the cache write: the Storage SDK's upload, as before,
 * and the service's Put Blob), answer (the result's envelope as JSON). HTTP, authentication and
 * the Functions library's conversions are the rest of a request's CPU in the rows below.
 */
async function stepsProfile(bench: Bench): Promise<void> {
  const professional = themeOf('professional');
  const limits = bench.visual.limits;
  const containerName = bench.visual.config.VISUAL_CACHE_CONTAINER;
  const sdkContainer = await bench.visual.storage.container(containerName);
  const totals = { parse: 0, draw: 0, hash: 0, storeSdk: 0, storePut: 0, answer: 0 };
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const time = async <T>(step: keyof typeof totals, run: () => T | Promise<T>): Promise<T> => {
    const start = cpu();
    const out = await run();
    totals[step] += cpu() - start;
    return out;
  };
  const runs = STEP_RUNS;
  let bytesTotal = 0;
  let lastBytes: Uint8Array = new Uint8Array();
  for (let i = -20; i < runs; i++) {
    const text = bodyText(apiBody('svg')).replace(UNIQUE_DIGITS, `${process.pid}${String(i + 100).padStart(6, '0')}`);
    const measure = i >= 0;
    const at = <T>(step: keyof typeof totals, run: () => T | Promise<T>) => (measure ? time(step, run) : run());
    const request = await at('parse', () => parseChartsRequest(JSON.parse(text), limits));
    const spec = request.charts[0];
    const output = await at('draw', () => renderChartImage(bench.visual, spec, professional, 'svg', request.quality));
    const key = await at('hash', () => chartKey(spec, 'svg', request.quality, professional));
    bytesTotal += output.bytes.byteLength;
    lastBytes = output.bytes;
    const metadata = { generatedat: bench.visual.now().toISOString(), expiresat: bench.visual.now().toISOString() };
    // The same bytes under two names: the SDK's upload (what the service did before) and the Put Blob (what it does now).
    await at('storeSdk', () =>
      sdkContainer.getBlockBlobClient(`sdk-${key}`).uploadData(output.bytes, {
        blobHTTPHeaders: { blobContentType: CONTENT_TYPES.svg },
        metadata,
        conditions: { ifNoneMatch: '*' },
      }),
    );
    await at('storePut', () => bench.visual.storage.putBlob(containerName, key, output.bytes, { contentType: CONTENT_TYPES.svg, metadata, ifAbsent: true }));
    await at('answer', () => {
      const entry = { key, contentType: CONTENT_TYPES.svg, size: output.bytes.byteLength, generatedAt: metadata.generatedat, expiresAt: metadata.expiresat };
      const chart = imageResult(bench.visual.config, spec.id, entry, 'svg', { width: 800, height: 400, title: spec.options?.title });
      return JSON.stringify({ success: true, charts: [chart], cacheKey: hashKey('charts', [chart.imageUrl]), expiresAt: metadata.expiresat });
    });
  }
  // The two writes again, 4 at a time as under load (one at a time, each also pays the event loop's wake-up).
  const concurrent = async (label: string, put: (name: string) => Promise<unknown>) => {
    let n = 0;
    const start = cpu();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (n < runs) await put(`${label}-${process.pid}-${n++}`);
      }),
    );
    return Math.round(((cpu() - start) / runs) * 1000) / 1000;
  };
  const sample = lastBytes;
  const meta = { generatedat: bench.visual.now().toISOString(), expiresat: bench.visual.now().toISOString() };
  const sdkAt4 = await concurrent('sdk4', (name) =>
    sdkContainer
      .getBlockBlobClient(name)
      .uploadData(sample, { blobHTTPHeaders: { blobContentType: CONTENT_TYPES.svg }, metadata: meta, conditions: { ifNoneMatch: '*' } }),
  );
  const putAt4 = await concurrent('put4', (name) =>
    bench.visual.storage.putBlob(containerName, name, sample, { contentType: CONTENT_TYPES.svg, metadata: meta, ifAbsent: true }),
  );
  const each = (ms: number) => Math.round((ms / runs) * 100) / 100;
  const withPut = totals.parse + totals.draw + totals.hash + totals.storePut + totals.answer;
  const withSdk = withPut - totals.storePut + totals.storeSdk;
  console.log(
    [
      `One uncached SVG (${Math.round(bytesTotal / runs / 1024)} KiB), CPU ms of this process per step, mean of ${runs} charts one at a time:`,
      '',
      '| Step | CPU ms |',
      '|---|---|',
      `| parse (JSON.parse, the body's schema and checks) | ${each(totals.parse)} |`,
      `| draw + serialise (render thread, with the pool's messages) | ${each(totals.draw)} |`,
      `| hash (cache key) | ${each(totals.hash)} |`,
      `| store: Storage SDK upload (before) | ${each(totals.storeSdk)} |`,
      `| store: one Put Blob, Node's http client (now) | ${each(totals.storePut)} |`,
      `| answer (the envelope as JSON) | ${each(totals.answer)} |`,
      `| sum with the SDK upload / with the Put Blob | ${each(withSdk)} / ${each(withPut)} |`,
      '',
      `The store alone, ${runs} puts of that SVG 4 at a time: Storage SDK upload ${sdkAt4} ms, Put Blob ${putAt4} ms of CPU per put.`,
      '',
    ].join('\n'),
  );
}

/**
 * The share of the machine (all cores) that processes other than the measured ones used: other work
 * on a shared machine slows a row as steal does, and is not steal.
 */
function othersMeter(): (measuredMs: number) => number | undefined {
  const busy = machineBusyMs();
  const started = performance.now();
  return (measuredMs) => {
    const now = machineBusyMs();
    if (busy === undefined || now === undefined) return undefined;
    const capacity = (performance.now() - started) * os.cpus().length;
    return Math.max(0, Math.round((100 * (now - busy - measuredMs)) / capacity));
  };
}

const API = '/visual/api/v1/charts/render';
const QUICKCHART_ROUTE = '/quickchart/chart';
/** The render API's body: issue 33's is `{ charts: [chart], format: 'png' }` (so the default quality, high: 2x); `quality` standard draws at 1x. */
const apiBody = (format: 'png' | 'svg', quality?: 'standard') => ({ charts: [barChart()], format, ...(quality ? { quality } : {}) });
const BASELINE_ROUTE = '/chart';
const baselineBody = (format: 'png' | 'svg', devicePixelRatio: number) => ({
  width: 800,
  height: 400,
  chart: chartText(),
  format,
  devicePixelRatio,
  backgroundColor: 'white',
});

/** The rows as a Markdown table, each with its CPU per request and the CPU steal during it. */
function rowsTable(): string {
  const lines = [
    '| Scenario | Concurrency | Renders or hits/s | p50 / p99 ms | Errors | CPU ms per request: ours (request thread / render threads / other) / Azurite, or the baseline / load generator | Other processes | CPU steal |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const { host, azurite, baseline, load, requestThread, renderThreads, otherThreads } = row.cpu;
    const cpu =
      baseline !== undefined
        ? `baseline ${show(baseline)}`
        : `${show(host)}${requestThread === undefined ? '' : ` (${show(requestThread)} / ${show(renderThreads)} / ${show(otherThreads)})`} / ${show(azurite)}`;
    lines.push(
      `| ${row.scenario} | ${row.concurrency} | ${row.perSecond} | ${row.p50} / ${row.p99} | ${row.errors} | ${cpu} / ${show(load)} | ${show(row.othersPercent)} % | ${formatSteal(row.cpuStealPercent)} |`,
    );
  }
  return lines.join('\n');
}

async function figures(bench: Bench) {
  const at = (scenario: string) => rows.find((row) => row.scenario === scenario);
  const B = {
    png1: 'baseline PNG 800x400 at 1x (new chart, Skia PNG encoder)',
    png2: 'baseline PNG 800x400 at 2x',
    svg: "baseline SVG 800x400 (Skia's SVG canvas)",
  };
  const R = {
    apiIssue: 'API PNG, issue 33 body (title, format png: 2x)',
    apiPng: 'API PNG at 1x (quality standard)',
    apiSvg: 'API SVG',
    qcPng: '/quickchart PNG at 1x (quickchart-js body)',
    qcSvg: '/quickchart SVG (quickchart-js body)',
  };
  // The baseline first: its process is alone on the machine but for the load generator.
  record(await load(bench, B.png1, BASELINE_ROUTE, 4, bodyText(baselineBody('png', 1)), { baseline: true }));
  record(await load(bench, B.png2, BASELINE_ROUTE, 4, bodyText(baselineBody('png', 2)), { baseline: true }));
  record(await load(bench, B.svg, BASELINE_ROUTE, 4, bodyText(baselineBody('svg', 1)), { baseline: true }));
  for (const format of ['png', 'svg'] as const) {
    record(await poolRow(format, false, bench));
    await emptyStore(bench);
    record(await poolRow(format, true, bench));
  }
  const uncached: [string, string, string][] = [
    [R.apiIssue, API, bodyText(apiBody('png'))],
    [R.apiPng, API, bodyText(apiBody('png', 'standard'))],
    [R.apiSvg, API, bodyText(apiBody('svg'))],
    [R.qcPng, QUICKCHART_ROUTE, bodyText(quickChartBody('png', bench.token))],
    [R.qcSvg, QUICKCHART_ROUTE, bodyText(quickChartBody('svg', bench.token))],
  ];
  for (const [scenario, route, body] of uncached) {
    await emptyStore(bench);
    record(await load(bench, scenario, route, 4, body));
  }
  for (const c of [4, 16]) record(await load(bench, 'API cache hits PNG', API, c, bodyText(apiBody('png', 'standard'), true)));
  for (const c of [4, 16]) record(await load(bench, '/quickchart cache hits PNG', QUICKCHART_ROUTE, c, bodyText(quickChartBody('png', bench.token), true)));

  const verdicts = [
    "| Route, format | Throughput, ours / baseline (per s) | CPU per uncached chart: our process (+ Azurite) | Baseline's CPU per chart | Baseline ÷ ours (goal ≥ 1.5) | Whole box ≥ baseline | Ours against issue 33's QuickChart (goal ≤ 2/3) |",
    '|---|---|---|---|---|---|---|',
  ];
  const verdict = (label: string, ours: Row | undefined, base: Row | undefined, issue: number) => {
    if (!ours || !base) return;
    const mine = ours.cpu.host ?? NaN;
    const theirs = base.cpu.baseline ?? NaN;
    const ratio = Math.round((theirs / mine) * 100) / 100;
    const goal = Math.round((2 / 3) * issue * 10) / 10;
    verdicts.push(
      `| ${label} | ${ours.perSecond} / ${base.perSecond} | ${show(mine)} (+${show(ours.cpu.azurite)}) | ${show(theirs)} | ${ratio} ${ratio >= CPU_RATIO_GOAL ? 'met' : 'not met'} | ${ours.perSecond >= base.perSecond ? 'met' : `not met (${Math.round((100 * ours.perSecond) / base.perSecond)} %)`} | ${show(mine)} ≤ ${goal}: ${mine <= goal ? 'met' : 'not met'} |`,
    );
  };
  verdict(`${R.apiIssue} vs baseline at 1x (the issue's comparison)`, at(R.apiIssue), at(B.png1), ISSUE_QUICKCHART_CPU.png);
  verdict(`${R.apiIssue} vs baseline at 2x (the same pixels)`, at(R.apiIssue), at(B.png2), ISSUE_QUICKCHART_CPU.png);
  verdict(`${R.apiPng} vs baseline at 1x`, at(R.apiPng), at(B.png1), ISSUE_QUICKCHART_CPU.png);
  verdict(`${R.qcPng} vs baseline at 1x`, at(R.qcPng), at(B.png1), ISSUE_QUICKCHART_CPU.png);
  verdict(`${R.apiSvg} vs baseline SVG`, at(R.apiSvg), at(B.svg), ISSUE_QUICKCHART_CPU.svg);
  verdict(`${R.qcSvg} vs baseline SVG`, at(R.qcSvg), at(B.svg), ISSUE_QUICKCHART_CPU.svg);
  const hits = ["| Cache hits | Per s | Goal: 30 x the baseline's uncached PNG at 1x |", '|---|---|---|'];
  const base = at(B.png1)?.perSecond ?? 0;
  for (const row of rows.filter((r) => r.scenario.includes('cache hits')))
    hits.push(
      `| ${row.scenario} at ${row.concurrency} | ${row.perSecond} | ${row.perSecond >= HITS_GOAL * base ? 'met' : 'not met'} (${Math.round((row.perSecond / (base || 1)) * 10) / 10} x ${base}/s) |`,
    );
  console.log(`\n${rowsTable()}\n\n${verdicts.join('\n')}\n\n${hits.join('\n')}`);
}

/**
 * The soak: uncached renders through the API in ten equal parts, each part's throughput, CPU per
 * render of this process and of Azurite, and memory of both, so a decay can be put on the process
 * that causes it.
 */
async function soak(bench: Bench, format: 'png' | 'svg') {
  const part = Math.ceil(SOAK_RENDERS / 10);
  console.log(`soak: ${part * 10} uncached ${format.toUpperCase()} renders through the API at 4 concurrent, in tenths of ${part}\n`);
  console.log('tenth  renders/s  p99 ms  ours CPU ms/render  Azurite CPU ms/render  ours RSS MB  ours heap MB  Azurite RSS MB  other processes  steal');
  const soakRows: Row[] = [];
  for (let i = 1; i <= 10; i++) {
    const row = await load(bench, `soak ${i}/10`, API, 4, bodyText(apiBody(format, 'standard')), { amount: part });
    soakRows.push(row);
    const memory = process.memoryUsage();
    console.log(
      `${String(i).padStart(5)}  ${String(row.perSecond).padStart(9)}  ${String(row.p99).padStart(6)}  ${show(row.cpu.host).padStart(18)}  ${show(row.cpu.azurite).padStart(21)}` +
        `  ${String(Math.round(memory.rss / 1048576)).padStart(11)}  ${String(Math.round(memory.heapUsed / 1048576)).padStart(12)}` +
        `  ${show(bench.azuritePid === undefined ? undefined : processRssMb(bench.azuritePid)).padStart(14)}  ${`${show(row.othersPercent)} %`.padStart(15)}  ${formatSteal(row.cpuStealPercent)}  errors ${row.errors}`,
    );
  }
  const first = soakRows[0];
  const last = soakRows[9];
  console.log(`\nlast tenth at ${Math.round((100 * last.perSecond) / first.perSecond)} % of the first (target 90 %)`);
  console.log(
    `CPU per render, first -> last tenth: ours ${show(first.cpu.host)} -> ${show(last.cpu.host)} ms, Azurite ${show(first.cpu.azurite)} -> ${show(last.cpu.azurite)} ms`,
  );
  console.log(JSON.stringify(soakRows));
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-visual-'));
  const host = await startDevHost({
    settingsFile: path.join(dir, 'local.settings.json'),
    // An Azurite of the bench's own (in memory, free ports), never one left running on the well-known ports.
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error', AzureWebJobsStorage: '' },
  });
  const visual = visualContext(host.platform, createLogger({ component: 'bench' }));
  const bench: Bench = {
    visual,
    token: JSON.parse(fs.readFileSync(path.join(dir, 'local.settings.json'), 'utf8')).Values.VISUAL_API_TOKEN as string,
    url: host.url,
    azuritePid: host.azurite?.pid,
    baseline: await startBaseline(),
    poolSize: visual.renderPool.size,
  };
  console.log(
    `visual bench: ${os.cpus().length} cores (${os.cpus()[0]?.model}), Node ${process.version}, render pool ${bench.poolSize} threads, ` +
      `${SOAK ? 'soak' : `${SECONDS}s per scenario`}, Azurite ${bench.azuritePid ? `pid ${bench.azuritePid} (in memory)` : 'not ours: its CPU is not measured'}\n`,
  );
  try {
    // Warm the threads (Chart.js, fonts) and the storage clients so the first scenario is not measuring start-up.
    if (!STEPS_ONLY) {
      await load(bench, 'warm-up', API, 2, bodyText(apiBody('png')));
      await load(bench, 'warm-up', API, 2, bodyText(apiBody('svg')));
      await load(bench, 'warm-up', BASELINE_ROUTE, 2, bodyText(baselineBody('png', 1)), { baseline: true });
    }
    if (SOAK) await soak(bench, SOAK === '--soak=svg' ? 'svg' : 'png');
    else if (STEPS_ONLY) await stepsProfile(bench);
    else {
      await stepsProfile(bench);
      await figures(bench);
      console.log(JSON.stringify(rows));
    }
  } finally {
    bench.baseline.child.kill();
    await host.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
