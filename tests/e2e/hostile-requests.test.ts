import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { signInAt } from '../helpers/identity';
import { ACME } from '../orchestrator/helpers';
import { startHostProcess, type HostProcess } from './process';

/**
 * Requests an outside attacker sends to `npm start`, answered by the dev host as a separate
 * process (as a user runs it), so "the host survives" and "its memory stays bounded" are measured
 * on the real process: RSS from /proc, sampled while the attack runs.
 */
let dir: string;
let host: HostProcess;
let visualToken: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hostile-'));
  host = await startHostProcess(dir);
  visualToken = JSON.parse(fs.readFileSync(path.join(dir, 'local.settings.json'), 'utf8')).Values.VISUAL_API_TOKEN;
});
afterAll(async () => {
  await host?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const port = () => Number(new URL(host.origin).port);

/** Resident memory of the host process (bytes), read from /proc; 0 once it has exited. */
function rss(): number {
  const status = fs.existsSync(`/proc/${host.child.pid}/status`) ? fs.readFileSync(`/proc/${host.child.pid}/status`, 'utf8') : '';
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
}

/** Runs `attack` while sampling the host's RSS every 20 ms; answers the attack's result and the largest growth seen. */
async function measuringRss<T>(attack: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const start = rss();
  let peak = start;
  const sampler = setInterval(() => (peak = Math.max(peak, rss())), 20);
  try {
    const result = await attack();
    peak = Math.max(peak, rss());
    return { result, growth: peak - start };
  } finally {
    clearInterval(sampler);
  }
}

/** Writes raw bytes to the host and reads the whole answer (the connection is closed by either side). */
function rawRequest(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port(), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(text);
    setTimeout(() => socket.end(), 2000);
  });
}

/** A request with the path exactly as given (fetch would normalise it). */
function requestPath(pathAsSent: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: port(), path: pathAsSent, agent: false }, (res) => {
      res.resume();
      resolve({ status: res.statusCode!, headers: res.headers });
    });
    req.on('error', reject);
    req.end();
  });
}

const timed = async <T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
};

const health = async () => (await fetch(`${host.urls.identity}/health`)).status;

describe('a Host header that is no host', () => {
  test.each([['['], ['bad host:99999'], ['[::1']])('Host: %s is answered 400 HOST_INVALID, and the host goes on serving', async (hostHeader) => {
    const answer = await rawRequest(`GET /identity/health HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ error: 'Bad request', code: 'HOST_INVALID' });
    expect(answer.toLowerCase()).toContain('cache-control: no-store');
    expect(host.child.exitCode).toBeNull();
    expect(await health()).toBe(200);
  });
});

describe('a DOT diagram that asks for a huge raster', () => {
  const diagram = (source: string, count = 1) => ({
    format: 'png',
    diagrams: Array.from({ length: count }, (_, i) => ({ id: `d${i}`, type: 'dot', source: source.replace('a -> b', `a -> b${i}`) })),
  });
  const render = (body: unknown) =>
    fetch(`${host.urls.visual}/api/v1/diagrams/render`, {
      method: 'POST',
      headers: { authorization: `Bearer ${visualToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  test.each([
    ['a padding of 140 inches', 'digraph { graph [pad="140"]; a -> b }', 1],
    ['a forced 250-inch square', 'digraph { graph [size="250,250!", ratio=fill]; a -> b }', 1],
    ['twenty padded diagrams in one request', 'digraph { graph [pad="140"]; a -> b }', 20],
  ])('%s is refused 400 IMAGE_TOO_LARGE within 5 s, the host growing less than 300 MB', async (_name, source, count) => {
    const { result, growth } = await measuringRss(() => timed(() => render(diagram(source, count))));
    const res = result.value;
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ code: 'IMAGE_TOO_LARGE', details: { maxPixels: 16_000_000 } });
    expect(body.details.width * body.details.height).toBeGreaterThan(16_000_000);
    expect(result.ms).toBeLessThan(5000);
    expect(growth).toBeLessThan(300 * 1024 * 1024);
    expect(await health()).toBe(200);
  });

  test('a diagram within the cap still renders to PNG', async () => {
    const res = await render(diagram('digraph { graph [pad="0.5"]; a -> b }'));
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).diagrams[0].metadata.width).toBeGreaterThan(0);
  });
});

