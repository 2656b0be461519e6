import type { ErrorObject } from 'ajv';
import { badRequest, Code } from '../../shared/http/errors';
import { hashKey } from './canonical';
import { expiryFromNow } from './cache';
import { schemaErrors } from './chart-spec';
import { checkedOptions, pixelRatio } from './charts';
import type { VisualContext } from './context';
import { errorsAt, failAsRendering, refusalOf, refuseErrors, tooManyItems } from './errors';
import type { Limits } from './limits';
import { allOrStop, CONTENT_TYPES, cachedOrRendered, imageFormatOf, imageResult, newStats } from './results';
import { infographicsBody, type Format, type InfographicsBody, type InfographicSpec, type Metric, type Quality } from './schemas';
import { scriptFontsFor, withScriptFamilies } from '../../shared/script-fonts';
import { escapeXml } from './svg';
import { themeOf, type Theme } from './themes';

/**
 * Infographics: a themed KPI grid (type "dashboard", layout "metrics_grid"). Each metric is a card
 * with its label, value, change against the previous period and an optional sparkline; `data` is
 * `{ metrics: [...] }`, or a flat object of key metrics (`{ "Revenue": 1200, "Users": "3.4k" }`).
 * Their schema is INFOGRAPHIC (schemas.ts).
 */
export type { InfographicSpec, Metric } from './schemas';

export function metricsOf(spec: InfographicSpec): Metric[] {
  if (Array.isArray(spec.data.metrics)) return spec.data.metrics as Metric[];
  return Object.entries(spec.data).map(([label, value]) => ({ label, value: value as number | string }));
}

const formatValue = (m: Metric) => (typeof m.value === 'number' ? m.value.toLocaleString('en-US', { maximumFractionDigits: 2 }) : m.value) + (m.unit ?? '');
const POSITIVE = '#107C10';
const NEGATIVE = '#C5504B';

function sparkline(values: number[], x: number, y: number, w: number, h: number, color: string): string {
  const min = Math.min(...values);
  const span = Math.max(...values) - min || 1;
  const points = values.map((v, i) => `${(x + (i / (values.length - 1)) * w).toFixed(1)},${(y + h - ((v - min) / span) * h).toFixed(1)}`).join(' ');
  return `<polyline points="${points}" fill="none" stroke="${color}" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"/>`;
}

const CARD_HEIGHT = 150;
const GAP = 16;
const HEADER = 56;

/** The KPI grid as SVG (all text escaped); its size follows from the width and the number of metrics. */
export function dashboardSvg(spec: InfographicSpec, theme: Theme): { svg: string; width: number; height: number } {
  const metrics = metricsOf(spec);
  const width = spec.width ?? 800;
  const columns = Math.min(metrics.length, width >= 1000 ? 4 : 3);
  const rows = Math.ceil(metrics.length / columns);
  const top = spec.title ? HEADER : GAP;
  const height = top + rows * (CARD_HEIGHT + GAP);
  const cardWidth = (width - GAP * (columns + 1)) / columns;
  // Text in a script the theme's fonts lack names the script font after them (what the PNG is drawn with, and what a viewer may have).
  const scripts = scriptFontsFor([spec.title ?? '', ...metrics.map((m) => m.label)].join(' ')).map((f) => f.family);
  const font = escapeXml(withScriptFamilies(theme.fontFamily, scripts));
  const cards = metrics.map((m, i) => {
    const x = GAP + (i % columns) * (cardWidth + GAP);
    const y = top + Math.floor(i / columns) * (CARD_HEIGHT + GAP);
    const accent = theme.colors[i % theme.colors.length];
    const change =
      m.change === undefined
        ? ''
        : `<text x="${x + 16}" y="${y + 102}" font-size="14" fill="${m.change >= 0 ? POSITIVE : NEGATIVE}">${m.change >= 0 ? '▲' : '▼'} ${escapeXml(Math.abs(m.change).toLocaleString('en-US', { maximumFractionDigits: 1 }))}%</text>`;
    return [
      `<g>`,
      `<rect x="${x}" y="${y}" width="${cardWidth.toFixed(1)}" height="${CARD_HEIGHT}" rx="8" fill="#FFFFFF" stroke="${theme.gridColor}"/>`,
      `<rect x="${x}" y="${y}" width="6" height="${CARD_HEIGHT}" rx="3" fill="${accent}"/>`,
      `<text x="${x + 16}" y="${y + 28}" font-size="13" fill="${theme.textColor}">${escapeXml(m.label)}</text>`,
      `<text x="${x + 16}" y="${y + 72}" font-size="30" font-weight="bold" fill="${theme.textColor}">${escapeXml(formatValue(m))}</text>`,
      change,
      m.sparkline ? sparkline(m.sparkline, x + 16, y + 114, cardWidth - 32, 24, accent) : '',
      `</g>`,
    ].join('');
  });
  const title = spec.title ? `<text x="${GAP}" y="36" font-size="22" font-weight="bold" fill="${theme.textColor}">${escapeXml(spec.title)}</text>` : '';
  const svg =
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${font}">` +
    (spec.description ? `<desc>${escapeXml(spec.description)}</desc>` : '') +
    `<rect width="100%" height="100%" fill="${theme.backgroundColor}"/>${title}${cards.join('')}</svg>`;
  return { svg, width, height };
}

