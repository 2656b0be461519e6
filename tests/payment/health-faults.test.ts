// Health names what is wrong with each dependency, over real HTTP through the dev host: identity
// answering but unhealthy, identity not answering at all (the probe gives up after 2.5 s instead of
// hanging the health route), and the local Stripe API server of offline mode wrong or missing.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { emulatorAddressFile, useEmulator } from '../../functions/payment/stripe-client';
import { currentPlatform } from '../../shared/platform';
import { startTestHost, type TestHost } from '../helpers/host';
import { pointIdentityAt } from './helpers';

let host: TestHost;
let server: http.Server;
let serverUrl: string;
// What the loopback server does with a request: answer with this status, or never answer.
let answer: number | 'never' = 503;
const held = new Set<http.ServerResponse>();
/** The paths (with their queries) the loopback server was asked. */
const asked: string[] = [];

beforeAll(async () => {
  host = await startTestHost();
  server = http.createServer((req, res) => {
    asked.push(req.url ?? '');
    if (answer === 'never') held.add(res);
    else res.writeHead(answer, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  pointIdentityAt(undefined);
  currentPlatform().reconfigure({ STRIPE_API_BASE: undefined });
  held.forEach((res) => res.destroy());
  held.clear();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await host.stop();
});

async function health() {
  const res = await host.fetch('/payment/health');
  return { status: res.status, body: (await res.json()) as { status: string; dependencies: Record<string, Record<string, unknown>> } };
}

test('identity answering its health route with anything but 200 is down, named with its status', async () => {
  answer = 503;
  pointIdentityAt(`${serverUrl}/identity`);
  const { status, body } = await health();
  expect(status).toBe(503);
  expect(body.dependencies.identity).toEqual({ ok: false, error: `${serverUrl}/identity/health answered 503`, latencyMs: expect.any(Number) });
});

test('a probe that skips SQL asks identity to skip it too, so the chain of health checks leaves a paused database asleep', async () => {
  answer = 200;
  pointIdentityAt(`${serverUrl}/identity`);
  asked.length = 0;
  const skipped = await host.fetch('/payment/health?skip=sql');
  expect(((await skipped.json()) as { dependencies: Record<string, unknown> }).dependencies).not.toHaveProperty('sql');
  expect(asked).toEqual(['/identity/health?skip=sql']);
  asked.length = 0;
  await health();
  expect(asked).toEqual(['/identity/health']);
});

test('identity not answering at all: the probe gives up after 2.5 s and health answers', async () => {
  answer = 'never';
  pointIdentityAt(`${serverUrl}/identity`);
  const { status, body } = await health();
  expect(status).toBe(503);
  expect(body.dependencies.identity).toMatchObject({ ok: false, error: expect.stringMatching(/timeout/i) });
  expect(held.size).toBe(1);
});

test("offline mode: a local Stripe API server that does not answer Stripe's 404 for an unknown intent is named", async () => {
  answer = 500;
  currentPlatform().reconfigure({ STRIPE_API_BASE: serverUrl });
  const { status, body } = await health();
  expect([status, body.status]).toEqual([200, 'degraded']);
  expect(body.dependencies.stripe).toMatchObject({ ok: false, optional: true, error: `local Stripe API server at ${serverUrl} answered 500` });
});

test('offline mode with no local Stripe API server running is named', async () => {
  const file = emulatorAddressFile(host.platform.config);
  const kept = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
  const url = (await health()).body.dependencies.stripe.detail;
  useEmulator(host.platform, undefined);
  fs.rmSync(file, { force: true });
  try {
    const { status, body } = await health();
    expect([status, body.status]).toEqual([200, 'degraded']);
    expect(body.dependencies.stripe).toMatchObject({ ok: false, optional: true, error: 'offline mode but no local Stripe API server is running' });
  } finally {
    useEmulator(host.platform, String(url).replace('offline: local Stripe API server ', ''));
    if (kept) fs.writeFileSync(file, kept);
  }
  expect((await health()).body.dependencies.stripe).toMatchObject({ ok: true });
});