describe('SVG charts of 47 MB', () => {
  /** 20 datasets x 5,000 points with point markers (430 KB of JSON): a 47 MB SVG before the cap. */
  const markers = (id: string) => ({
    id,
    type: 'line',
    data: {
      labels: Array.from({ length: 5000 }, (_, i) => i),
      datasets: Array.from({ length: 20 }, (_, d) => ({ data: Array.from({ length: 5000 }, (_, i) => (i * (d + 1)) % 97), pointRadius: 3 })),
    },
  });

  const render = (charts: unknown[]) =>
    fetch(`${host.urls.visual}/api/v1/charts/render`, {
      method: 'POST',
      headers: { authorization: `Bearer ${visualToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ format: 'svg', charts }),
    });

  test('four in one request are refused 400 SVG_TOO_LARGE, the host growing less than 300 MB and keeping less than 100 MB of it', async () => {
    // The render threads started first, so what is measured is the charts' work, not the pool's start.
    expect((await render([{ id: 'warm', type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] } }])).status).toBe(200);
    const start = rss();
    const { result, growth } = await measuringRss(() => render([1, 2, 3, 4].map((i) => markers(`m${i}`))));
    expect(result.status).toBe(400);
    expect(await result.json()).toMatchObject({ code: 'SVG_TOO_LARGE', details: { maxBytes: 4 * 1024 * 1024 } });
    expect(growth).toBeLessThan(300 * 1024 * 1024);
    // Before the cap the host went from 0.9 to 2.35 GB and kept it; with the cap and before threads
    // were recycled, it kept 160 MB (the threads' heaps).
    await sleep(2000);
    expect(rss() - start).toBeLessThan(100 * 1024 * 1024);
    expect(await health()).toBe(200);
  });
});

describe('a long identifier as a QuickChart chart', () => {
  test('60,000 characters are answered 400 within 1 s, and other services answer meanwhile', async () => {
    const chart = fetch(`${host.origin}/quickchart/chart`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chart: 'a'.repeat(60_000), key: visualToken }),
    });
    // A request that arrives while the chart is being read is not held up by it.
    const during = timed(async () => {
      await sleep(5);
      return health();
    });
    const answered = await timed(() => chart);
    expect(answered.value.status).toBe(400);
    expect(((await answered.value.json()) as any).code).toBe('INVALID_CHART');
    expect(answered.ms).toBeLessThan(1000);
    const healthDuring = await during;
    expect(healthDuring.value).toBe(200);
    expect(healthDuring.ms).toBeLessThan(1000);
  });

  test('JavaScript hidden after a long identifier is still named as code', async () => {
    const res = await fetch(`${host.origin}/quickchart/chart`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chart: `{ type: 'bar', data: ${'x'.repeat(50_000)}() }`, key: visualToken }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).code).toBe('CHART_NOT_DATA');
  });
});

describe('keys that could reach a prototype', () => {
  const infographics = (rawData: string) =>
    fetch(`${host.urls.visual}/api/v1/infographics/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${visualToken}`, 'content-type': 'application/json' },
      body: `{"format":"svg","infographics":[{"type":"dashboard","title":"Q3","data":${rawData}}]}`,
    });

  test.each([
    ['constructor', 1201],
    ['__proto__', 1202],
    ['prototype', 1203],
  ])('an infographic whose data holds "%s" is refused 400, so it cannot plant its text under the key of the same data without it', async (key, revenue) => {
    const attack = await infographics(`{"Revenue":${revenue},"${key}":"PAY INVOICES TO IBAN DE00 0000"}`);
    expect(attack.status).toBe(400);
    expect(await attack.json()).toMatchObject({ code: 'JSON_KEY_NOT_ALLOWED', field: `infographics.0.data.${key}` });
    const victim = await infographics(`{"Revenue":${revenue}}`);
    expect(victim.status).toBe(200);
    expect(victim.headers.get('x-cache')).toBe('MISS');
    const url = ((await victim.json()) as any).infographics[0].imageUrl;
    expect(await (await fetch(url)).text()).not.toContain('PAY INVOICES');
  });

  test('a report whose key metrics hold "constructor" is refused 400 before anything is stored', async () => {
    const user = await signInAt(host.urls.identity, path.join(dir, '.data'), 'prototype-keys@example.com');
    const res = await fetch(`${host.urls.orchestrator}/api/reports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...ACME, profile: { ...ACME.profile, key_metrics: JSON.parse('{"revenue_growth_pct":12,"constructor":31337}') } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'JSON_KEY_NOT_ALLOWED', field: 'profile.key_metrics.constructor' });
  });
});

