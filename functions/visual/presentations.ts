import { validate } from '../../shared/http/body';
import { badRequest } from '../../shared/http/errors';
import { hashKey } from './canonical';
import { cacheUrl, expiryFromNow } from './cache';
import { chartKey, renderChartImage } from './charts';
import { sizeOf, validateChart, type ChartSpec } from './chart-spec';
import { failAsRendering, tooManyItems } from './errors';
import type { VisualContext } from './context';
import { allOrStop, cachedOrRendered, CONTENT_TYPES, newStats, type RenderStats } from './results';
import { themeOf, type Theme } from './themes';

/** PowerPoint decks: a title slide, then one slide per entry with bullets, an optional chart (as an image) and speaker notes (built in render/deck.ts). */
export const PPTX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

interface SlideSpec {
  title: string;
  bullets?: string[];
  chart?: ChartSpec;
  notes?: string;
}
interface PresentationSpec {
  title: string;
  subtitle?: string;
  theme?: string;
  slides: SlideSpec[];
}

export const presentationSchema = {
  type: 'object',
  required: ['title', 'slides'],
  additionalProperties: false,
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    subtitle: { type: 'string', maxLength: 300 },
    theme: { type: 'string', maxLength: 50 },
    slides: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['title'],
        additionalProperties: false,
        properties: {
          title: { type: 'string', maxLength: 200 },
          bullets: { type: 'array', maxItems: 12, items: { type: 'string', maxLength: 500 } },
          chart: { type: 'object' },
          notes: { type: 'string', maxLength: 10_000 },
        },
      },
    },
  },
};

async function chartImage(ctx: VisualContext, spec: ChartSpec, theme: Theme, stats: RenderStats, signal: AbortSignal) {
  // Charts go through the chart cache too, so a deck re-using a chart renders it once.
  const entry = await cachedOrRendered(ctx, chartKey(spec, 'base64', 'high', theme), CONTENT_TYPES.png, true, stats, 'draw-first', () =>
    renderChartImage(ctx, spec, theme, 'png', 'high', signal),
  );
  return { data: `data:image/png;base64,${entry.bytes!.toString('base64')}`, ...sizeOf(spec) };
}

async function renderDeck(ctx: VisualContext, spec: PresentationSpec, charts: (ChartSpec | undefined)[], theme: Theme, stats: RenderStats) {
  // The first chart that fails stops the others still waiting for a thread.
  const images = await allOrStop(charts, (chart, signal) => (chart ? chartImage(ctx, chart, theme, stats, signal) : Promise.resolve(undefined)));
  const deck = {
    title: spec.title,
    subtitle: spec.subtitle,
    theme,
    slides: spec.slides.map((slide, i) => ({ title: slide.title, bullets: slide.bullets ?? [], notes: slide.notes, image: images[i] })),
  };
  return failAsRendering('Presentation', () => ctx.renderPool.run({ kind: 'pptx', deck }));
}

/** POST presentations/generate: `{ title, subtitle, theme, slides: [{ title, bullets, chart, notes }] }`. */
export async function generatePresentation(ctx: VisualContext, body: unknown) {
  const l = ctx.limits;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object with "title" and "slides"');
  const slides = (body as { slides?: unknown }).slides;
  if (Array.isArray(slides) && slides.length > l.maxItems) throw tooManyItems('slides', slides.length, l.maxItems);
  const spec = validate<PresentationSpec>(presentationSchema, body);
  const charts = spec.slides.map((slide, i) => (slide.chart ? validateChart(slide.chart, i, l) : undefined));
  const theme = themeOf(spec.theme);
  const stats = newStats();
  const key = hashKey('presentation', spec, theme.name);
  const entry = await cachedOrRendered(ctx, key, PPTX_CONTENT_TYPE, false, stats, 'look-first', () => renderDeck(ctx, spec, charts, theme, stats));
  return {
    body: {
      success: true as const,
      presentation: {
        title: spec.title,
        url: cacheUrl(ctx.config, key),
        contentType: PPTX_CONTENT_TYPE,
        metadata: { slides: spec.slides.length + 1, size: entry.size, generatedAt: entry.generatedAt, theme: theme.name },
      },
      cacheKey: key,
      expiresAt: expiryFromNow(ctx),
    },
    stats,
  };
}
