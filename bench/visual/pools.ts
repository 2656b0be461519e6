/**
 * The service's render pool (functions/visual/render/pool.ts) against piscina, the worker pool
 * library, on the same render threads' code and the same work: the bench's 800x400 bar chart,
 * uncached, 4 in flight on as many threads as cores, PNG and SVG, in alternating rounds so drift
 * of this machine hits both alike. No HTTP or storage: the pool and its messages only.
 *
 *   npm run build && node dist/bench/visual/pools.js      (POOL_SECONDS=5 per round, POOL_ROUNDS=3)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import { chartJsConfig, type ChartSpec } from '../../functions/visual/chart-spec';
import { bundledFontDir } from '../../functions/visual/render/fonts';
import { RenderPool } from '../../functions/visual/render/pool';
import type { RenderTask } from '../../functions/visual/render/tasks';
import { themeOf } from '../../functions/visual/themes';
import { formatSteal, stealMeter } from '../cpu-steal';

const SECONDS = Number(process.env.POOL_SECONDS ?? 5);
const ROUNDS = Number(process.env.POOL_ROUNDS ?? 3);
const THREADS = os.availableParallelism();
const IN_FLIGHT = 4;
// The package's exports do not include its package.json.
const PISCINA_VERSION = (JSON.parse(fs.readFileSync(path.join(path.dirname(require.resolve('piscina')), '..', 'package.json'), 'utf8')) as { version: string })
  .version;

let n = 0;
function task(format: 'png' | 'svg'): RenderTask {
  const spec: ChartSpec = {
    type: 'bar',
    data: { labels: ['North', 'South', 'East', 'West', 'Central'], datasets: [{ label: `Revenue ${++n}`, data: [12, 19, 7, 15, 11] }] },
    options: { title: 'Revenue by region' },
  };
  const theme = themeOf('professional');
  return { kind: 'chart', config: chartJsConfig(spec, theme), width: 800, height: 400, pixelRatio: 1, format, background: theme.backgroundColor };
}

/** Renders per second and CPU ms per render of this process (all its threads) with IN_FLIGHT callers in a closed loop. */
async function measure(run: (task: RenderTask) => Promise<unknown>, format: 'png' | 'svg') {
  const steal = stealMeter();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const end = started + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (performance.now() < end) {
        await run(task(format));
        done++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { perSecond: done / ((performance.now() - started) / 1000), cpuMs: (used.user + used.system) / 1000 / done, steal: steal() };
}

async function main() {
  const fonts = { dir: bundledFontDir(), extra: [] };
  const ours = new RenderPool(THREADS, 30_000, fonts, 1000);
  const piscina = new Piscina({
    filename: path.join(__dirname, 'piscina-worker.js'),
    minThreads: THREADS,
    maxThreads: THREADS,
    workerData: { fonts },
  });
  const pools = { 'render pool (ours)': (t: RenderTask) => ours.run(t), [`piscina ${PISCINA_VERSION}`]: (t: RenderTask) => piscina.run(t) };
  console.log(`pools: ${THREADS} threads each, ${IN_FLIGHT} in flight, ${ROUNDS} rounds of ${SECONDS}s, Node ${process.version}\n`);
  // Warm both (Chart.js, fonts, kept charts).
  for (const run of Object.values(pools)) for (const format of ['png', 'svg'] as const) await Promise.all(Array.from({ length: 8 }, () => run(task(format))));
  const results: Record<string, number[]> = {};
  for (let round = 1; round <= ROUNDS; round++) {
    for (const format of ['png', 'svg'] as const) {
      for (const [name, run] of Object.entries(pools)) {
        const r = await measure(run, format);
        (results[`${name} ${format}`] ??= []).push(r.perSecond);
        console.log(
          `round ${round}  ${format.toUpperCase()}  ${name.padEnd(20)} ${r.perSecond.toFixed(0).padStart(5)}/s  CPU ${r.cpuMs.toFixed(2)} ms/render  steal ${formatSteal(r.steal)}`,
        );
      }
    }
  }
  console.log('\nmedian of the rounds:');
  for (const [key, values] of Object.entries(results))
    console.log(`  ${key.padEnd(28)} ${values.sort((a, b) => a - b)[Math.floor(values.length / 2)].toFixed(0)}/s`);
  await ours.close();
  await piscina.destroy();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
