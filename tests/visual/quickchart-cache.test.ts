// The QuickChart drop-in answers the image bytes, never a URL, so its cache only saves repeats: a
// chart is stored on its second request (within the renewal interval, on the instance asked), not
// its first. What a caller sees: the same bytes every time; the first request costs no storage call,
// the second stores, the third and later are hits.
import { RENEW_INTERVAL_MS } from '../../functions/visual/cache-index';
import { RENDER_POOL } from '../../functions/visual/render/renderer';
import { runInPlatform } from '../../shared/platform';
import { container } from '../../shared/storage';
import { startTestHost, type TestHost } from '../helpers/host';
import { decodePng, fetchFresh, visualToken } from './helpers';

let first: TestHost;
let second: TestHost;
let at = Date.parse('2026-11-27T08:00:00Z');
const clock = { now: () => new Date(at) };

beforeAll(async () => {
  first = await startTestHost({ env: { SERVICES: 'visual' }, clock });
  // A second instance of the service: its own process state, the same storage account.
  second = await startTestHost({ env: { SERVICES: 'visual', AzureWebJobsStorage: first.azurite!.connectionString }, clock });
});
afterAll(async () => {
  await second.stop();
  await first.stop();
});

/** POST /quickchart/chart as quickchart-js's toBinary() sends it, a bar chart whose values name it. */
async function quickChart(host: TestHost, name: string, format: 'png' | 'svg') {
  const chart = { type: 'bar', data: { labels: ['a', name], datasets: [{ label: name, data: [3, name.length] }] } };
  const response = await fetchFresh(`${host.url}/quickchart/chart`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ chart, width: 300, height: 150, format, devicePixelRatio: 1, key: visualToken(host) }),
  });
  expect(response.status).toBe(200);
  const key = response.headers.get('etag')!.replaceAll('"', '');
  return { cache: response.headers.get('x-cache'), renders: response.headers.get('x-render-count'), key, bytes: Buffer.from(await response.arrayBuffer()) };
}

const stored = (host: TestHost, key: string) => runInPlatform(host.platform, async () => (await container('chart-cache')).getBlockBlobClient(key).exists());
const rendersOf = (host: TestHost) => host.platform.get(RENDER_POOL).renders;

test.each(['png', 'svg'] as const)('%s: the first request is drawn and not stored, the second is stored, the third is a hit', async (format) => {
  const drawn = rendersOf(first);
  const once = await quickChart(first, `once-${format}`, format);
  expect([once.cache, once.renders]).toEqual(['MISS', '1']);
  expect(await stored(first, once.key)).toBe(false);

  const twice = await quickChart(first, `once-${format}`, format);
  expect([twice.cache, twice.renders]).toEqual(['MISS', '1']);
  expect(twice.key).toBe(once.key);
  expect(await stored(first, once.key)).toBe(true);

  const thrice = await quickChart(first, `once-${format}`, format);
  expect([thrice.cache, thrice.renders]).toEqual(['HIT', '0']);
  expect(rendersOf(first)).toBe(drawn + 2);
  // The same image every time, stored or not.
  expect(twice.bytes.equals(once.bytes)).toBe(true);
  expect(thrice.bytes.equals(once.bytes)).toBe(true);
  if (format === 'png') expect(decodePng(once.bytes).width).toBe(300);
  else expect(once.bytes.toString('utf8')).toMatch(/<svg[^>]* width="300"/);
});

test('a repeat after the renewal interval is a first request again: drawn, not stored', async () => {
  const early = await quickChart(first, 'late', 'png');
  at += RENEW_INTERVAL_MS;
  const late = await quickChart(first, 'late', 'png');
  expect([late.cache, late.renders]).toEqual(['MISS', '1']);
  expect(await stored(first, early.key)).toBe(false);
  at += 1000;
  expect((await quickChart(first, 'late', 'png')).renders).toBe('1');
  expect(await stored(first, early.key)).toBe(true);
});

test('a chart another instance stored: drawn on its first request here without asking storage, a hit on its second', async () => {
  await quickChart(first, 'shared', 'png');
  const kept = await quickChart(first, 'shared', 'png');
  expect(await stored(first, kept.key)).toBe(true);

  const drawn = rendersOf(second);
  const elsewhere = await quickChart(second, 'shared', 'png');
  expect([elsewhere.cache, elsewhere.renders]).toEqual(['MISS', '1']);
  const again = await quickChart(second, 'shared', 'png');
  expect([again.cache, again.renders]).toEqual(['HIT', '0']);
  expect(rendersOf(second)).toBe(drawn + 1);
  expect(again.bytes.equals(kept.bytes)).toBe(true);
});
