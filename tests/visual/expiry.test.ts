import { visual } from '../../functions/visual';
import { RENEW_INTERVAL_MS } from '../../functions/visual/cache-index';
import type { TimerFunction } from '../../shared/functions';
import { container } from '../../shared/storage';
import { InvocationContext } from '@azure/functions';
import { startTestHost, type TestHost } from '../helpers/host';
import { barChart, postJson, visualToken, fetchFresh } from './helpers';
import { expectErrorAnswer } from '../helpers/errors';

let host: TestHost;
let token: string;
beforeAll(async () => {
  host = await startTestHost();
  token = visualToken(host);
});
afterAll(async () => {
  jest.useRealTimers();
  await host.stop();
});

const HOUR = 3600_000;
// Only Date is faked: the host, Azurite's client and the render pool keep real timers.
beforeEach(() => {
  jest.useFakeTimers({
    doNotFake: ['nextTick', 'setImmediate', 'setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'queueMicrotask', 'hrtime', 'performance'],
  });
});
const cleanup = visual.functions.find((f): f is TimerFunction => f.kind === 'timer' && f.name === 'visual-cache-cleanup')!;
const runCleanup = () =>
  cleanup.handler(
    { isPastDue: false, schedule: { adjustForDST: false }, scheduleStatus: { last: '', next: '', lastUpdated: '' } },
    new InvocationContext({ functionName: cleanup.name }),
  );

test('an entry expires after 12 hours (plus the renewal interval): the URL answers 404, the next request renders again with identical bytes, cleanup deletes it', async () => {
  const start = Date.parse('2026-11-22T08:00:00Z');
  jest.setSystemTime(start);
  const body = { charts: [barChart('expiring', { title: 'expiry test' })], quality: 'standard' };
  const first = await postJson(host, '/visual/api/v1/charts/render', body, token);
  expect(first.headers.get('x-cache')).toBe('MISS');
  const chart = ((await first.json()) as any).charts[0];
  const original = Buffer.from(await (await fetchFresh(chart.imageUrl)).arrayBuffer());
  const key = chart.imageUrl.split('/').pop();

  // Served at least until the expiresAt the response gave.
  jest.setSystemTime(start + 12 * HOUR);
  expect((await fetchFresh(chart.imageUrl)).status).toBe(200);
  expect(await runCleanup()).toBeUndefined();
  expect(await (await container('chart-cache')).getBlockBlobClient(key).exists()).toBe(true);

  jest.setSystemTime(start + 12 * HOUR + RENEW_INTERVAL_MS + 1000);
  const expired = await fetchFresh(chart.imageUrl);
  expect(expired.status).toBe(404);
  expect(await expired.json()).toMatchObject({ code: 'CACHE_ENTRY_NOT_FOUND' });

  await runCleanup();
  expect(await (await container('chart-cache')).getBlockBlobClient(key).exists()).toBe(false);

  const again = await postJson(host, '/visual/api/v1/charts/render', body, token);
  expect(again.headers.get('x-cache')).toBe('MISS');
  const rerendered = Buffer.from(await (await fetchFresh(chart.imageUrl)).arrayBuffer());
  expect(rerendered.equals(original)).toBe(true);
});

test('a hit renews the entry to a full lifetime from the hit', async () => {
  const start = Date.parse('2026-11-23T08:00:00Z');
  jest.setSystemTime(start);
  const body = { charts: [barChart('renewed', { title: 'renewal test' })], format: 'svg' };
  const chart = ((await (await postJson(host, '/visual/api/v1/charts/render', body, token)).json()) as any).charts[0];
  jest.setSystemTime(start + 10 * HOUR);
  const hit = await postJson(host, '/visual/api/v1/charts/render', body, token);
  expect(hit.headers.get('x-cache')).toBe('HIT');
  expect(((await hit.json()) as any).expiresAt).toBe(new Date(start + 22 * HOUR).toISOString());
  jest.setSystemTime(start + 22 * HOUR);
  expect((await fetchFresh(chart.imageUrl)).status).toBe(200);
  jest.setSystemTime(start + 22 * HOUR + RENEW_INTERVAL_MS + 1000);
  await expectErrorAnswer(await fetchFresh(chart.imageUrl), 404, 'CACHE_ENTRY_NOT_FOUND');
});
