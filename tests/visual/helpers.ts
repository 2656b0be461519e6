import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { PNG } from 'pngjs';
import { visualContext } from '../../functions/visual/context';
import type { RenderPool } from '../../functions/visual/render/pool';
import { contextOf } from '../helpers/context';
import { checkAnswer } from '../helpers/contract';
import { startTestHost, type TestHost } from '../helpers/host';

/** The VISUAL_API_TOKEN the dev settings generated for this host. */
export function visualToken(host: TestHost): string {
  return JSON.parse(fs.readFileSync(path.join(host.dir, 'local.settings.json'), 'utf8')).Values.VISUAL_API_TOKEN;
}

/** The host's render pool, as the visual service's code is handed it. */
export const renderPoolOf = (host: TestHost): RenderPool => contextOf(visualContext, host).renderPool;

/** A dev host for the test file and its visual API token, both set before the first test. */
export function visualTestHost(): { host: TestHost; token: string } {
  const context = {} as { host: TestHost; token: string };
  beforeAll(async () => {
    context.host = await startTestHost();
    context.token = visualToken(context.host);
  });
  afterAll(() => context.host?.stop());
  return context;
}

/**
 * fetch over a fresh connection each time. Test host and client share one busy event loop; with
 * keep-alive, a request can land on a socket the server is closing for idleness (ECONNRESET).
 */
export function fetchFresh(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const headers = new Headers();
        for (const [key, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
        const status = res.statusCode ?? 0;
        const body = Buffer.concat(chunks);
        try {
          checkAnswer(
            init.method ?? 'GET',
            url,
            status,
            headers.get('content-type'),
            headers.get('content-type')?.includes('json') ? body.toString('utf8') : '',
          );
        } catch (error) {
          reject(error);
          return;
        }
        resolve(new Response([204, 304].includes(status) ? null : body, { status, headers }));
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

export function postJson(host: TestHost, route: string, body: unknown, token?: string): Promise<Response> {
  return fetchFresh(`${host.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function decodePng(bytes: Buffer): PNG {
  return PNG.sync.read(bytes);
}

export function hexToRgb(hex: string): [number, number, number] {
  const named: Record<string, string> = { white: '#FFFFFF' };
  const h = (named[hex] ?? hex).replace('#', '');
  return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
}

/** Counts opaque pixels within `tolerance` of a color on every channel. */
export function countColor(png: PNG, hex: string, tolerance = 2): number {
  const [r, g, b] = hexToRgb(hex);
  let count = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    if (
      png.data[i + 3] === 255 &&
      Math.abs(png.data[i] - r) <= tolerance &&
      Math.abs(png.data[i + 1] - g) <= tolerance &&
      Math.abs(png.data[i + 2] - b) <= tolerance
    )
      count++;
  }
  return count;
}

export function pixel(png: PNG, x: number, y: number): [number, number, number, number] {
  const i = (png.width * y + x) * 4;
  return [png.data[i], png.data[i + 1], png.data[i + 2], png.data[i + 3]];
}

export const barChart = (id = 'bar', extra: Record<string, unknown> = {}) => ({
  id,
  type: 'bar',
  data: { labels: ['Q1', 'Q2', 'Q3'], datasets: [{ label: 'Revenue', data: [12, 19, 7] }] },
  options: { title: 'Revenue by quarter', description: 'Quarterly revenue', ...extra },
});

/** One valid specification of each chart type. */
export function chartOfType(type: string, id = type) {
  const points =
    type === 'bubble'
      ? [
          { x: 1, y: 2, r: 8 },
          { x: 3, y: 1, r: 12 },
          { x: 2, y: 4, r: 6 },
        ]
      : [
          { x: 1, y: 2 },
          { x: 3, y: 1 },
          { x: 2, y: 4 },
        ];
  const data = type === 'scatter' || type === 'bubble' ? points : [12, 19, 7, 5];
  return { id, type, data: { labels: ['A', 'B', 'C', 'D'], datasets: [{ label: 'Series', data }] }, options: { title: `A ${type} chart` } };
}
