import { startTestHost, type TestHost } from '../helpers/host';
import { barChart, postJson, visualToken } from './helpers';

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ env: { VISUAL_RENDER_TIMEOUT_MS: '1' } });
});
afterAll(() => host.stop());

test('a render past the timeout is 500 Chart rendering failed with details, and the pool keeps serving', async () => {
  for (let i = 0; i < 2; i++) {
    const res = await postJson(host, '/visual/api/v1/charts/render', { charts: [barChart(`slow${i}`, { width: 4000, height: 4000 })] }, visualToken(host));
    expect(res.status).toBe(500);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ error: 'Chart rendering failed' });
    expect(body.details).toContain('longer than 1 ms');
    expect(JSON.stringify(body)).not.toMatch(/at .*\.js/);
  }
});