/** The cache key of an infographic: its specification without the id (the id does not change the image) and the render options. */
export function infographicKey(spec: InfographicSpec, format: Format, quality: Quality, theme: Theme): string {
  const { id: _id, ...content } = spec;
  return hashKey('infographic', content, format, quality, theme.name);
}

async function infographicResult(
  ctx: VisualContext,
  spec: InfographicSpec & { id: string },
  format: Format,
  quality: Quality,
  requestTheme: Theme,
  stats: ReturnType<typeof newStats>,
  signal: AbortSignal,
) {
  const theme = spec.theme ? themeOf(spec.theme) : requestTheme;
  const { svg, width, height } = dashboardSvg(spec, theme);
  const imageFormat = imageFormatOf(format);
  const entry = await cachedOrRendered(
    ctx,
    infographicKey(spec, format, quality, theme),
    CONTENT_TYPES[imageFormat],
    format === 'base64',
    stats,
    // Its SVG is written above either way; a PNG of it is a rasterising, asked for only on a miss.
    imageFormat === 'svg' ? 'draw-first' : 'look-first',
    async () => {
      if (imageFormat === 'svg') return { bytes: Buffer.from(svg, 'utf8') };
      return failAsRendering(`Infographic "${spec.id}"`, () =>
        ctx.renderPool.run({ kind: 'svg-to-png', svg, pixelRatio: pixelRatio(quality, width, height) }, signal),
      );
    },
  );
  return imageResult(ctx.config, spec.id, entry, format, { width, height, title: spec.title, description: spec.description });
}

/**
 * The checks of an infographics/generate body in the order its refusals come: the infographics
 * array (400 INVALID_INFOGRAPHICS_ARRAY), their number (413), the options, then each infographic.
 * `errors` is the schema's verdict (infographicsBody): the route's, else computed here.
 */
export function parseInfographicsRequest(body: unknown, l: Limits, errors: readonly ErrorObject[] = schemaErrors(infographicsBody(l), body)) {
  const items = (body as { infographics?: unknown } | null)?.infographics;
  if (!body || typeof body !== 'object' || Array.isArray(body) || !Array.isArray(items) || items.length === 0) {
    throw badRequest('The body must be a JSON object whose "infographics" is a non-empty array', Code.INVALID_INFOGRAPHICS_ARRAY);
  }
  if (items.length > l.maxItems) throw tooManyItems('infographics', items.length, l.maxItems);
  const options = checkedOptions(body, errors, 'svg');
  const specs = items.map((item, i) => {
    refuseErrors(`infographics[${i}]`, errorsAt(errors, `/infographics/${i}`));
    const spec = item as InfographicSpec;
    return { ...spec, id: spec.id ?? `infographic-${i + 1}` };
  });
  return { ...options, specs };
}

/** An infographics/generate body the schema refused, answered as the API words it. */
export const refuseInfographics = refusalOf(parseInfographicsRequest);

/** POST infographics/generate: `{ infographics, format (svg default), quality, theme }`. */
export async function generateInfographics(ctx: VisualContext, body: InfographicsBody) {
  // The route validated the body.
  const { specs, ...options } = parseInfographicsRequest(body, ctx.limits, []);
  const stats = newStats();
  const infographics = await allOrStop(specs, (spec, signal) => infographicResult(ctx, spec, options.format, options.quality, options.theme, stats, signal));
  return {
    body: {
      success: true as const,
      infographics,
      cacheKey: hashKey(
        'infographics',
        infographics.map((r) => r.imageUrl),
      ),
      expiresAt: expiryFromNow(ctx),
    },
    stats,
  };
}
