import { bundledFontDir } from '../../functions/visual/render/fonts';
import { RenderPool } from '../../functions/visual/render/pool';
import { startTestHost, type TestHost } from '../helpers/host';
import { barChart, postJson, visualToken } from './helpers';

let host: TestHost;
beforeAll(async () => {
  host = await startTestHost({ env: { VISUAL_RENDER_TIMEOUT_MS: '1' } });
});
afterAll(() => host.stop());

test('a render past the timeout is 500 Chart rendering failed with details, every time', async () => {
  for (let i = 0; i < 2; i++) {
    const res = await postJson(host, '/visual/api/v1/charts/render', { charts: [barChart(`slow${i}`, { width: 4000, height: 4000 })] }, visualToken(host));
    expect(res.status).toBe(500);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ error: 'Chart rendering failed' });
    expect(body.details).toContain('longer than 1 ms');
    expect(JSON.stringify(body)).not.toMatch(/at .*\.js/);
  }
});

describe('a render thread past its timeout', () => {
  const fonts = { dir: bundledFontDir(), extra: [] };
  const quickChart = {
    kind: 'chart' as const,
    config: { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] } },
    width: 200,
    height: 100,
    pixelRatio: 1,
    format: 'png' as const,
    background: 'white',
  };
  // A complete graph of 45 nodes: Graphviz lays it out for about a minute on this machine's cores.
  const edges = Array.from({ length: 45 }, (_, i) => Array.from({ length: 45 - i - 1 }, (_, k) => `n${i}->n${i + k + 1}`)).flat();
  const slowDiagram = { kind: 'dot' as const, source: `digraph{${edges.join(';')}}`, format: 'svg' as const };
  let pool: RenderPool;
  beforeAll(() => (pool = new RenderPool(1, 1000, fonts, 10)));
  afterAll(() => pool.close());

  const cpuSeconds = () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1e6;
  };

  test('is terminated, not abandoned: its work stops, a new thread takes its place and the next render succeeds', async () => {
    const before = await pool.run(quickChart);
    await expect(pool.run(slowDiagram)).rejects.toThrow('longer than 1000 ms');
    // A thread left running would keep a core busy with the layout for about a minute.
    const cpuAtTimeout = cpuSeconds();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(cpuSeconds() - cpuAtTimeout).toBeLessThan(0.75);
    const after = await pool.run(quickChart);
    expect(Buffer.from(after.bytes).subarray(1, 4).toString()).toBe('PNG');
    expect(after.threadId).not.toBe(before.threadId);
  });
});
