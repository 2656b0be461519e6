import type { ErrorObject } from 'ajv';
import { badRequest, Code, httpError } from '../../shared/http/errors';
import { hashKey } from './canonical';
import { expiryFromNow } from './cache';
import { schemaErrors } from './chart-spec';
import { checkedOptions } from './charts';
import type { VisualContext } from './context';
import { forbiddenDotConstruct } from './dot-guard';
import { errorsAt, failAsRendering, refusalOf, refuseErrors, tooManyItems } from './errors';
import type { Limits } from './limits';
import { RenderInputError } from './render/pool';
import { allOrStop, CONTENT_TYPES, cachedOrRendered, imageFormatOf, imageResult, newStats } from './results';
import { diagramsBody, type DiagramsBody, type DiagramSpec, type FlowchartSpec, type Format } from './schemas';
import type { Theme } from './themes';

/**
 * Diagrams through Graphviz compiled to WebAssembly, on the render pool (so a huge graph hits the
 * render timeout instead of blocking requests): a flowchart from nodes and edges, or DOT source.
 * Their schema is DIAGRAM (schemas.ts).
 */
export type { DiagramSpec, FlowchartSpec } from './schemas';

/** A DOT double-quoted string: backslashes first (Graphviz reads escapes such as \N and \l in labels), then quotes and newlines. */
export const dotString = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n')}"`;

const invalidDiagram = (id: string, message: string) => httpError(Code.INVALID_DIAGRAM, `Diagram "${id}": ${message}`, { extra: { diagramId: id } });

export function flowchartDot(spec: FlowchartSpec, theme: Theme): string {
  const ids = new Set<string>();
  spec.nodes.forEach((node, i) => {
    if (ids.has(node.id)) throw invalidDiagram(spec.id ?? '', `nodes.${i}.id "${node.id}" is used twice`);
    ids.add(node.id);
  });
  spec.edges.forEach((edge, i) => {
    for (const end of ['from', 'to'] as const)
      if (!ids.has(edge[end])) throw invalidDiagram(spec.id ?? '', `edges.${i}.${end} "${edge[end]}" is not a node id`);
  });
  const font = dotString(theme.fontFamily.split(',')[0].trim());
  const shape = (s: FlowchartSpec['nodes'][number]['shape']) => (s === 'rounded' || !s ? 'shape=box, style="rounded,filled"' : `shape=${s}, style=filled`);
  return [
    'digraph G {',
    `  graph [rankdir=${spec.direction ?? 'TB'}, bgcolor=${dotString(theme.backgroundColor)}, fontname=${font}, fontcolor=${dotString(theme.textColor)}, pad="0.3"${spec.title ? `, label=${dotString(spec.title)}, labelloc=t, fontsize=18` : ''}];`,
    `  node [fontname=${font}, fontsize=12, fontcolor=${dotString('#FFFFFF')}, color=${dotString(theme.colors[0])}, fillcolor=${dotString(theme.colors[0])}, penwidth=1.5, margin="0.2,0.1"];`,
    `  edge [fontname=${font}, fontsize=11, fontcolor=${dotString(theme.textColor)}, color=${dotString(theme.textColor)}, arrowsize=0.8];`,
    ...spec.nodes.map((n) => `  ${dotString(n.id)} [label=${dotString(n.label ?? n.id)}, ${shape(n.shape)}];`),
    ...spec.edges.map((e) => `  ${dotString(e.from)} -> ${dotString(e.to)}${e.label ? ` [label=${dotString(e.label)}]` : ''};`),
    '}',
  ].join('\n');
}

function dotOf(spec: DiagramSpec & { id: string }, theme: Theme): string {
  if (spec.type === 'flowchart') return flowchartDot(spec, theme);
  // The SVG is served from our origin: links and file references are refused in every spelling.
  const forbidden = forbiddenDotConstruct(spec.source);
  if (forbidden) {
    throw invalidDiagram(
      spec.id,
      `${forbidden} is not allowed: links (URL, href, target and their edge, head, tail and label forms) and file references (image, imagepath, shapefile, fontpath, fontnames, stylesheet) are refused`,
    );
  }
  return spec.source;
}

