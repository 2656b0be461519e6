import { Resvg } from '@resvg/resvg-js';
import { THEMES } from '../../functions/visual/themes';
import { chartOfType, countColor, decodePng, hexToRgb, pixel, postJson, fetchFresh, visualTestHost } from './helpers';
import { expectErrorAnswer } from '../helpers/errors';

const visual = visualTestHost();

const post = (route: string, body: unknown) => postJson(visual.host, `/visual/api/v1/${route}`, body, visual.token);
const fetchBytes = async (url: string) => Buffer.from(await (await fetchFresh(url)).arrayBuffer());

const dashboard = {
  id: 'kpis',
  type: 'dashboard',
  layout: 'metrics_grid',
  title: 'Q3 <KPIs> & "targets"',
  data: {
    metrics: [
      { label: 'Revenue', value: 1234567.891, unit: ' USD', change: 12.5, sparkline: [3, 4, 2, 6, 8] },
      { label: 'Churn', value: '2.1%', change: -0.4 },
      { label: 'process.env', value: 42 },
    ],
  },
};

describe('infographics/generate', () => {
  test('a KPI grid as SVG: themed, escaped, with values, changes and a sparkline', async () => {
    const res = await post('infographics/generate', { infographics: [dashboard], format: 'svg', theme: 'executive' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ success: true, infographics: [{ id: 'kpis', base64: null, metadata: { width: 800, title: dashboard.title } }] });
    const file = await fetchFresh(body.infographics[0].imageUrl);
    expect(file.headers.get('content-type')).toBe('image/svg+xml');
    const svg = await file.text();
    expect(svg).toContain('Q3 &lt;KPIs&gt; &amp; &quot;targets&quot;');
    expect(svg).toContain('1,234,567.89 USD');
    expect(svg).toContain('▲ 12.5%');
    expect(svg).toContain('▼ 0.4%');
    expect(svg).toContain('>process.env<');
    expect(svg).toContain('<polyline');
    expect(svg).toContain(`fill="${THEMES.executive.backgroundColor}"`);
    expect(svg).toContain(THEMES.executive.colors[0]);
    const parsed = new Resvg(svg, { font: { loadSystemFonts: false } });
    expect(parsed.width).toBe(800);
    expect(body.infographics[0].metadata.height).toBe(parsed.height);
  });

  test('PNG on request, a flat metrics object, the infographic theme over the request theme', async () => {
    const spec = { type: 'dashboard', theme: 'corporate', data: { Users: 1200, 'Net revenue': '$3.4k' } };
    const res = await post('infographics/generate', { infographics: [spec], format: 'png', quality: 'standard', theme: 'executive' });
    const result = ((await res.json()) as any).infographics[0];
    expect(result.id).toBe('infographic-1');
    const png = decodePng(await fetchBytes(result.imageUrl));
    expect([png.width, png.height]).toEqual([result.metadata.width, result.metadata.height]);
    expect(pixel(png, 2, 2)).toEqual([...hexToRgb(THEMES.corporate.backgroundColor), 255]);
    expect(countColor(png, THEMES.corporate.colors[0])).toBeGreaterThan(100);
  });

  test('invalid infographics are 400 naming the field; a repeat is a cache hit', async () => {
    await expectErrorAnswer(await post('infographics/generate', { format: 'svg' }), 400, 'INVALID_INFOGRAPHICS_ARRAY');
    const bad = await post('infographics/generate', { infographics: [{ ...dashboard, type: 'timeline' }] });
    expect((await expectErrorAnswer(bad, 400, 'VALIDATION_FAILED')).message).toContain('infographics[0]: type');
    await post('infographics/generate', { infographics: [dashboard] });
    const again = await post('infographics/generate', { infographics: [dashboard] });
    expect(again.headers.get('x-cache')).toBe('HIT');
  });
});

