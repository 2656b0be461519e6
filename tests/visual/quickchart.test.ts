import http from 'node:http';
import QuickChart from 'quickchart-js';
import { decodePng, fetchFresh, visualTestHost } from './helpers';

// quickchart-js fetches through Node's global agent; see fetchFresh for why tests avoid keep-alive.
http.globalAgent = new http.Agent({ keepAlive: false });

const visual = visualTestHost();

/** The real quickchart-js client pointed at the dev host: it joins `${scheme}://${host}/chart`. */
function client(key: string | undefined = visual.token): QuickChart {
  return new QuickChart(key).setHost(`${new URL(visual.host.url).host}/quickchart`).setScheme('http');
}

const CONFIG_LITERAL = `{
  type: 'bar',
  data: { labels: ['Q1', 'Q2', 'process.env'], datasets: [{ label: 'Users', data: [50, 60, 70], backgroundColor: '#C5504B' }] },
  options: { plugins: { title: { display: true, text: 'Quick' } } },
}`;

test('toBinary() with an object-literal config answers a PNG of the requested size', async () => {
  const png = decodePng(await client().setConfig(CONFIG_LITERAL).setWidth(500).setHeight(300).toBinary());
  expect([png.width, png.height]).toEqual([500, 300]);
});

test('a config object (quickchart-js stringifies it as JavaScript) renders too, at the requested pixel ratio', async () => {
  const qc = client()
    .setConfig({ type: 'line', data: { labels: ['a', 'b'], datasets: [{ label: 'x', data: [1, 2] }] } })
    .setWidth(400)
    .setHeight(200)
    .setDevicePixelRatio(2);
  const png = decodePng(await qc.toBinary());
  expect([png.width, png.height]).toEqual([800, 400]);
});

test('toDataUrl() as SVG keeps labels as literal text', async () => {
  const url = await client().setConfig(CONFIG_LITERAL).setFormat('svg').toDataUrl();
  expect(url).toMatch(/^data:image\/svg\+xml;base64,/);
  const svg = Buffer.from(url.split(',')[1], 'base64').toString('utf8');
  expect(svg).toMatch(/<text[^>]*>process\.env<\/text>/);
  expect(svg).toMatch(/<text[^>]*>Quick<\/text>/);
});

test('getUrl() gives a GET URL that answers the image; stored by its second fetch, a hit from the third', async () => {
  const url = client().setConfig(CONFIG_LITERAL).setWidth(300).setHeight(150).getUrl();
  expect(url.startsWith(`${visual.host.url}/quickchart/chart?c=`)).toBe(true);
  const first = await fetchFresh(url);
  expect(first.status).toBe(200);
  expect(first.headers.get('content-type')).toBe('image/png');
  const png = decodePng(Buffer.from(await first.arrayBuffer()));
  // getUrl() leaves out devicePixelRatio=1, so the server's default of 2 applies, as on QuickChart.
  expect([png.width, png.height]).toEqual([600, 300]);
  const second = await fetchFresh(url);
  expect(second.headers.get('x-cache')).toBe('MISS');
  const third = await fetchFresh(url);
  expect(third.headers.get('x-cache')).toBe('HIT');
  expect(third.headers.get('x-render-count')).toBe('0');
  expect(Buffer.from(await third.arrayBuffer()).equals(Buffer.from(await second.arrayBuffer()))).toBe(true);
});

test.each([
  [
    'a function',
    `{ type: 'bar', data: { datasets: [{ data: [1] }] }, options: { plugins: { tooltip: { callbacks: { label: function (c) { return process.env.HOME } } } } } }`,
  ],
  ['an arrow function', `{ type: 'bar', data: { datasets: [{ data: [1] }] }, options: { onClick: (e) => fetchFresh('http://x') } }`],
  ['an expression', `{ type: 'bar', data: { labels: [process.env.HOME], datasets: [{ data: [1] }] } }`],
  ['a call', `{ type: 'bar', data: { datasets: [{ data: [1].map(x => x * 2) }] } }`],
])('a config containing %s is 400 and never evaluated', async (_name, chart) => {
  await expect(client().setConfig(chart).toBinary()).rejects.toThrow(/status code 400\s+chart is not a data-only configuration/);
});

test('an unsupported chart type or format is 400 with the X-quickchart-error header', async () => {
  await expect(client().setConfig(`{ type: 'sankey', data: { datasets: [{ data: [1] }] } }`).toBinary()).rejects.toThrow(
    /status code 400\s+Invalid chart: type/,
  );
  await expect(client().setConfig(CONFIG_LITERAL).setFormat('gif').toBinary()).rejects.toThrow(/status code 400\s+format "gif" is not supported/);
  await expect(client().setConfig(CONFIG_LITERAL).setWidth(9000).toBinary()).rejects.toThrow(/status code 400\s+width must be/);
});

test('the API key (VISUAL_API_TOKEN) is required when set', async () => {
  await expect(client('').setConfig(CONFIG_LITERAL).toBinary()).rejects.toThrow(/status code 401/);
  await expect(client('wrong-key-wrong-key').setConfig(CONFIG_LITERAL).toBinary()).rejects.toThrow(/status code 401/);
  const bearer = await fetchFresh(`${visual.host.url}/quickchart/chart`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${visual.token}` },
    body: JSON.stringify({ chart: CONFIG_LITERAL, width: 200, height: 100 }),
  });
  expect(bearer.status).toBe(200);
});

test('the key is checked on the route line, before the request is read: a stranger learns nothing about their input', async () => {
  const url = `${visual.host.url}/quickchart/chart`;
  // Input the operation would refuse with 400 (not JSON; an unknown format) is 401 without the key.
  for (const init of [
    { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' },
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chart: CONFIG_LITERAL, format: 'gif', key: 'wrong-key-wrong-key' }),
    },
  ]) {
    const res = await fetchFresh(url, init);
    expect(res.status).toBe(401);
    expect(decodeURIComponent(res.headers.get('x-quickchart-error')!)).toBe(((await res.json()) as any).message);
  }
  const get = await fetchFresh(`${url}?c=${encodeURIComponent(CONFIG_LITERAL)}&f=gif`);
  expect([get.status, ((await get.json()) as any).code]).toEqual([401, 'AUTH_REQUIRED']);
  const keyed = await fetchFresh(`${url}?c=${encodeURIComponent(CONFIG_LITERAL)}&f=gif&key=${visual.token}`);
  expect(keyed.status).toBe(400);
});
