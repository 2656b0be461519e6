import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postJson } from '../../functions/orchestrator/notify/send';

/**
 * One webhook try on the wire (notify/send.ts), against loopback servers: the connection goes to
 * the address that was checked whatever the name resolves to, redirects are not followed, the
 * answer is cut at the size cap and the whole exchange at the deadline.
 */
let server: http.Server;
let port: number;
const seen: { host?: string; path?: string; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      seen.push({ host: request.headers.host, path: request.url, body: Buffer.concat(chunks).toString() });
      if (request.url === '/redirect') return void response.writeHead(302, { location: 'http://169.254.169.254/latest' }).end();
      if (request.url === '/slow') return void setTimeout(() => response.writeHead(200).end('late'), 2000);
      if (request.url === '/big') return void response.writeHead(200).end('x'.repeat(1_000_000));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const loopback = { address: '127.0.0.1', family: 4 as const };
const limits = { timeoutMs: 500, maxResponseBytes: 4096 };

it('connects to the vetted address, not to what the host name resolves to, and sends the Host it was given', async () => {
  // No resolver knows this name: the pinned lookup answers the checked address.
  const result = await postJson(new URL(`http://hooks.invalid:${port}/in?x=1`), loopback, { 'x-test': '1' }, '{"a":1}', limits);
  expect(result).toMatchObject({ ok: true, statusCode: 204, error: null });
  expect(seen.at(-1)).toEqual({ host: `hooks.invalid:${port}`, path: '/in?x=1', body: '{"a":1}' });
});

it('does not follow a redirect: a 3xx is a failed try', async () => {
  const result = await postJson(new URL(`http://127.0.0.1:${port}/redirect`), loopback, {}, '{}', limits);
  expect(result).toMatchObject({ ok: false, statusCode: 302, error: 'redirect to http://169.254.169.254/latest not followed' });
  expect(seen.filter((s) => s.path === '/latest')).toEqual([]);
});

it('gives up at the deadline', async () => {
  const result = await postJson(new URL(`http://127.0.0.1:${port}/slow`), loopback, {}, '{}', limits);
  expect(result).toMatchObject({ ok: false, statusCode: null, error: 'no answer within 500 ms' });
  expect(result.durationMs).toBeGreaterThanOrEqual(450);
  expect(result.durationMs).toBeLessThan(1500);
});

it('reads the answer up to the cap and keeps 500 characters of it', async () => {
  const result = await postJson(new URL(`http://127.0.0.1:${port}/big`), loopback, {}, '{}', limits);
  expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
  expect(result.excerpt).toBe('x'.repeat(500));
});

it('a refused connection is a failed try with the reason, never a throw', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const dead = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const result = await postJson(new URL(`http://127.0.0.1:${dead}/`), loopback, {}, '{}', limits);
  expect(result).toMatchObject({ ok: false, statusCode: null, error: expect.stringContaining('ECONNREFUSED') });
});
