/**
 * Plain charts' latency while a client sends what issue 48 found at the renderer: tick bombs (a
 * time axis with a tick every millisecond over 99,999 ms, through /quickchart/chart) and oversized
 * vectors (an SVG line chart of 20 datasets x 5,000 points with point markers, 47 MB before the
 * cap, through the render API). A dev host in this process (its own Azurite, in memory), every
 * load generator in a process of its own (bench/load.ts); every body unique per request, so
 * nothing is served from the cache. Two phases of BENCH_SECONDS (default 5): plain charts alone,
 * then the same plain load beside one connection of each hostile body.
 *
 *   npm run build && node dist/bench/visual/hostile.js
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevHost } from '../../devhost/host';
import { RENDER_POOL } from '../../functions/visual/render/renderer';
import { runLoad, UNIQUE_DIGITS, type LoadOrder, type LoadResult } from '../load';
import { processRssMb } from '../proc';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

/** Issue 33's 800x400 bar chart at 1x, its first value new on every request. */
const plainBody = JSON.stringify({
  format: 'png',
  quality: 'standard',
  charts: [
    {
      id: 'plain',
      type: 'bar',
      data: { labels: ['North', 'South', 'East', 'West', 'Central'], datasets: [{ label: 'Revenue', data: ['__v__', 19, 7, 15, 11] }] },
      options: { title: 'Revenue by region', width: 800, height: 400 },
    },
  ],
}).replace('"__v__"', `12.${UNIQUE_DIGITS}`);

/** Issue 48's tick bomb (165 bytes), its second value new on every request. */
const tickBomb = (token: string) =>
  JSON.stringify({
    key: token,
    version: '4',
    format: 'png',
    chart: {
      type: 'line',
      data: {
        datasets: [
          {
            data: [
              { x: 0, y: 1 },
              { x: 99999, y: '__v__' },
            ],
          },
        ],
      },
      options: { scales: { x: { type: 'time', time: { unit: 'millisecond' } } } },
    },
  }).replace('"__v__"', `2.${UNIQUE_DIGITS}`);

/** Issue 48's oversized vector: 20 x 5,000 points with markers as SVG (430 KB of JSON). */
const bigSvg = JSON.stringify({
  format: 'svg',
  charts: [
    {
      id: 'markers',
      type: 'line',
      data: {
        labels: Array.from({ length: 5000 }, (_, i) => i),
        datasets: Array.from({ length: 20 }, (_, d) => ({
          data: Array.from({ length: 5000 }, (_, i) => (i === 0 && d === 0 ? '__v__' : (i * (d + 1)) % 97)),
          pointRadius: 3,
        })),
      },
    },
  ],
}).replace('"__v__"', `1.${UNIQUE_DIGITS}`);

const line = (name: string, r: LoadResult) =>
  `${name.padEnd(44)} ${String(Math.round(r['2xx'] / r.duration)).padStart(4)}/s ok  p50 ${r.latency.p50} p99 ${r.latency.p99} max ${r.latency.max} ms  2xx ${r['2xx']} non-2xx ${r.non2xx} errors ${r.errors}`;

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-hostile-'));
  const host = await startDevHost({
    settingsFile: path.join(dir, 'local.settings.json'),
    env: { PORT: '0', DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'error', AzureWebJobsStorage: '' },
  });
  const token = JSON.parse(fs.readFileSync(path.join(dir, 'local.settings.json'), 'utf8')).Values.VISUAL_API_TOKEN as string;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const order = (route: string, body: string, connections: number, durationSeconds = SECONDS): LoadOrder => ({
    url: `${host.url}${route}`,
    method: 'POST',
    connections,
    durationSeconds,
    headers,
    body,
  });
  const plain = (seconds?: number) => order('/visual/api/v1/charts/render', plainBody, 2, seconds);
  console.log(`hostile bench: ${os.cpus().length} cores, render pool ${host.platform.get(RENDER_POOL).size} threads, ${SECONDS} s per phase`);
  try {
    await runLoad(plain(2));
    const alone = await runLoad(plain());
    console.log(line('plain charts alone, c=2', alone), ` RSS ${processRssMb(process.pid)} MB`);
    const [beside, bombs, vectors] = await Promise.all([
      runLoad(plain()),
      runLoad(order('/quickchart/chart', tickBomb(token), 1)),
      runLoad(order('/visual/api/v1/charts/render', bigSvg, 1)),
    ]);
    console.log(line('plain charts beside the hostile client, c=2', beside));
    console.log(line('  tick bombs (/quickchart PNG), c=1', bombs));
    console.log(line('  47 MB SVG charts (render API), c=1', vectors));
    await host.platform.get(RENDER_POOL).idle();
    console.log(`host RSS after the phases: ${processRssMb(process.pid)} MB`);
  } finally {
    await host.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
