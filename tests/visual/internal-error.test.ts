import { startTestHost, type TestHost } from '../helpers/host';
import { barChart, postJson, visualToken } from './helpers';

let host: TestHost;
beforeAll(async () => {
  // A container name Blob Storage refuses: every cache call fails the way a storage outage would.
  host = await startTestHost({ env: { VISUAL_CACHE_CONTAINER: 'Not_A_Valid_Container' } });
});
afterAll(() => host.stop());

test('an unhandled failure is 500 Internal server error with no internals in the body', async () => {
  const res = await postJson(host, '/visual/api/v1/charts/render', { charts: [barChart()] }, visualToken(host));
  expect(res.status).toBe(500);
  const text = await res.text();
  expect(JSON.parse(text)).toMatchObject({ error: 'Internal server error', code: 'INTERNAL' });
  expect(text).not.toMatch(/Not_A_Valid_Container|InvalidResourceName|at .*\.js|RestError/);
});
