import type { ErrorObject } from 'ajv';
import { badRequest } from '../../shared/http/errors';
import { hashKey } from './canonical';
import { cacheUrl, expiryFromNow } from './cache';
import { chartKey, renderChartImage } from './charts';
import { chartJsConfig, schemaErrors, sizeOf, validateChart, type ChartSpec } from './chart-spec';
import type { VisualContext } from './context';
import { errorsAt, failAsRendering, refusalOf, refuseErrors, tooManyItems } from './errors';
import type { Limits } from './limits';
import { allOrStop, cachedOrRendered, CONTENT_TYPES, newStats, type RenderStats } from './results';
import { cleanPresentationBody, presentationBody, type PresentationBody } from './schemas';
import { themeOf, type Theme } from './themes';

/** PowerPoint decks: a title slide, then one slide per entry with bullets, an optional chart (as an image) and speaker notes (built in render/deck.ts). */
export const PPTX_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';

/** Where a slide's chart sits in the body: its errors are the chart's (validateChart), but for the chart not being an object. */
const SLIDE_CHART = /^\/slides\/\d+\/chart(\/|$)/;
const isChartError = (e: ErrorObject) => SLIDE_CHART.test(e.instancePath) && !(e.keyword === 'type' && /^\/slides\/\d+\/chart$/.test(e.instancePath));

/**
 * The checks of a presentations/generate body in the order its refusals come: a JSON object (400),
 * the number of slides (413), the deck's schema apart from its charts (400 Invalid body), then each
 * slide's chart (validateChart). `errors` is the schema's verdict (presentationBody): the route's,
 * else computed here.
 */
export function parsePresentationRequest(
  body: unknown,
  l: Limits,
  errors: readonly ErrorObject[] = schemaErrors(presentationBody(l), body, cleanPresentationBody),
) {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object with "title" and "slides"');
  const slides = (body as { slides?: unknown }).slides;
  if (Array.isArray(slides) && slides.length > l.maxItems) throw tooManyItems('slides', slides.length, l.maxItems);
  refuseErrors(
    'body',
    errors.filter((e) => !isChartError(e)),
  );
  const spec = body as PresentationBody;
  const charts = spec.slides.map((slide, i) => (slide.chart ? validateChart(slide.chart, i, l, errorsAt(errors, `/slides/${i}/chart`)) : undefined));
  return { spec, charts, theme: themeOf(spec.theme) };
}

/** A presentations/generate body the schema refused, answered as the API words it: the checks above, then each chart's extra types, as a render would meet them. */
export const refusePresentation = refusalOf((body, l, errors) => {
  const { charts, theme } = parsePresentationRequest(body, l, errors);
  for (const chart of charts) if (chart) chartJsConfig(chart, theme);
});

async function chartImage(ctx: VisualContext, spec: ChartSpec, theme: Theme, stats: RenderStats, signal: AbortSignal) {
  // Charts go through the chart cache too, so a deck re-using a chart renders it once.
  const entry = await cachedOrRendered(ctx, chartKey(spec, 'base64', 'high', theme), CONTENT_TYPES.png, true, stats, 'draw-first', () =>
    renderChartImage(ctx, spec, theme, 'png', 'high', signal),
  );
  return { data: `data:image/png;base64,${entry.bytes!.toString('base64')}`, ...sizeOf(spec) };
}

async function renderDeck(ctx: VisualContext, spec: PresentationBody, charts: (ChartSpec | undefined)[], theme: Theme, stats: RenderStats) {
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
export async function generatePresentation(ctx: VisualContext, body: PresentationBody) {
  // The route validated the body: what is left are the checks of its charts beyond their schema.
  const { spec, charts, theme } = parsePresentationRequest(body, ctx.limits, []);
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