describe('redirects to the console folder', () => {
  test.each([['/.//orchestrator/console'], ['/%2e//orchestrator/console'], ['/x/..//orchestrator/console'], ['//orchestrator/console']])(
    'GET %s redirects to /orchestrator/console/ on this host, never to another host',
    async (sent) => {
      const res = await requestPath(sent);
      expect(res.status).toBe(308);
      expect(res.headers.location).toBe('/orchestrator/console/');
    },
  );
});

describe('bodies larger than the route takes', () => {
  const NINETY_MB = 90 * 1024 * 1024;

  /**
   * POST /identity/auth/login (4 KiB limit) streaming `size` bytes chunked, or declaring them;
   * resolves once answered, with how many bytes had been sent when the answer came.
   */
  function oversizeLogin(size: number, chunked: boolean): Promise<{ status: number; body: string; sentBeforeAnswer: number }> {
    let sent = 0;
    return new Promise((resolve, reject) => {
      const headers = chunked ? { 'content-type': 'application/json' } : { 'content-type': 'application/json', 'content-length': String(size) };
      const req = http.request({ host: '127.0.0.1', port: port(), path: '/identity/auth/login', method: 'POST', headers, agent: false }, (res) => {
        const sentBeforeAnswer = sent;
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode!, body, sentBeforeAnswer });
        });
      });
      // The host may close the connection while bytes are still being sent: that is the point.
      req.on('error', (error: NodeJS.ErrnoException) => (['ECONNRESET', 'EPIPE'].includes(error.code ?? '') ? undefined : reject(error)));
      const chunk = Buffer.alloc(1024 * 1024, 0x61);
      const pump = () => {
        while (sent < size && !req.destroyed) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (!req.destroyed) req.end();
      };
      pump();
    });
  }

  test('four parallel chunked 90 MB bodies get 413 with the envelope, the host buffering less than 100 MB', async () => {
    const { result, growth } = await measuringRss(() => Promise.all([1, 2, 3, 4].map(() => oversizeLogin(NINETY_MB, true))));
    for (const answer of result) {
      expect(answer.status).toBe(413);
      expect(answer.sentBeforeAnswer).toBeLessThan(NINETY_MB / 2);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    }
    expect(growth).toBeLessThan(100 * 1024 * 1024);
    expect(await health()).toBe(200);
  });

  test('a declared 90 MB body is refused before it is read', async () => {
    const { result, growth } = await measuringRss(() => timed(() => oversizeLogin(NINETY_MB, false)));
    expect(result.value.status).toBe(413);
    expect(JSON.parse(result.value.body).message).toContain(`${NINETY_MB} bytes; the limit is 4096 bytes`);
    // Answered while most of the body was still to come: the host did not wait to read it.
    expect(result.value.sentBeforeAnswer).toBeLessThan(NINETY_MB / 2);
    expect(growth).toBeLessThan(100 * 1024 * 1024);
  });
});
