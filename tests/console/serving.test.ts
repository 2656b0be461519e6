import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { parseAppConfig } from '../../functions/settings';
import { CONSOLE_DIR, consoleAssets, lookupAsset } from '../../functions/orchestrator/console/assets';
import { consoleConfig, consoleCsp } from '../../functions/orchestrator/console/client-config';
import { startTestHost, type TestHost } from '../helpers/host';

/**
 * How the orchestrator serves the built console: content types, the Content-Security-Policy,
 * caching, compression, the single-page-app fallback, refused paths, and the first-load budget.
 */
let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ env: { SERVICES: 'identity,orchestrator,visual,payment' } });
});
afterAll(() => host.stop());

const index = () => fs.readFileSync(path.join(CONSOLE_DIR, 'index.html'), 'utf8');
const referenced = () => [...index().matchAll(/(?:src|href)="(assets\/[^"]+)"/g)].map((m) => m[1]);

/** A raw GET, so the path reaches the host exactly as written (fetch would normalise `..`). */
function rawGet(rawPath: string): Promise<{ status: number; body: string }> {
  const url = new URL(host.url);
  return new Promise((resolve, reject) => {
    http
      .get({ host: url.hostname, port: url.port, path: rawPath }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      })
      .on('error', reject);
  });
}

describe('the built console', () => {
  test('index.html loads one hashed script and one hashed stylesheet, with no inline code', () => {
    const html = index();
    expect(referenced()).toEqual([expect.stringMatching(/^assets\/main-[A-Z0-9]{8,}\.css$/), expect.stringMatching(/^assets\/main-[A-Z0-9]{8,}\.js$/)]);
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\bsrc="/);
    expect(html).not.toMatch(/<script\b[^>]*>[^<]+<\/script>/);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/<style\b/);
    expect(html).not.toMatch(/https?:\/\//);
  });

  test('the first load is at most 60 KB of JavaScript and CSS after gzip', () => {
    const gzipped = referenced().reduce((sum, file) => sum + zlib.gzipSync(fs.readFileSync(path.join(CONSOLE_DIR, file)), { level: 9 }).length, 0);
    expect(gzipped).toBeGreaterThan(1000);
    expect(gzipped).toBeLessThanOrEqual(60 * 1024);
    // The figure docs/console.md quotes.
    console.log(`console first load: ${(gzipped / 1024).toFixed(1)} KB of JavaScript and CSS after gzip (level 9), budget 60 KB`);
  });
});

describe('GET /orchestrator/console/', () => {
  test('answers index.html with a strict policy, no-cache and the security headers', async () => {
    const res = await host.fetch('/orchestrator/console/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("style-src 'self';");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(await res.text()).toBe(index());
  });

  test('hashed assets are immutable for a year, with their content type; a matching ETag is 304', async () => {
    for (const file of referenced()) {
      const res = await host.fetch(`/orchestrator/console/${file}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(file.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(Buffer.from(await res.arrayBuffer()).equals(fs.readFileSync(path.join(CONSOLE_DIR, file)))).toBe(true);
      const again = await host.fetch(`/orchestrator/console/${file}`, { headers: { 'if-none-match': res.headers.get('etag')! } });
      expect(again.status).toBe(304);
    }
  });

  test('gzip when the client accepts it', async () => {
    const [, js] = referenced();
    const raw = await rawGetWithHeaders(`/orchestrator/console/${js}`, { 'accept-encoding': 'gzip' });
    expect(raw.headers['content-encoding']).toBe('gzip');
    expect(raw.headers.vary).toBe('Accept-Encoding');
    expect(zlib.gunzipSync(raw.body).equals(fs.readFileSync(path.join(CONSOLE_DIR, js)))).toBe(true);
    const plain = await rawGetWithHeaders(`/orchestrator/console/${js}`, {});
    expect(plain.headers['content-encoding']).toBeUndefined();
  });

  test('every page path of the app gets index.html (reload on a deep link works)', async () => {
    for (const page of ['executions', 'executions/rpt-123', 'users/abc/', 'payments']) {
      const res = await host.fetch(`/orchestrator/console/${page}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toBe(index());
    }
  });

  test('HEAD answers the headers', async () => {
    const res = await host.fetch('/orchestrator/console/', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  test('without the trailing slash: a permanent redirect to the folder', async () => {
    const res = await host.fetch('/orchestrator/console', { redirect: 'manual' });
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe('/orchestrator/console/');
  });

  test('a missing file with an extension is 404 JSON, not the page', async () => {
    const res = await host.fetch('/orchestrator/console/assets/missing-ABCDEFGH.js');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'CONSOLE_FILE_NOT_FOUND' });
  });

  test.each([
    '/orchestrator/console/../../local.settings.json',
    '/orchestrator/console/%2e%2e/%2e%2e/local.settings.json',
    '/orchestrator/console/assets/%2e%2e%2f%2e%2e%2fpackage.json',
    '/orchestrator/console/..%5c..%5cpackage.json',
    '/orchestrator/console/assets//main.js',
    '/orchestrator/console/%00index.html',
  ])('path traversal is refused: %s', async (rawPath) => {
    const res = await rawGet(rawPath);
    expect([400, 404]).toContain(res.status);
    expect(res.body).not.toContain('"name": "report-platform"');
    expect(res.body).not.toContain('JWT_SIGNING_KEYS');
    if (res.status === 400) expect(JSON.parse(res.body)).toMatchObject({ code: 'INVALID_PATH' });
  });
});

function rawGetWithHeaders(rawPath: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const url = new URL(host.url);
  return new Promise((resolve, reject) => {
    http
      .get({ host: url.hostname, port: url.port, path: rawPath, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

describe('GET /orchestrator/console/config.json', () => {
  test('one app: every service on the page’s own origin, as paths', async () => {
    const res = await host.fetch('/orchestrator/console/config.json');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ services: { identity: '/identity', payment: '/payment', orchestrator: '/orchestrator', visual: '/visual' } });
  });

  test('four apps: other origins as full URLs, and the policy lets the page call exactly those', () => {
    const cfg = parseAppConfig({
      SERVICES: 'orchestrator',
      PUBLIC_URL: 'https://orch.example.net',
      IDENTITY_URL: 'https://id.example.net/identity',
      PAYMENT_URL: 'https://pay.example.net/payment',
      VISUAL_URL: 'https://orch.example.net/visual',
    });
    expect(consoleConfig(cfg)).toEqual({
      services: { identity: 'https://id.example.net/identity', payment: 'https://pay.example.net/payment', orchestrator: '/orchestrator', visual: '/visual' },
    });
    expect(consoleCsp(cfg)).toContain("connect-src 'self' https://id.example.net https://pay.example.net;");
    expect(consoleCsp(cfg)).toContain("script-src 'self';");
  });
});

describe('lookupAsset', () => {
  test('an unbuilt console is reported, not served', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'console-empty-'));
    try {
      expect(lookupAsset('', consoleAssets(host, empty))).toEqual({ kind: 'not-built' });
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  test('only files of the built folder are keys: nothing outside it can be named', () => {
    const assets = consoleAssets(host);
    expect([...assets.keys()].every((name) => !name.includes('..') && !path.isAbsolute(name))).toBe(true);
    expect(lookupAsset('../package.json', assets)).toMatchObject({ kind: 'invalid' });
    expect(lookupAsset('assets\\..\\x.js', assets)).toMatchObject({ kind: 'invalid' });
    expect(lookupAsset('favicon.svg', assets)).toMatchObject({ kind: 'file', name: 'favicon.svg' });
  });
});
