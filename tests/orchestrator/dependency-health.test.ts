import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { currentPlatform } from '../../shared/platform';
import { startTestHost, type TestHost } from '../helpers/host';
import { deadUrl } from '../payment/helpers';

/**
 * The orchestrator's health includes the dependencies it serves without, the AI provider and the
 * visual service: when either fails it answers 200 `degraded` with the reason, never `healthy`
 * (reports were failing on an unreachable AI endpoint while health said healthy).
 */
let host: TestHost;
let models: http.Server;
let modelsUrl: string;
const seen: { url?: string; authorization?: string }[] = [];

beforeAll(async () => {
  host = await startTestHost();
  // An OpenAI-compatible endpoint that knows one key.
  models = http.createServer((req, res) => {
    seen.push({ url: req.url, authorization: req.headers.authorization });
    const ok = req.headers.authorization === 'Bearer sk-right';
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify(ok ? { data: [] } : { error: { message: 'bad key' } }));
  });
  await new Promise<void>((resolve) => models.listen(0, '127.0.0.1', resolve));
  modelsUrl = `http://127.0.0.1:${(models.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await host.stop();
  await new Promise((resolve) => models.close(resolve));
});
afterEach(() => currentPlatform().reconfigure({ ORCHESTRATOR_AI_ENDPOINT: undefined, ORCHESTRATOR_AI_API_KEY: undefined, VISUAL_URL: undefined }));

async function health() {
  const res = await host.fetch('/orchestrator/health');
  return { status: res.status, body: (await res.json()) as any };
}

test('offline AI and a healthy visual service: healthy, each named', async () => {
  const { status, body } = await health();
  expect(status).toBe(200);
  expect(body.status).toBe('healthy');
  expect(body.problems).toBeUndefined();
  expect(body.dependencies.ai).toMatchObject({ ok: true, detail: 'offline provider (no AI endpoint configured)' });
  expect(body.dependencies.visual).toMatchObject({ ok: true, detail: 'visual service healthy' });
});

test('an unreachable AI endpoint: 200 degraded, with the reason', async () => {
  currentPlatform().reconfigure({ ORCHESTRATOR_AI_ENDPOINT: (await deadUrl()).replace(/\/identity$/, '/v1') });
  const { status, body } = await health();
  expect(status).toBe(200);
  expect(body.status).toBe('degraded');
  expect(body.problems).toEqual([expect.stringMatching(/^ai: unreachable: connect ECONNREFUSED 127\.0\.0\.1:\d+$/)]);
  expect(body.dependencies.ai.ok).toBe(false);
  expect(body.dependencies.sql.ok).toBe(true);
});

test('a key the AI endpoint refuses is degraded; the key it accepts is healthy; the key never appears in the answer', async () => {
  currentPlatform().reconfigure({ ORCHESTRATOR_AI_ENDPOINT: modelsUrl, ORCHESTRATOR_AI_API_KEY: 'sk-wrong' });
  const refused = await health();
  expect(refused.body).toMatchObject({ status: 'degraded', problems: ['ai: the openai endpoint refused the API key (401)'] });
  expect(JSON.stringify(refused.body)).not.toContain('sk-wrong');
  expect(seen.at(-1)).toEqual({ url: '/v1/models', authorization: 'Bearer sk-wrong' });
  currentPlatform().reconfigure({ ORCHESTRATOR_AI_API_KEY: 'sk-right' });
  const accepted = await health();
  expect(accepted.body.status).toBe('healthy');
  expect(accepted.body.dependencies.ai.detail).toBe('openai endpoint reachable (HTTP 200)');
});

test('the visual service unreachable: degraded, naming it', async () => {
  currentPlatform().reconfigure({ VISUAL_URL: (await deadUrl()).replace(/\/identity$/, '/visual') });
  const { status, body } = await health();
  expect(status).toBe(200);
  expect(body).toMatchObject({ status: 'degraded', dependencies: { visual: { ok: false } } });
  expect(body.problems).toEqual([expect.stringMatching(/^visual: unreachable: connect ECONNREFUSED/)]);
});
