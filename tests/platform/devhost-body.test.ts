import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { HttpFunction } from '../../shared/functions';
import { startTestHost, type TestHost } from '../helpers/host';

/** The request bodies the dev host hands a function, over real HTTP: how they arrive must not matter. */
let invocations = 0;
const digest: HttpFunction = {
  kind: 'http',
  name: 'test-digest',
  route: 'test/digest',
  methods: ['POST', 'PUT'],
  handler: async (request) => {
    invocations++;
    const bytes = Buffer.from(await request.arrayBuffer());
    return { jsonBody: { length: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') } };
  },
};
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let host: TestHost;
let port: number;
beforeAll(async () => {
  host = await startTestHost({ functions: [digest] });
  port = Number(new URL(host.url).port);
});
afterAll(() => host.stop());

/** A request written piece by piece with node:http, so the chunking and framing are ours to choose. */
function send(pieces: Buffer[], headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/test/digest', method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    const write = (i: number) => {
      if (i === pieces.length) {
        req.end();
        return;
      }
      req.write(pieces[i], () => setImmediate(() => write(i + 1)));
    };
    write(0);
  });
}

test('a chunked body (Transfer-Encoding: chunked, many small chunks) arrives whole and in order', async () => {
  const pieces = Array.from({ length: 50 }, (_, i) => Buffer.from(`chunk ${i};`));
  const res = await send(pieces, { 'transfer-encoding': 'chunked' });
  expect(res.status).toBe(200);
  expect(JSON.parse(res.body)).toEqual({ length: Buffer.concat(pieces).length, sha256: sha256(Buffer.concat(pieces)) });
});

test('an empty body reads as zero bytes, with Content-Length: 0 or with no length at all', async () => {
  for (const headers of [{ 'content-length': '0' }, { 'transfer-encoding': 'chunked' }] as Record<string, string>[]) {
    const res = await send([], headers);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ length: 0, sha256: sha256(Buffer.alloc(0)) });
  }
});

test('a large body (8 MB, written in 64 KiB pieces) arrives byte for byte', async () => {
  const bytes = randomBytes(8 * 1024 * 1024);
  const pieces = Array.from({ length: bytes.length / 65536 }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536));
  const res = await send(pieces, { 'content-length': String(bytes.length) });
  expect(res.status).toBe(200);
  expect(JSON.parse(res.body)).toEqual({ length: bytes.length, sha256: sha256(bytes) });
});

test('a body the client abandons half way runs no function, and the host goes on serving', async () => {
  const before = invocations;
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(`POST /test/digest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n${'x'.repeat(100)}`, () => {
        // Give the host time to read the partial body before the client goes away.
        setTimeout(() => socket.destroy(), 50);
      });
    });
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(invocations).toBe(before);
  const res = await host.fetch('/test/digest', { method: 'POST', body: 'after' });
  expect(await res.json()).toEqual({ length: 5, sha256: sha256(Buffer.from('after')) });
  expect(invocations).toBe(before + 1);
});
