/**
 * Visual service benchmark over HTTP against a dev host in this process (real Azurite in its own
 * process, real render pool); the load generator (autocannon, bench/load.ts) runs in a process of
 * its own for every scenario, so the host's CPU is measured alone. Rows: uncached 800x400 bar
 * charts as PNG and SVG at 1 and 4 concurrent through the API and through the QuickChart-compatible
 * endpoint (the body quickchart-js posts), cache hits at 4 and 16; and the render pool without
 * HTTP, alone (no cache) and behind the cache's lookup and upload: the two floors every uncached
 * row is read against. Each row prints the CPU per request of this process (HTTP, validation,
 * storage SDK, render threads), of Azurite and of the load generator, and the CPU steal.
 *
 *   npm run bench:visual                      (BENCH_SECONDS=8 per scenario by default)
 *   npm run bench:visual -- --soak            20,000 uncached PNG renders through the API in tenths
 *   npm run bench:visual -- --soak=svg        (SOAK_RENDERS to change the count)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevHost } from '../../devhost/host';
import { config } from '../../shared/config';
import { container } from '../../shared/storage';
import { chartKey, renderChartImage } from '../../functions/visual/charts';
import { cachedOrRendered, CONTENT_TYPES, newStats } from '../../functions/visual/results';
import type { ChartSpec } from '../../functions/visual/chart-spec';
import { clearHotIndex } from '../../functions/visual/cache';
import { renderPool } from '../../functions/visual/render/renderer';
import { themeOf } from '../../functions/visual/themes';
import { formatSteal, stealMeter } from '../cpu-steal';
import { runLoad, UNIQUE, type LoadOrder } from '../load';
import { cpuMeter, machineBusyMs, processRssMb } from '../proc';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const SOAK = process.argv.find((arg) => arg.startsWith('--soak'));
const SOAK_RENDERS = Number(process.env.SOAK_RENDERS ?? 20_000);

/** QuickChart's own server measured on this machine (4 concurrent, 800x400 bar, devicePixelRatio 1): the better of Chart.js 2.9.4 and 4. */
const QUICKCHART = { png: 95, svg: 218 };
const TARGETS = { png: Math.ceil(QUICKCHART.png * 1.5), svg: Math.ceil(QUICKCHART.svg * 1.5), hits: QUICKCHART.png * 30 };

interface Row {
  scenario: string;
  concurrency: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU ms per request: this process (request thread and render threads), Azurite, the load generator. */
  cpu: { host?: number; azurite?: number; load?: number };
  /** Share of the machine's two cores that other processes (other work on the machine) took during the row. */
  othersPercent?: number;
  cpuStealPercent: number | undefined;
}
const rows: Row[] = [];

/** A bar chart; the load generator's placeholder in its label becomes a new id on every request (so nothing is served from the cache) unless `fixed`. */
function barChart(fixed = false) {
  return {
    id: 'bench',
    type: 'bar',
    data: { labels: ['North', 'South', 'East', 'West', 'Central'], datasets: [{ label: `Revenue ${fixed ? 0 : UNIQUE}`, data: [12, 19, 7, 15, 11] }] },
    options: { title: 'Revenue by region', width: 800, height: 400 },
  };
}

/** The body quickchart-js 3 posts for a chart (toBinary with setWidth/setHeight/setFormat, devicePixelRatio 1, the key). */
function quickChartBody(format: 'png' | 'svg', token: string, fixed = false) {
  const chart = { type: 'bar', data: barChart(fixed).data, options: { plugins: { title: { display: true, text: 'Revenue by region' } } } };
  return { width: 800, height: 400, chart: JSON.stringify(chart), format, devicePixelRatio: 1, key: token };
}

const perRequest = (ms: number | undefined, requests: number) => (ms === undefined || !requests ? undefined : Math.round((ms / requests) * 10) / 10);
const show = (ms: number | undefined) => (ms === undefined ? 'n/a' : `${ms}`);