/** The size Graphviz gave the root `<svg>` element, read from that tag alone (its labels, which callers write, are never scanned). */
const svgSize = (svg: string) => {
  const start = svg.indexOf('<svg');
  const tag = start < 0 ? '' : svg.slice(start, svg.indexOf('>', start) + 1);
  // Graphviz sizes SVG in points; CSS pixels are 4/3 of a point (what resvg rasterises to).
  const pixels = (points: string | undefined) => (points ? Math.round((Number(points) * 4) / 3) : 0);
  return { width: pixels(/\swidth="([\d.]+)pt"/.exec(tag)?.[1]), height: pixels(/\sheight="([\d.]+)pt"/.exec(tag)?.[1]) };
};

async function diagramResult(
  ctx: VisualContext,
  spec: DiagramSpec & { id: string; dot: string },
  format: Format,
  stats: ReturnType<typeof newStats>,
  signal: AbortSignal,
) {
  const { dot } = spec;
  const imageFormat = imageFormatOf(format);
  const key = hashKey('diagram', dot, format);
  const entry = await cachedOrRendered(ctx, key, CONTENT_TYPES[imageFormat], true, stats, 'look-first', () =>
    failAsRendering(`Diagram "${spec.id}"`, async () => {
      try {
        return await ctx.renderPool.run({ kind: 'dot', source: dot, format: imageFormat }, signal);
      } catch (error) {
        // DOT that Graphviz cannot read (the render thread says so) is the caller's input, not a rendering failure.
        if (error instanceof RenderInputError) throw invalidDiagram(spec.id, error.message.trim());
        throw error;
      }
    }),
  );
  const size = imageFormat === 'svg' ? svgSize(entry.bytes!.toString('utf8')) : pngSize(entry.bytes!);
  return imageResult(ctx.config, spec.id, { ...entry, bytes: format === 'base64' ? entry.bytes : undefined }, format, { ...size, title: spec.title });
}

/** Width and height from a PNG's IHDR chunk. */
const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

/**
 * The checks of a diagrams/render body in the order its refusals come: the diagrams array (400
 * INVALID_DIAGRAMS_ARRAY), their number (413), the options, then each diagram (its schema, then its
 * nodes, edges and DOT constructs: 400 INVALID_DIAGRAM), every one before any is rendered. `errors`
 * is the schema's verdict (diagramsBody): the route's, else computed here.
 */
export function parseDiagramsRequest(body: unknown, l: Limits, errors: readonly ErrorObject[] = schemaErrors(diagramsBody(l), body)) {
  const items = (body as { diagrams?: unknown } | null)?.diagrams;
  if (!body || typeof body !== 'object' || Array.isArray(body) || !Array.isArray(items) || items.length === 0) {
    throw badRequest('The body must be a JSON object whose "diagrams" is a non-empty array', Code.INVALID_DIAGRAMS_ARRAY);
  }
  if (items.length > l.maxItems) throw tooManyItems('diagrams', items.length, l.maxItems);
  const options = checkedOptions(body, errors, 'svg');
  const specs = items.map((item, i) => {
    refuseErrors(`diagrams[${i}]`, errorsAt(errors, `/diagrams/${i}`));
    const spec = item as DiagramSpec;
    const withId = { ...spec, id: spec.id ?? `diagram-${i + 1}` };
    return { ...withId, dot: dotOf(withId, options.theme) };
  });
  return { ...options, specs };
}

/** A diagrams/render body the schema refused, answered as the API words it. */
export const refuseDiagrams = refusalOf(parseDiagramsRequest);

/** POST diagrams/render: `{ diagrams, format (svg default), theme }`. */
export async function renderDiagrams(ctx: VisualContext, body: DiagramsBody) {
  // The route validated the body: what is left are the checks beyond its schema (nodes, edges, DOT constructs).
  const { specs, ...options } = parseDiagramsRequest(body, ctx.limits, []);
  const stats = newStats();
  const diagrams = await allOrStop(specs, (spec, signal) => diagramResult(ctx, spec, options.format, stats, signal));
  return {
    body: {
      success: true as const,
      diagrams,
      cacheKey: hashKey(
        'diagrams',
        diagrams.map((d) => d.imageUrl),
      ),
      expiresAt: expiryFromNow(ctx),
    },
    stats,
  };
}
