import { startTestHost, type TestHost } from '../helpers/host';
import { barChart, fetchFresh, postJson, visualToken } from './helpers';

let host: TestHost;
beforeAll(async () => {
  // A VISUAL_FONT_DIR override without the fonts: the render pool cannot start.
  host = await startTestHost({ env: { VISUAL_FONT_DIR: '/nonexistent-font-dir' } });
});
afterAll(() => host.stop());

test('the other services still start; visual health names the problem; renders answer 500 naming the missing file', async () => {
  expect((await fetchFresh(`${host.url}/identity/health`)).status).toBe(200);
  const health = await fetchFresh(`${host.url}/visual/health`);
  expect(health.status).toBe(503);
  expect(((await health.json()) as any).dependencies.renderer).toMatchObject({
    ok: false,
    error: expect.stringContaining('/nonexistent-font-dir/DejaVuSans.ttf'),
  });
  const res = await postJson(host, '/visual/api/v1/charts/render', { charts: [barChart()] }, visualToken(host));
  expect(res.status).toBe(500);
  expect(await res.json()).toMatchObject({ error: 'Chart rendering failed', code: 'RENDER_FAILED', details: expect.stringContaining('VISUAL_FONT_DIR') });
});
