import { freePort } from '../../devhost/azurite';
import { startTestHost, type TestHost } from '../helpers/host';
import { barChart, decodePng, postJson, fetchFresh, renderPoolOf } from './helpers';

const TOKEN = 'quickchart-mode-token-0123456789';
let host: TestHost;
beforeAll(async () => {
  // A port known before the host starts, so QUICKCHART_URL can name the host's own QuickChart endpoint.
  const port = await freePort();
  // The QuickChart server here is this host's own QuickChart-compatible endpoint, reached over HTTP by quickchart-js.
  host = await startTestHost({
    env: { PORT: String(port), QUICKCHART_URL: `http://127.0.0.1:${port}/quickchart`, QUICKCHART_API_KEY: TOKEN, VISUAL_API_TOKEN: TOKEN },
  });
});
afterAll(() => host.stop());

test('with QUICKCHART_URL set, charts/render renders through quickchart-js with the same response shape and cache', async () => {
  const rendersBefore = renderPoolOf(host).renders;
  const body = { charts: [barChart('remote', { width: 400, height: 200 })], theme: 'executive', quality: 'standard' };
  const res = await postJson(host, '/visual/api/v1/charts/render', body, TOKEN);
  expect(res.status).toBe(200);
  // Thread 0 marks a remote render; the QuickChart endpoint behind it rendered once on the pool.
  expect(res.headers.get('x-render-threads')).toBe('0');
  expect(renderPoolOf(host).renders).toBe(rendersBefore + 1);
  const result = (await res.json()) as any;
  expect(result).toMatchObject({ success: true, charts: [{ id: 'remote', base64: null, metadata: { width: 400, height: 200, title: 'Revenue by quarter' } }] });
  const png = decodePng(Buffer.from(await (await fetchFresh(result.charts[0].imageUrl)).arrayBuffer()));
  expect([png.width, png.height]).toEqual([400, 200]);
  expect([...png.data.subarray(0, 3)]).toEqual([0xfa, 0xfa, 0xfa]);

  const again = await postJson(host, '/visual/api/v1/charts/render', body, TOKEN);
  expect(again.headers.get('x-cache')).toBe('HIT');
});
