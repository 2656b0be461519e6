import { execFileSync } from 'node:child_process';
import http from 'node:http';
import QuickChart from 'quickchart-js';
import { stripLinks } from '../../functions/visual/render/strip-links';
import { fetchFresh, postJson, visualTestHost } from './helpers';
import { expectErrorAnswer } from '../helpers/errors';

// quickchart-js fetches through Node's global agent; see fetchFresh for why tests avoid keep-alive.
http.globalAgent = new http.Agent({ keepAlive: false });

const visual = visualTestHost();
const renderDot = (source: string, format = 'svg') =>
  postJson(visual.host, '/visual/api/v1/diagrams/render', { diagrams: [{ id: 'd', type: 'dot', source }], format }, visual.token);

describe('diagram links: refused in DOT source in every spelling', () => {
  test.each([
    ['a quoted URL', 'digraph { a ["URL"="javascript:alert(1)"] }'],
    ['a quoted href', 'digraph { a ["href"="javascript:alert(1)"] }'],
    ['labelURL', 'digraph { a -> b [labelURL="javascript:alert(1)", label="x"] }'],
    ['edgehref', 'digraph { a -> b [edgehref="javascript:alert(1)"] }'],
    ['labelhref', 'digraph { a -> b [labelhref="javascript:alert(1)", label="x"] }'],
    ['headURL', 'digraph { a -> b [headURL="javascript:alert(1)", headlabel="h"] }'],
    ['tailtarget', 'digraph { a -> b [tailtarget="_top"] }'],
    ['edgeURL as a default', 'digraph { edge [edgeURL="javascript:alert(1)"]; a -> b }'],
    ['a graph attribute statement', 'digraph { URL="javascript:alert(1)"; a }'],
    ['a concatenated name', 'digraph { a ["UR" + "L"="javascript:alert(1)"] }'],
    ['a name split by a line continuation', 'digraph { a ["UR\\\nL"="javascript:alert(1)"] }'],
    ['an HTML string as the name', 'digraph { a [<URL>="javascript:alert(1)"] }'],
    ['a comment between name and =', 'digraph { a [URL /* x */ = "javascript:alert(1)"] }'],
    ['lower case', 'digraph { a [url="javascript:alert(1)"] }'],
    ['an HTML-like label with HREF', 'digraph { a [label=<<TABLE HREF="javascript:alert(1)"><TR><TD>x</TD></TR></TABLE>>] }'],
    ['an HTML-like label with IMG', 'digraph { a [label=<<TABLE><TR><TD><IMG SRC="/etc/passwd"/></TD></TR></TABLE>>] }'],
    ['a file reference', 'digraph { a [image="/etc/passwd"] }'],
  ])('%s is 400 Invalid diagram', async (_name, source) => {
    const res = await renderDot(source);
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ error: 'Invalid diagram', code: 'INVALID_DIAGRAM', diagramId: 'd' });
    expect(body.message).toMatch(/is not allowed/);
  });

  test('words that only look like link attributes are drawn (labels, node names)', async () => {
    const res = await renderDot('digraph { "URL" -> b [label="href=javascript:x"]; c [label="see URL = below"] }');
    expect(res.status).toBe(200);
    const svg = await (await fetchFresh(((await res.json()) as any).diagrams[0].imageUrl)).text();
    expect(svg).toContain('>URL</text>');
    expect(svg).toContain('>see URL = below</text>');
  });

  test('Graphviz output carries no <a> element: a tooltip (allowed) is drawn without its link wrapper', async () => {
    const res = await renderDot('digraph { a [tooltip="tip", label="node a"] }');
    expect(res.status).toBe(200);
    const svg = await (await fetchFresh(((await res.json()) as any).diagrams[0].imageUrl)).text();
    expect(svg).toContain('>node a</text>');
    expect(svg).toContain('<ellipse');
    expect(svg).not.toMatch(/<a[\s>]/);
    expect(svg).not.toMatch(/href=/);
  });
});