function record(row: Row) {
  rows.push(row);
  const { host, azurite, load } = row.cpu;
  console.log(
    `${row.scenario.padEnd(42)} c=${String(row.concurrency).padEnd(2)} ${String(row.perSecond).padStart(5)}/s  p50 ${row.p50} p99 ${row.p99} ms  errors ${row.errors}` +
      `  CPU ms/req: ours ${show(host)}, Azurite ${show(azurite)}, load ${show(load)}  other processes ${show(row.othersPercent)} %  steal ${formatSteal(row.cpuStealPercent)}`,
  );
}

interface Bench {
  token: string;
  url: string;
  azuritePid?: number;
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
  const client = await container(config().VISUAL_CACHE_CONTAINER);
  await client.delete();
  await client.create();
  clearHotIndex();
}

/** One scenario through HTTP, the load generator in its own process. */
async function load(bench: Bench, scenario: string, route: string, concurrency: number, body: object, amount?: number): Promise<Row> {
  const steal = stealMeter();
  const cpu = cpuMeter({ host: process.pid, azurite: bench.azuritePid });
  const order: LoadOrder = {
    url: `${bench.url}${route}`,
    method: 'POST',
    connections: concurrency,
    durationSeconds: SECONDS,
    amount,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bench.token}` },
    body: JSON.stringify(body),
  };
  const machine = othersMeter();
  const result = await runLoad(order);
  const used = cpu();
  const done = result['2xx'];
  const othersPercent = machine((used.host ?? 0) + (used.azurite ?? 0) + result.cpuMs);
  return {
    scenario,
    concurrency,
    perSecond: Math.round(done / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
    cpu: { host: perRequest(used.host, done), azurite: perRequest(used.azurite, done), load: perRequest(result.cpuMs, done) },
    othersPercent,
    cpuStealPercent: steal(),
  };
}

/**
 * The render pool without HTTP: `concurrency` callers of renderChartImage in a closed loop, alone
 * (no validation, no cache) or `withCache`: each render behind the cache's lookup and upload, as an
 * uncached request does them (a HEAD that misses, the render, an upload to Azurite). The second is
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
        const spec = JSON.parse(JSON.stringify(barChart()).replace(UNIQUE, String(++n))) as ChartSpec;
        const t = performance.now();
        try {
          const render = () => renderChartImage(spec, professional, format, 'standard');
          if (withCache) await cachedOrRendered(chartKey(spec, format, 'standard', professional), CONTENT_TYPES[format], false, newStats(), render);
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
    scenario: `render pool ${format.toUpperCase()} ${withCache ? '+ cache lookup and upload (no HTTP)' : 'alone (no HTTP, no cache)'}`,
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
const apiBody = (format: 'png' | 'svg', fixed = false) => ({ charts: [barChart(fixed)], format, quality: 'standard' });

/** The rows as a Markdown table, each with its CPU per request and the CPU steal during it. */
function rowsTable(): string {
  const lines = [
    '| Scenario | Concurrency | Renders or hits/s | p50 / p99 ms | Errors | CPU ms per request: ours / Azurite / load generator | Other processes | CPU steal |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const { host, azurite, load } = row.cpu;
    lines.push(
      `| ${row.scenario} | ${row.concurrency} | ${row.perSecond} | ${row.p50} / ${row.p99} | ${row.errors} | ${show(host)} / ${show(azurite)} / ${show(load)} | ${show(row.othersPercent)} % | ${formatSteal(row.cpuStealPercent)} |`,
    );
  }
  return lines.join('\n');
}

async function figures(bench: Bench) {
  const pool: Record<'png' | 'svg', Row | undefined> = { png: undefined, svg: undefined };
  const pooledWithCache: Record<'png' | 'svg', Row | undefined> = { png: undefined, svg: undefined };
  for (const format of ['png', 'svg'] as const) {
    // The floors first, in the same run as the HTTP rows read against them.
    record((pool[format] = await poolRow(format, false, bench)));
    await emptyStore(bench);
    record((pooledWithCache[format] = await poolRow(format, true, bench)));
    for (const c of [1, 4]) {
      await emptyStore(bench);
      record(await load(bench, `API uncached ${format.toUpperCase()} 800x400`, API, c, apiBody(format)));
    }
    for (const c of [1, 4]) {
      await emptyStore(bench);
      record(await load(bench, `/quickchart uncached ${format.toUpperCase()} 800x400`, QUICKCHART_ROUTE, c, quickChartBody(format, bench.token)));
    }
  }
  await emptyStore(bench);
  record(await load(bench, 'API uncached PNG 800x400 at 2x (quality high)', API, 4, { charts: [barChart()], format: 'png' }));
  for (const c of [4, 16]) record(await load(bench, 'API cache hits PNG', API, c, apiBody('png', true)));
  for (const c of [4, 16]) record(await load(bench, '/quickchart cache hits PNG', QUICKCHART_ROUTE, c, quickChartBody('png', bench.token, true)));

  const at = (scenario: string, c = 4) => rows.find((row) => row.scenario === scenario && row.concurrency === c)?.perSecond ?? 0;
  const verdicts = ['| Target | Figure | Target | Verdict |', '|---|---|---|---|'];
  const verdict = (label: string, figure: number, target: number, unit = '/s') =>
    verdicts.push(`| ${label} | ${figure}${unit} | ${target}${unit} | ${figure >= target ? 'met' : `not met (${Math.round((100 * figure) / target)} %)`} |`);
  for (const format of ['png', 'svg'] as const) {
    const F = format.toUpperCase();
    const floor = pool[format]!.perSecond;
    const cached = pooledWithCache[format]!.perSecond;
    verdict(`render pool + cache ${F} at 4, no HTTP: the most any route can reach here`, cached, TARGETS[format]);
    for (const route of ['API', '/quickchart']) {
      const figure = at(`${route} uncached ${F} 800x400`);
      verdict(`${route} uncached ${F} at 4: 1.5 x QuickChart's ${QUICKCHART[format]}/s`, figure, TARGETS[format]);
      verdict(`${route} uncached ${F} at 4 against the render pool alone (${floor}/s)`, Math.round((100 * figure) / floor), 85, ' %');
      verdict(`${route} uncached ${F} at 4 against the render pool + cache (${cached}/s)`, Math.round((100 * figure) / cached), 85, ' %');
    }
  }
  for (const route of ['API', '/quickchart'])
    for (const c of [4, 16]) verdict(`${route} cache hits at ${c}: 30 x QuickChart's uncached PNG`, at(`${route} cache hits PNG`, c), TARGETS.hits);
  console.log(
    `\n${rowsTable()}\n\nAgainst QuickChart on this machine (PNG ${QUICKCHART.png}/s, SVG ${QUICKCHART.svg}/s at 4 concurrent) and our own floors:\n\n${verdicts.join('\n')}`,
  );
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
    const row = await load(bench, `soak ${i}/10`, API, 4, apiBody(format), part);
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
  const bench: Bench = {
    token: JSON.parse(fs.readFileSync(path.join(dir, 'local.settings.json'), 'utf8')).Values.VISUAL_API_TOKEN as string,
    url: host.url,
    azuritePid: host.azurite?.pid,
  };
  console.log(
    `visual bench: ${os.cpus().length} cores (${os.cpus()[0]?.model}), Node ${process.version}, render pool ${renderPool().size} threads, ` +
      `${SOAK ? 'soak' : `${SECONDS}s per scenario`}, Azurite ${bench.azuritePid ? `pid ${bench.azuritePid} (in memory)` : 'not ours: its CPU is not measured'}\n`,
  );
  try {
    // Warm the threads (Chart.js, fonts) and the storage clients so the first scenario is not measuring start-up.
    await load(bench, 'warm-up', API, 2, apiBody('png'));
    if (SOAK) await soak(bench, SOAK === '--soak=svg' ? 'svg' : 'png');
    else {
      await figures(bench);
      console.log(JSON.stringify(rows));
    }
  } finally {
    await host.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
