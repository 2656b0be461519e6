import { bundledFontDir } from '../../functions/visual/render/fonts';
import { RenderCancelledError, RenderPool } from '../../functions/visual/render/pool';
import { expectErrorAnswer } from '../helpers/errors';
import { startTestHost, type TestHost } from '../helpers/host';
import { barChart, postJson, visualToken, renderPoolOf } from './helpers';

/**
 * A request's items stop at its first failure: the renders of the others not yet taken by a thread
 * leave the pool's queue at once (issue 48: the siblings of a failed chart went on rendering, about
 * 200 s of render time for a 20-item request, and a plain chart waited behind them). One render
 * thread, so everything but the first item waits in the queue; counted by the pool's counters.
 */
let host: TestHost;
let token: string;
beforeAll(async () => {
  host = await startTestHost({ env: { VISUAL_RENDER_WORKERS: '1' } });
  token = visualToken(host);
});
afterAll(() => host.stop());

/** A chart Chart.js refuses as soon as it is built (no such scale type). */
const refused = (id: string) => ({ ...barChart(id), options: { scales: { x: { type: 'nonsense' } } } });
/** Charts nobody asked for before (a cache hit renders nothing). */
const fresh = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => barChart(`${prefix}${i}`, { title: `${prefix} ${i} ${Date.now()}` }));

test('charts: the first failing stops the ten queued behind it, and a plain chart sent alongside renders alone', async () => {
  await renderPoolOf(host).idle();
  const pool = renderPoolOf(host);
  const [renders, cancelled] = [pool.renders, pool.cancelled];

  const failing = postJson(host, '/visual/api/v1/charts/render', { charts: [refused('bad'), ...fresh('sibling', 10)], quality: 'standard' }, token);
  let answered = false;
  void failing.then(
    () => (answered = true),
    () => (answered = true),
  );
  // The plain chart is sent once the failing request's charts are in the queue.
  while (pool.pending === 0 && !answered) await new Promise((resolve) => setImmediate(resolve));
  const plain = await postJson(host, '/visual/api/v1/charts/render', { charts: fresh('plain', 1), quality: 'standard' }, token);
  expect(plain.status).toBe(200);
  // When the plain chart is answered, no sibling of the failed chart has been drawn before it.
  expect(pool.renders - renders).toBe(1);

  const body = await expectErrorAnswer(await failing, 400, 'CHART_NOT_RENDERABLE');
  expect(body.details).toContain('Chart "bad"');
  await pool.idle();
  expect({ rendered: pool.renders - renders, cancelled: pool.cancelled - cancelled }).toEqual({ rendered: 1, cancelled: 10 });
});

test('diagrams: one that is malformed (an edge to no node) is refused before any of the others is rendered', async () => {
  await renderPoolOf(host).idle();
  const pool = renderPoolOf(host);
  const renders = pool.renders;
  const diagrams = [
    ...Array.from({ length: 5 }, (_, i) => ({ id: `d${i}`, type: 'dot', source: `digraph { a${Date.now()} -> b${i} }` })),
    { id: 'dangling', type: 'flowchart', nodes: [{ id: 'a' }], edges: [{ from: 'a', to: 'nowhere' }] },
  ];
  const res = await postJson(host, '/visual/api/v1/diagrams/render', { diagrams }, token);
  const body = await expectErrorAnswer(res, 400, 'INVALID_DIAGRAM');
  expect(body).toMatchObject({ diagramId: 'dangling', message: 'Diagram "dangling": edges.0.to "nowhere" is not a node id' });
  // A diagram sent next is looked up and queued after anything the refused request had started.
  const next = await postJson(host, '/visual/api/v1/diagrams/render', { diagrams: [{ type: 'dot', source: `digraph { next${Date.now()} }` }] }, token);
  expect(next.status).toBe(200);
  await pool.idle();
  expect(pool.renders - renders).toBe(1);
});

describe('the pool and an aborted signal', () => {
  const chart = (title: string) => ({
    kind: 'chart' as const,
    config: { type: 'bar', data: { labels: [title], datasets: [{ data: [1] }] } },
    width: 200,
    height: 100,
    pixelRatio: 1,
    format: 'png' as const,
    background: 'white',
  });
  let pool: RenderPool;
  beforeAll(() => (pool = new RenderPool(1, 10_000, { dir: bundledFontDir(), extra: [] }, 10)));
  afterAll(() => pool.close());

  test('takes the queued jobs out at once and lets the one a thread has taken finish; a job given an aborted signal never queues', async () => {
    const stop = new AbortController();
    const running = pool.run(chart('a'), stop.signal);
    const queued = [pool.run(chart('b'), stop.signal), pool.run(chart('c'), stop.signal)];
    const other = pool.run(chart('d'));
    expect(pool.pending).toBe(4);
    stop.abort();
    expect(pool.pending).toBe(2);
    for (const job of queued) await expect(job).rejects.toBeInstanceOf(RenderCancelledError);
    expect(
      Buffer.from((await running).bytes)
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    await other;
    await expect(pool.run(chart('e'), stop.signal)).rejects.toBeInstanceOf(RenderCancelledError);
    expect({ renders: pool.renders, cancelled: pool.cancelled, pending: pool.pending }).toEqual({ renders: 2, cancelled: 3, pending: 0 });
  });
});