describe('diagram links: the second layer strips what Graphviz produces', () => {
  // Graphviz's own output, from a plain Node process (the package is ESM, which Jest's module loader cannot require).
  const graphvizSvg = (source: string) =>
    execFileSync(
      process.execPath,
      ['-e', "require('@hpcc-js/wasm-graphviz').Graphviz.load().then((g) => process.stdout.write(g.dot(process.argv[1])))", source],
      { encoding: 'utf8' },
    );

  test('links Graphviz writes for every link attribute are gone; the drawing stays', () => {
    const raw = graphvizSvg(
      'digraph { URL="javascript:g"; a [URL="javascript:1", tooltip="t"]; a -> b [edgehref="javascript:2", labelhref="javascript:3", label="x", headURL="https://evil.example", headlabel="h"]; ' +
        'c [label=<<TABLE HREF="javascript:4"><TR><TD HREF="javascript:5">cell</TD></TR></TABLE>>] }',
    );
    expect(raw).toMatch(/<a xlink:href="javascript:/); // what the first layer keeps out
    const clean = stripLinks(raw);
    expect(clean).not.toMatch(/<a[\s>]|<\/a>/);
    expect(clean).not.toMatch(/href/i);
    expect(clean).not.toMatch(/javascript:/i);
    for (const kept of ['>a</text>', '>b</text>', '>x</text>', '>h</text>', '>cell</text>', '<ellipse', '<path']) expect(clean).toContain(kept);
    expect(clean.match(/<g[\s>]/g)!.length).toBe(clean.match(/<\/g>/g)!.length);
  });

  test('href on any element and script URLs in any attribute, however encoded, are removed', () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="x.png" width="1"/>' +
      '<use href="#a"/><g onclick="&#106;ava&#x53;cript&#58;alert(1)" id="k"><text x="1">javascript: as text stays</text></g><rect fill="java&#10;script:x"/></svg>';
    const clean = stripLinks(svg);
    expect(clean).toBe(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image width="1"/><use/><g id="k"><text x="1">javascript: as text stays</text></g><rect/></svg>',
    );
  });
});

describe('/quickchart/chart answers every bad request, whatever its characters', () => {
  const url = () => `${visual.host.url}/quickchart/chart`;

  test('a JSON body starting with a UTF-8 byte-order mark gets 400 with a JSON body and an encoded header', async () => {
    const res = await fetchFresh(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${visual.token}` },
      body: '\ufeff{"chart": {"type": "bar", "data": {"datasets": [{"data": [1]}]}}}',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ error: 'Bad request', code: 'INVALID_JSON' });
    const header = res.headers.get('x-quickchart-error')!;
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(decodeURIComponent(header)).toBe(body.message);
  });

  test('a GET chart with an emoji gets 400 naming it (decoded from the header)', async () => {
    const res = await fetchFresh(`${url()}?key=${visual.token}&c=${encodeURIComponent('{type:💥}')}`);
    const body = await expectErrorAnswer(res, 400, 'INVALID_CHART');
    expect(body.message).toContain('💥');
    expect(decodeURIComponent(res.headers.get('x-quickchart-error')!)).toBe(body.message);
  });

  test('quickchart-js gets the error, not a dropped connection', async () => {
    const client = new QuickChart(visual.token).setHost(`${new URL(visual.host.url).host}/quickchart`).setScheme('http');
    await expect(client.setConfig("{ type: 'bar', data: { labels: ['ünïcødé ✓'], datasets: [{ data: [💥] }] } }").toBinary()).rejects.toThrow(
      /status code 400\s+chart/,
    );
  });

  test('an SVG answered directly carries the same no-script policy as the cache route', async () => {
    const res = await fetchFresh(`${url()}?key=${visual.token}&f=svg&c=${encodeURIComponent("{type:'bar',data:{labels:['<script>'],datasets:[{data:[1]}]}}")}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const svg = await res.text();
    expect(svg).toContain('&lt;script&gt;');
    expect(svg).not.toContain('<script');
  });

  test('a lone surrogate in a message is encoded too', async () => {
    const res = await fetchFresh(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${visual.token}` },
      body: JSON.stringify({ chart: { type: 'bar', data: { datasets: [{ data: [1] }] } }, format: 'p\ud83d' }),
    });
    await expectErrorAnswer(res, 400, 'VALIDATION_FAILED');
    expect(res.headers.get('x-quickchart-error')).toContain('%EF%BF%BD');
  });
});
