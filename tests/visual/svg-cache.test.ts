// An SVG is drawn before the cache is asked (it costs about what a lookup that misses does) and
// stored only if its key is free. What a caller sees must not change: a chart another instance
// stored is a hit, renewed as any hit is; an expired blob under the key is replaced.
import { RENEW_INTERVAL_MS } from '../../functions/visual/cache';
import { RENDER_POOL } from '../../functions/visual/render/renderer';
import { runInPlatform } from '../../shared/platform';
import { container } from '../../shared/storage';
import { startTestHost, type TestHost } from '../helpers/host';
import { barChart, fetchFresh, postJson, visualToken } from './helpers';

let first: TestHost;
let second: TestHost;
let at = Date.parse('2026-11-27T08:00:00Z');
const HOUR = 3600_000;

beforeAll(async () => {
  first = await startTestHost({ env: { SERVICES: 'visual' } });
  // A second instance of the service: its own process state, the same storage account.
  second = await startTestHost({ env: { SERVICES: 'visual', AzureWebJobsStorage: first.azurite!.connectionString }, clock: { now: () => new Date(at) } });
});
afterAll(async () => {
  await second.stop();
  await first.stop();
});

const render = (host: TestHost, id: string) =>
  postJson(host, '/visual/api/v1/charts/render', { charts: [barChart(id, { title: `svg ${id}` })], format: 'svg', quality: 'standard' }, visualToken(host));
const keyOf = async (response: Response) => ((await response.json()) as { charts: { imageUrl: string }[] }).charts[0].imageUrl.split('/').pop()!;
const blob = (host: TestHost, key: string) => runInPlatform(host.platform, async () => (await container('chart-cache')).getBlockBlobClient(key));

test('a chart another instance stored is a hit: not counted as a render, its blob renewed, the same bytes served', async () => {
  const stored = await render(first, 'shared');
  expect(stored.headers.get('x-cache')).toBe('MISS');
  const key = await keyOf(stored);
  const before = (await (await blob(first, key)).getProperties()).metadata!;

  at = Date.parse(before.generatedat) + HOUR;
  const again = await render(second, 'shared');
  expect(again.headers.get('x-cache')).toBe('HIT');
  expect(again.headers.get('x-render-count')).toBe('0');
  expect(await keyOf(again)).toBe(key);

  const after = (await (await blob(second, key)).getProperties()).metadata!;
  expect(after.generatedat).toBe(before.generatedat);
  // Renewed to a full lifetime (plus the renewal interval) from the second instance's now.
  expect(Date.parse(after.expiresat)).toBe(at + second.platform.config.VISUAL_CACHE_TTL_SECONDS * 1000 + RENEW_INTERVAL_MS);
  expect(Date.parse(after.expiresat)).toBeGreaterThan(Date.parse(before.expiresat));
  const served = await fetchFresh(`${second.url}/visual/cache/${key}`);
  expect(served.status).toBe(200);
  expect(await served.text()).toMatch(/^<\?xml|^<svg/);
});

test('an expired blob under the key is replaced by the new drawing', async () => {
  const stored = await render(first, 'expired');
  const key = await keyOf(stored);
  const client = await blob(first, key);
  const { metadata } = await client.getProperties();
  await client.setMetadata({ ...metadata, expiresat: new Date(Date.parse(metadata!.generatedat) - 1000).toISOString() });

  at = Date.parse(metadata!.generatedat) + 2 * HOUR;
  const again = await render(second, 'expired');
  expect(again.headers.get('x-cache')).toBe('MISS');
  expect(again.headers.get('x-render-count')).toBe('1');
  const replaced = (await client.getProperties()).metadata!;
  expect(replaced.generatedat).toBe(new Date(at).toISOString());
  expect(Date.parse(replaced.expiresat)).toBeGreaterThan(at);
});

test('a chart this instance has just stored is answered from its index, without drawing it again', async () => {
  const stored = await render(second, 'recent');
  expect(stored.headers.get('x-cache')).toBe('MISS');
  const drawn = second.platform.get(RENDER_POOL).renders;
  const again = await render(second, 'recent');
  expect(again.headers.get('x-cache')).toBe('HIT');
  expect(again.headers.get('x-render-count')).toBe('0');
  expect(second.platform.get(RENDER_POOL).renders).toBe(drawn);
});
