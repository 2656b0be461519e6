import net from 'node:net';
import { createHash } from 'node:crypto';
import { startDevHost } from '../../devhost/host';
import type { HttpFunction } from '../../shared/functions';
import { readJson } from '../../shared/http/body';
import { http, json } from '../../shared/http/handler';
import { startTestHost, type TestHost } from '../helpers/host';

const echo: HttpFunction = {
  kind: 'http',
  name: 'test-echo',
  route: 'test/echo/{id:int}/{*rest}',
  methods: ['POST'],
  handler: async (request) => {
    const bytes = Buffer.from(await request.arrayBuffer());
    return {
      jsonBody: {
        params: request.params,
        query: request.query.get('q'),
        header: request.headers.get('x-custom'),
        length: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      },
    };
  },
};
const methodNotAllowed: HttpFunction = {
  kind: 'http',
  name: 'test-405',
  route: 'test/own-405',
  methods: ['GET', 'POST', 'PUT', 'DELETE'],
  handler: async (request) => (request.method === 'POST' ? { status: 200 } : { status: 405, jsonBody: { error: 'Method not allowed' } }),
};
const throws: HttpFunction = {
  kind: 'http',
  name: 'test-throws',
  route: 'test/throws',
  methods: ['GET'],
  handler: async () => {
    throw new Error('boom with a secret inside');
  },
};

const validated: HttpFunction = {
  kind: 'http',
  name: 'test-json',
  route: 'test/json',
  methods: ['POST'],
  handler: http('test', async (request) => {
    const body = await readJson<{ name: string; count: number }>(
      request,
      {
        type: 'object',
        required: ['name', 'count'],
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 1 }, count: { type: 'integer', minimum: 0 } },
      },
      1024,
    );
    return json(200, body);
  }),
};

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ functions: [echo, methodNotAllowed, throws, validated] });
});
afterAll(() => host.stop());

test('raw body bytes reach the handler unchanged, with params, query and headers', async () => {
  const bytes = Buffer.from([0, 1, 2, 255, 254, 0x7b, 0x22, 0x0d, 0x0a, 0xc3, 0x28]);
  const res = await host.fetch('/test/echo/42/a/b?q=x%20y', { method: 'POST', body: bytes, headers: { 'x-custom': 'v' } });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({
    params: { id: '42', rest: 'a/b' },
    query: 'x y',
    header: 'v',
    length: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  });
});

test('a constraint that fails, an unknown path and a method the route does not accept all answer 404 with no body', async () => {
  for (const [path, method] of [
    ['/test/echo/abc/x', 'POST'],
    ['/nowhere', 'GET'],
    ['/test/echo/1/x', 'GET'],
  ] as const) {
    const res = await host.fetch(path, { method });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('');
  }
});

test("a handler's own 405 passes through", async () => {
  const res = await host.fetch('/test/own-405', { method: 'DELETE' });
  expect(res.status).toBe(405);
  expect(await res.json()).toEqual({ error: 'Method not allowed' });
});

test('a throwing function gets an empty 500, as from the Functions host', async () => {
  const res = await host.fetch('/test/throws');
  expect(res.status).toBe(500);
  expect(await res.text()).toBe('');
});

test('a client that goes away in the middle of its body leaves the host serving, with no unhandled rejection', async () => {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  try {
    const { port } = new URL(host.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST /test/echo/1/x HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n0123456789');
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const res = await host.fetch('/test/echo/2/y', { method: 'POST', body: 'ok' });
    expect(res.status).toBe(200);
    expect(rejections).toEqual([]);
  } finally {
    process.off('unhandledRejection', onRejection);
  }
});

test('a route beginning with admin stops the host from starting', async () => {
  const bad: HttpFunction = { ...throws, name: 'bad', route: 'admin/users' };
  await expect(
    startDevHost({ settingsFile: `${host.dir}/other.settings.json`, env: { PORT: '0', DATA_DIR: `${host.dir}/other`, LOG_LEVEL: 'error' }, functions: [bad] }),
  ).rejects.toThrow(/conflicts with one or more built in routes/);
});

describe('JSON bodies (shared/http)', () => {
  const post = (body: string | Buffer) => host.fetch('/test/json', { method: 'POST', body, headers: { 'content-type': 'application/json' } });

  test('a valid body passes through', async () => {
    const res = await post(JSON.stringify({ name: 'a', count: 2 }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ name: 'a', count: 2 });
  });

  test('malformed JSON is a 400 INVALID_JSON with the standard error body', async () => {
    const res = await post('{"name": ');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: 'Bad request',
      code: 'INVALID_JSON',
      message: expect.stringMatching(/not valid JSON/),
      timestamp: expect.any(String),
    });
  });

  test('a wrong type is a 400 naming the field', async () => {
    const res = await post(JSON.stringify({ name: 'a', count: 'two' }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.message).toBe('Invalid body: count must be integer');
    expect(body.details).toEqual([{ field: 'count', message: 'must be integer' }]);
  });

  test('missing and unknown fields are named', async () => {
    const body = (await (await post(JSON.stringify({ count: 1, extra: true }))).json()) as any;
    expect(body.details).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'is required' },
        { field: 'extra', message: 'is not an allowed field' },
      ]),
    );
  });

  test('an oversize body is a 413', async () => {
    const res = await post(JSON.stringify({ name: 'x'.repeat(2000), count: 1 }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  test("every response carries a request id, echoing the caller's", async () => {
    const res = await host.fetch('/test/json', { method: 'POST', body: '{}', headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
  });
});
