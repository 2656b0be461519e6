import PptxGenJS from 'pptxgenjs';
import { validate } from '../../shared/http/body';
import { badRequest } from '../../shared/http/errors';
import { hashKey } from './canonical';
import { cacheUrl, expiryFromNow } from './cache';
import { chartKey, renderChartImage } from './charts';
import { sizeOf, validateChart, type ChartSpec } from './chart-spec';
import { tooManyItems } from './errors';
import type { Limits } from './limits';
import { cachedOrRendered, CONTENT_TYPES, newStats } from './results';
import { themeOf, type Theme } from './themes';

/** PowerPoint decks (pptxgenjs): a title slide, then one slide per entry with bullets, an optional chart (as an image) and speaker notes. */
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

const presentationSchema = {
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

/** pptxgenjs takes colors as six hex digits without '#'. */
const hex = (color: string) => (color.toLowerCase() === 'white' ? 'FFFFFF' : color.replace('#', '').toUpperCase());

async function chartImage(spec: ChartSpec, theme: Theme, stats: ReturnType<typeof newStats>): Promise<string> {
  // Charts go through the chart cache too, so a deck re-using a chart renders it once.
  const entry = await cachedOrRendered(chartKey(spec, 'base64', 'high', theme), CONTENT_TYPES.png, true, stats, () => renderChartImage(spec, theme, 'png', 'high'));
  return `data:image/png;base64,${entry.bytes!.toString('base64')}`;
}

async function buildDeck(spec: PresentationSpec, charts: (ChartSpec | undefined)[], theme: Theme, stats: ReturnType<typeof newStats>): Promise<Buffer> {
  const pptx = new PptxGenJS();
  pptx.layout = 'LAYOUT_WIDE'; // 13.33 x 7.5 in
  pptx.title = spec.title;
  const font = theme.fontFamily.split(',')[0].trim();
  const text = hex(theme.textColor);
  const background = { color: hex(theme.backgroundColor) };

  const cover = pptx.addSlide();
  cover.background = background;
  cover.addShape('rect', { x: 0, y: 0, w: 13.33, h: 0.25, fill: { color: hex(theme.colors[0]) }, line: { color: hex(theme.colors[0]) } });
  cover.addText(spec.title, { x: 0.8, y: 2.6, w: 11.7, h: 1.2, fontFace: font, fontSize: 40, bold: true, color: text });
  if (spec.subtitle) cover.addText(spec.subtitle, { x: 0.8, y: 3.8, w: 11.7, h: 0.8, fontFace: font, fontSize: 22, color: hex(theme.colors[1]) });

  const images = await Promise.all(charts.map((chart) => (chart ? chartImage(chart, theme, stats) : undefined)));
  spec.slides.forEach((slideSpec, i) => {
    const slide = pptx.addSlide();
    slide.background = background;
    slide.addShape('rect', { x: 0, y: 0, w: 13.33, h: 0.12, fill: { color: hex(theme.colors[0]) }, line: { color: hex(theme.colors[0]) } });
    slide.addText(slideSpec.title, { x: 0.6, y: 0.35, w: 12.1, h: 0.9, fontFace: font, fontSize: 28, bold: true, color: text });
    const image = images[i];
    const bullets = slideSpec.bullets ?? [];
    const bulletWidth = image ? 5.2 : 12.1;
    if (bullets.length) {
      slide.addText(
        bullets.map((b) => ({ text: b, options: { bullet: true, breakLine: true } })),
        { x: 0.6, y: 1.4, w: bulletWidth, h: 5.5, fontFace: font, fontSize: 18, color: text, valign: 'top', paraSpaceAfter: 8 },
      );
    }
    if (image) {
      const { width, height } = sizeOf(charts[i]!);
      const area = { x: bullets.length ? 6.1 : 0.6, y: 1.4, w: bullets.length ? 6.6 : 12.1, h: 5.6 };
      const scale = Math.min(area.w / width, area.h / height);
      slide.addImage({ data: image, x: area.x, y: area.y, w: width * scale, h: height * scale });
    }
    if (slideSpec.notes) slide.addNotes(slideSpec.notes);
  });
  return (await pptx.write({ outputType: 'nodebuffer', compression: true })) as Buffer;
}

/** POST presentations/generate: `{ title, subtitle, theme, slides: [{ title, bullets, chart, notes }] }`. */
export async function generatePresentation(body: unknown, l: Limits) {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object with "title" and "slides"');
  const slides = (body as { slides?: unknown }).slides;
  if (Array.isArray(slides) && slides.length > l.maxItems) throw tooManyItems('slides', slides.length, l.maxItems);
  const spec = validate<PresentationSpec>(presentationSchema, body);
  const charts = spec.slides.map((slide, i) => (slide.chart ? validateChart(slide.chart, i, l) : undefined));
  const theme = themeOf(spec.theme);
  const stats = newStats();
  const key = hashKey('presentation', spec, theme.name);
  const entry = await cachedOrRendered(key, PPTX_CONTENT_TYPE, false, stats, async () => ({ bytes: await buildDeck(spec, charts, theme, stats) }));
  return {
    body: {
      success: true as const,
      presentation: {
        title: spec.title,
        url: cacheUrl(key),
        contentType: PPTX_CONTENT_TYPE,
        metadata: { slides: spec.slides.length + 1, size: entry.size, generatedAt: entry.generatedAt, theme: theme.name },
      },
      cacheKey: key,
      expiresAt: expiryFromNow(),
    },
    stats,
  };
}
