/**
 * Visual service benchmark over HTTP against an in-process dev host (real Azurite, real render pool):
 * renders/s, p50/p99 and memory for an uncached 800x400 bar chart as PNG and SVG at 1 and 4
 * concurrent requests, and for cache hits; through the API (autocannon) and through the real
 * quickchart-js client against the QuickChart-compatible endpoint; last, the render pool alone, the
 * ceiling of every uncached figure.
 *
 *   npm run bench:visual            (BENCH_SECONDS=8 by default)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import QuickChart from 'quickchart-js';
import { startDevHost } from '../../devhost/host';
import { renderChartImage } from '../../functions/visual/charts';
import type { ChartSpec } from '../../functions/visual/chart-spec';
import { renderPool } from '../../functions/visual/render/renderer';
import { themeOf } from '../../functions/visual/themes';
import { formatSteal, stealMeter } from '../cpu-steal';

/** The part of autocannon's API used here (the package ships no types). */
interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
const autocannon = require('autocannon') as (options: Record<string, unknown>) => Promise<AutocannonResult>;

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

interface Row {
  scenario: string;
  concurrency: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
  rssMb: number;
  cpuStealPercent: number | undefined;
}
const rows: Row[] = [];
let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);

let unique = 0;
/** A bar chart whose data differs on every call, so nothing is served from the cache. */
function barChart(fixed = false) {
  const n = fixed ? 0 : ++unique;
  return {
    id: 'bench',
    type: 'bar',
    data: { labels: ['North', 'South', 'East', 'West', 'Central'], datasets: [{ label: `Revenue ${n}`, data: [12 + (n % 7), 19, 7, 15, 11] }] },
    options: { title: 'Revenue by region', width: 800, height: 400 },
  };
}

function record(scenario: string, concurrency: number, perSecond: number, p50: number, p99: number, errors: number, cpuStealPercent: number | undefined) {
  const row = {
    scenario,
    concurrency,
    perSecond: Math.round(perSecond),
    p50: Math.round(p50 * 10) / 10,
    p99: Math.round(p99 * 10) / 10,
    errors,
    rssMb: Math.round(peakRss / 1048576),
    cpuStealPercent,
  };
  rows.push(row);
  console.log(
    `${scenario.padEnd(44)} c=${concurrency}  ${String(row.perSecond).padStart(5)}/s  p50 ${row.p50} ms  p99 ${row.p99} ms  errors ${errors}  peak RSS ${row.rssMb} MB  CPU steal ${formatSteal(cpuStealPercent)}`,
  );
  peakRss = 0;
}

/**
 * autocannon against the API. A fixed body (cache hits) runs the load generator on its own thread so
 * it does not compete with the server for the event loop; a body function (a new chart per request)
 * needs setupRequest, which autocannon only takes in-thread.
 */
async function cannon(scenario: string, url: string, token: string, concurrency: number, body: (() => unknown) | object) {
  const steal = stealMeter();
  const result = await autocannon({
    url,
    method: 'POST',
    connections: concurrency,
    duration: SECONDS,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    ...(typeof body === 'function'
      ? { requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: JSON.stringify((body as () => unknown)()) }) }] }
      : { body: JSON.stringify(body), workers: 1 }),
  });
  record(scenario, concurrency, result.requests.average, result.latency.p50, result.latency.p99, result.non2xx + result.errors, steal());
}

/** A closed loop of `concurrency` callers of `once` for the bench duration. */
async function closedLoop(scenario: string, once: () => Promise<unknown>, concurrency: number) {
  const latencies: number[] = [];
  let errors = 0;
  const steal = stealMeter();
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const started = performance.now();
        try {
          await once();
          latencies.push(performance.now() - started);
        } catch {
          errors++;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  record(scenario, concurrency, latencies.length / SECONDS, at(0.5), at(0.99), errors, steal());
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-visual-'));
  const host = await startDevHost({
    settingsFile: path.join(dir, 'local.settings.json'),
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error' },
  });
  const token = JSON.parse(fs.readFileSync(path.join(dir, 'local.settings.json'), 'utf8')).Values.VISUAL_API_TOKEN as string;
  const api = `${host.url}/visual/api/v1/charts/render`;
  console.log(
    `visual bench: ${os.cpus().length} cores (${os.cpus()[0]?.model}), Node ${process.version}, render pool ${renderPool().size} threads, ${SECONDS}s per scenario\n`,
  );
  try {
    // Warm the threads (Chart.js, fonts) so the first scenario is not measuring start-up.
    await cannon('warm-up', api, token, 2, () => ({ charts: [barChart()], quality: 'standard' }));
    rows.length = 0;

    for (const c of [1, 4])
      await cannon('API uncached PNG 800x400 (standard)', api, token, c, () => ({ charts: [barChart()], format: 'png', quality: 'standard' }));
    for (const c of [1, 4]) await cannon('API uncached SVG 800x400', api, token, c, () => ({ charts: [barChart()], format: 'svg' }));
    await cannon('API uncached PNG 800x400 at 2x (quality high)', api, token, 4, () => ({ charts: [barChart()], format: 'png' }));
    const hit = { charts: [barChart(true)], format: 'png', quality: 'standard' };
    await cannon('API cache hits', api, token, 4, hit);
    await cannon('API cache hits', api, token, 16, hit);

    const qc =
      (format: 'png' | 'svg', fixed = false) =>
      () =>
        new QuickChart(token)
          .setHost(`${new URL(host.url).host}/quickchart`)
          .setScheme('http')
          .setConfig(JSON.stringify({ type: 'bar', data: barChart(fixed).data, options: { plugins: { title: { display: true, text: 'Revenue by region' } } } }))
          .setWidth(800)
          .setHeight(400)
          .setFormat(format);
    for (const c of [1, 4]) await closedLoop('quickchart-js uncached PNG 800x400', () => qc('png')().toBinary(), c);
    for (const c of [1, 4]) await closedLoop('quickchart-js uncached SVG 800x400', () => qc('svg')().toBinary(), c);
    await closedLoop('quickchart-js cache hits PNG', () => qc('png', true)().toBinary(), 4);

    // The renderer with nothing around it (no HTTP, no validation, no cache): the ceiling of the rows above.
    const professional = themeOf('professional');
    for (const format of ['png', 'svg'] as const) {
      await closedLoop(
        `render pool alone ${format.toUpperCase()} 800x400 (no HTTP, no cache)`,
        () => renderChartImage(barChart() as ChartSpec, professional, format, 'standard'),
        4,
      );
    }

    console.log('\nTargets at 4 concurrent: 150 PNG/s, 250 SVG/s, 2,000 cache hits/s. Renders by the pool:', renderPool().renders);
    console.log(JSON.stringify(rows));
  } finally {
    clearInterval(sampler);
    await host.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