describe('diagrams/render', () => {
  const flowchart = {
    id: 'flow',
    type: 'flowchart',
    title: 'Order "flow"',
    direction: 'LR',
    nodes: [
      { id: 'start', label: 'Start <here>' },
      { id: 'check', label: 'Paid?', shape: 'diamond' },
      { id: 'ship', label: 'Ship \\N' },
    ],
    edges: [
      { from: 'start', to: 'check' },
      { from: 'check', to: 'ship', label: 'yes & go' },
    ],
  };

  test('a flowchart renders to SVG with escaped labels, themed', async () => {
    const res = await post('diagrams/render', { diagrams: [flowchart], theme: 'corporate' });
    expect(res.status).toBe(200);
    const result = ((await res.json()) as any).diagrams[0];
    const svg = await (await fetchFresh(result.imageUrl)).text();
    expect(svg).toContain('Start &lt;here&gt;');
    expect(svg).toContain('yes &amp; go');
    // A backslash sequence in a label stays literal (Graphviz would otherwise replace \N with the node id).
    expect(svg).toContain('Ship \\N');
    expect(svg).toContain('Order &quot;flow&quot;');
    expect(svg.toLowerCase()).toContain(THEMES.corporate.colors[0].toLowerCase());
    expect(new Resvg(svg, { font: { loadSystemFonts: false } }).width).toBeGreaterThan(100);
    expect(result.metadata.width).toBeGreaterThan(result.metadata.height);
  });

  test('DOT source renders to PNG', async () => {
    const res = await post('diagrams/render', {
      diagrams: [{ id: 'dot', type: 'dot', source: 'digraph { rankdir=LR; a -> b -> c; a [style=filled, fillcolor="#FF0000"] }' }],
      format: 'png',
    });
    const result = ((await res.json()) as any).diagrams[0];
    const png = decodePng(await fetchBytes(result.imageUrl));
    expect([png.width, png.height]).toEqual([result.metadata.width, result.metadata.height]);
    expect(countColor(png, '#FF0000')).toBeGreaterThan(100);
  });

  test('bad DOT, forbidden attributes and unknown edge ends are 400', async () => {
    const syntax = await post('diagrams/render', { diagrams: [{ id: 'bad', type: 'dot', source: 'digraph { a -> }' }] });
    expect(await expectErrorAnswer(syntax, 400, 'INVALID_DIAGRAM')).toMatchObject({ error: 'Invalid diagram', diagramId: 'bad' });
    const link = await post('diagrams/render', { diagrams: [{ id: 'link', type: 'dot', source: 'digraph { a [URL="javascript:alert(1)"] }' }] });
    expect(await expectErrorAnswer(link, 400, 'INVALID_DIAGRAM')).toMatchObject({ diagramId: 'link' });
    const edge = await post('diagrams/render', { diagrams: [{ ...flowchart, edges: [{ from: 'start', to: 'nowhere' }] }] });
    expect((await expectErrorAnswer(edge, 400, 'INVALID_DIAGRAM')).message).toContain('edges.0.to "nowhere"');
    const shape = await post('diagrams/render', { diagrams: [{ ...flowchart, nodes: [{ id: 'x', shape: 'star' }] }] });
    await expectErrorAnswer(shape, 400, 'VALIDATION_FAILED');
  });
});

describe('presentations/generate', () => {
  test('a .pptx with a title slide, one slide per entry, the chart embedded as an image and notes, served from the cache', async () => {
    const deck = {
      title: 'Quarterly review',
      subtitle: 'Q3',
      theme: 'executive',
      slides: [
        { title: 'Revenue', bullets: ['Up 12%', 'Best quarter'], chart: chartOfType('bar', 'rev'), notes: 'Mention the pipeline' },
        { title: 'Next steps', bullets: ['Hire', 'Ship'] },
      ],
    };
    const res = await post('presentations/generate', deck);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ success: true, presentation: { title: 'Quarterly review', metadata: { slides: 3, theme: 'executive' } } });
    const file = await fetchFresh(body.presentation.url);
    expect(file.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.presentationml.presentation');
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="presentation-[a-f0-9]{12}\.pptx"$/);
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.length).toBe(body.presentation.metadata.size);
    // A .pptx is a zip; entry names are stored uncompressed in its directory.
    expect(bytes.subarray(0, 2).toString()).toBe('PK');
    const names = bytes.toString('latin1');
    for (const entry of [
      'ppt/slides/slide1.xml',
      'ppt/slides/slide2.xml',
      'ppt/slides/slide3.xml',
      'ppt/notesSlides/notesSlide2.xml',
      'ppt/media/image-2-1.png',
    ])
      expect(names).toContain(entry);
    expect(names).not.toContain('ppt/slides/slide4.xml');

    const again = await post('presentations/generate', deck);
    expect(again.headers.get('x-cache')).toBe('HIT');
  });

  test('missing slides or an invalid chart are 400', async () => {
    await expectErrorAnswer(await post('presentations/generate', { title: 'x' }), 400, 'VALIDATION_FAILED');
    const bad = await post('presentations/generate', { title: 'x', slides: [{ title: 'a', chart: { type: 'bar', data: {} } }] });
    expect(await expectErrorAnswer(bad, 400, 'VALIDATION_FAILED')).toMatchObject({ error: 'Invalid chart specification', field: 'data.datasets' });
  });
});

test('other methods on infographics, presentations and diagrams are 405', async () => {
  for (const route of ['infographics/generate', 'presentations/generate', 'diagrams/render']) {
    const res = await fetchFresh(`${visual.host.url}/visual/api/v1/${route}`, { headers: { authorization: `Bearer ${visual.token}` } });
    await expectErrorAnswer(res, 405, 'METHOD_NOT_ALLOWED');
  }
});
