// A chart (PNG or SVG) is drawn before the cache is asked and stored only if its key is free: a miss
// costs one storage call instead of two. What a caller sees must not change: a chart another
// instance stored is a hit, renewed as any hit is; an expired blob under the key is replaced.
// Diagrams, infographics and decks ask the cache first.
import { RENEW_INTERVAL_MS } from '../../functions/visual/cache-index';
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

const FORMATS = [
  { format: 'svg', served: /^<\?xml|^<svg/ },
  { format: 'png', served: /^\x89PNG/ },
] as const;

const render = (host: TestHost, id: string, format: string) =>
  postJson(host, '/visual/api/v1/charts/render', { charts: [barChart(id, { title: `${format} ${id}` })], format, quality: 'standard' }, visualToken(host));
const keyOf = async (response: Response) => ((await response.json()) as { charts: { imageUrl: string }[] }).charts[0].imageUrl.split('/').pop()!;
const blob = (host: TestHost, key: string) => runInPlatform(host.platform, async () => (await container('chart-cache')).getBlockBlobClient(key));
const drawnBy = (host: TestHost) => host.platform.get(RENDER_POOL).renders;

describe.each(FORMATS)('a $format chart', ({ format, served }) => {
  test('another instance stored it: drawn here first, yet a hit (not counted as a render), its blob renewed, the same bytes served', async () => {
    const stored = await render(first, 'shared', format);
    expect(stored.headers.get('x-cache')).toBe('MISS');
    const key = await keyOf(stored);
    const before = (await (await blob(first, key)).getProperties()).metadata!;

    at = Date.parse(before.generatedat) + HOUR;
    const drawn = drawnBy(second);
    const again = await render(second, 'shared', format);
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect(again.headers.get('x-render-count')).toBe('0');
    expect(await keyOf(again)).toBe(key);
    // Drawn before the cache was asked: the price of a hit that this instance's index does not hold.
    expect(drawnBy(second)).toBe(drawn + 1);

    const after = (await (await blob(second, key)).getProperties()).metadata!;
    expect(after.generatedat).toBe(before.generatedat);
    // Renewed to a full lifetime (plus the renewal interval) from the second instance's now.
    expect(Date.parse(after.expiresat)).toBe(at + second.platform.config.VISUAL_CACHE_TTL_SECONDS * 1000 + RENEW_INTERVAL_MS);
    expect(Date.parse(after.expiresat)).toBeGreaterThan(Date.parse(before.expiresat));
    const fetched = await fetchFresh(`${second.url}/visual/cache/${key}`);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).toString('latin1')).toMatch(served);
  });

  test('an expired blob under the key is replaced by the new drawing', async () => {
    const stored = await render(first, 'expired', format);
    const key = await keyOf(stored);
    const client = await blob(first, key);
    const { metadata } = await client.getProperties();
    await client.setMetadata({ ...metadata, expiresat: new Date(Date.parse(metadata!.generatedat) - 1000).toISOString() });

    at = Date.parse(metadata!.generatedat) + 2 * HOUR;
    const again = await render(second, 'expired', format);
    expect(again.headers.get('x-cache')).toBe('MISS');
    expect(again.headers.get('x-render-count')).toBe('1');
    const replaced = (await client.getProperties()).metadata!;
    expect(replaced.generatedat).toBe(new Date(at).toISOString());
    expect(Date.parse(replaced.expiresat)).toBeGreaterThan(at);
  });

  test('one this instance has just stored is answered from its index, without drawing it again', async () => {
    const stored = await render(second, 'recent', format);
    expect(stored.headers.get('x-cache')).toBe('MISS');
    const drawn = drawnBy(second);
    const again = await render(second, 'recent', format);
    expect(again.headers.get('x-cache')).toBe('HIT');
    expect(again.headers.get('x-render-count')).toBe('0');
    expect(drawnBy(second)).toBe(drawn);
  });
});

test('a diagram another instance stored is found before anything is drawn', async () => {
  const body = { diagrams: [{ id: 'd', type: 'dot', source: 'digraph { order -> paid }' }], format: 'svg' };
  const stored = await postJson(first, '/visual/api/v1/diagrams/render', body, visualToken(first));
  expect(stored.headers.get('x-cache')).toBe('MISS');
  const drawn = drawnBy(second);
  const again = await postJson(second, '/visual/api/v1/diagrams/render', body, visualToken(second));
  expect(again.status).toBe(200);
  expect(again.headers.get('x-cache')).toBe('HIT');
  expect(drawnBy(second)).toBe(drawn);
});

test('an infographic SVG another instance stored is a hit, served with the stored entry', async () => {
  const infographic = { id: 'i', type: 'dashboard', layout: 'metrics_grid', title: 'Shared', data: { metrics: [{ label: 'Revenue', value: 12 }] } };
  const body = { infographics: [infographic], format: 'svg' };
  const stored = await postJson(first, '/visual/api/v1/infographics/generate', body, visualToken(first));
  expect(stored.headers.get('x-cache')).toBe('MISS');
  const { imageUrl, metadata } = ((await stored.json()) as { infographics: { imageUrl: string; metadata: { generatedAt: string } }[] }).infographics[0];
  const again = await postJson(second, '/visual/api/v1/infographics/generate', body, visualToken(second));
  expect(again.status).toBe(200);
  expect(again.headers.get('x-cache')).toBe('HIT');
  expect(again.headers.get('x-render-count')).toBe('0');
  const answered = ((await again.json()) as { infographics: { imageUrl: string; metadata: { generatedAt: string } }[] }).infographics[0];
  expect(answered.imageUrl.split('/').pop()).toBe(imageUrl.split('/').pop());
  expect(answered.metadata.generatedAt).toBe(metadata.generatedAt);
});
