import { startTestHost, type TestHost } from '../helpers/host';
import { chartOfType, postJson, visualToken, renderPoolOf } from './helpers';

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ env: { VISUAL_RENDER_WORKERS: '1', VISUAL_RENDER_QUEUE_MAX: '2' } });
});
afterAll(() => host.stop());

test('when the render queue is full the request is 503 with Retry-After, and the service recovers', async () => {
  const charts = Array.from({ length: 6 }, (_, i) => ({ ...chartOfType('bar', `q${i}`), options: { title: `busy ${i}` } }));
  const res = await postJson(host, '/visual/api/v1/charts/render', { charts, quality: 'standard' }, visualToken(host));
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(await res.json()).toMatchObject({ error: 'Service unavailable', code: 'RENDERER_BUSY' });

  // The renders already accepted finish (and are cached); once the queue drains the service answers again.
  await renderPoolOf(host).idle();
  const ok = await postJson(host, '/visual/api/v1/charts/render', { charts: charts.slice(0, 2), quality: 'standard' }, visualToken(host));
  expect(ok.status).toBe(200);
});
