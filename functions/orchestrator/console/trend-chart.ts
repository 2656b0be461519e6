import { badGateway, badRequest, Code } from '../../../shared/http/errors';
import { hourlyTrends, type HourlyTrend } from '../admin/overview';
import type { OrchestratorContext } from '../context';
import type { TrendLayout, TrendTheme } from '../schemas';
import type { VisualClient } from '../visual-client';

/** Series colours, distinguishable for the common colour-vision deficiencies (Okabe-Ito) and the same in every theme. */
const SERIES = [
  { key: 'completed', label: 'Completed', color: '#009E73' },
  { key: 'failed', label: 'Failed', color: '#D55E00' },
  { key: 'processing', label: 'Processing', color: '#0072B2' },
] as const;

export interface TrendChart {
  svg: Buffer;
  /** X-Cache of the visual service: HIT when the same chart was rendered before (unchanged counts, theme and zone). */
  cache: string;
  hourly: HourlyTrend[];
}

/** An IANA time zone name the runtime knows (Europe/Berlin, Asia/Kolkata, UTC), kept as the browser named it; anything else is a 400. */
export function checkTimeZone(timeZone: string): string {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone });
    return timeZone;
  } catch {
    throw badRequest(`tz must be an IANA time zone name such as Europe/Berlin; got "${timeZone.slice(0, 64)}"`, Code.VALIDATION_FAILED, {
      details: [{ field: 'tz', message: 'must be an IANA time zone name' }],
    });
  }
}

/** Hour labels in the admin's time zone (24-hour clock; zones with half-hour offsets show their minutes). */
function hourLabels(hourly: HourlyTrend[], timeZone: string): string[] {
  const format = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return hourly.map((h) => format.format(new Date(h.hour)));
}

/** The chart specification sent to the visual service: one bar series per status, 24 hourly buckets. */
export function trendChartSpec(hourly: HourlyTrend[], timeZone: string, layout: TrendLayout = 'wide') {
  const total = hourly.reduce((sum, h) => sum + h.executions, 0);
  const narrow = layout === 'narrow';
  return {
    id: 'hourly-trend',
    type: narrow ? ('horizontalBar' as const) : ('bar' as const),
    data: {
      labels: hourLabels(hourly, timeZone),
      datasets: SERIES.map((s) => ({ label: s.label, data: hourly.map((h) => h[s.key]), backgroundColor: s.color, borderColor: s.color, borderWidth: 1 })),
    },
    options: {
      responsive: false,
      width: narrow ? 380 : 960,
      height: narrow ? 720 : 320,
      title: narrow ? `Executions per hour (${timeZone})` : `Executions per hour, last 24 hours (${timeZone})`,
      description: `${total} executions in the last 24 hours by hour of creation and current status`,
    },
  };
}

/** A call to {visual_url} (the service token goes only to the API, never to the public cache route); any failure is a 502. */
async function visual(client: VisualClient, path: string, init: RequestInit): Promise<Response> {
  try {
    const response = await client.request(path, init);
    if (!response.ok) throw new Error(`answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
    return response;
  } catch (error) {
    throw badGateway(`The visual service could not draw the trend chart: ${(error as Error).message}`, Code.VISUAL_UNAVAILABLE);
  }
}

/**
 * The overview's 24-hour hourly trend drawn by the visual service as SVG in the given theme. The
 * visual service caches by the chart's content, so until a count changes the chart is a cache
 * hit; the orchestrator holds the service token, the browser only its own admin token.
 */
export async function trendChart(
  ctx: Pick<OrchestratorContext, 'db' | 'visual'>,
  now: Date,
  theme: TrendTheme,
  timeZone: string,
  layout: TrendLayout = 'wide',
): Promise<TrendChart> {
  const hourly = await hourlyTrends(ctx, now);
  const client = ctx.visual;
  const render = await visual(client, '/api/v1/charts/render', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ charts: [trendChartSpec(hourly, timeZone, layout)], format: 'svg', theme }),
  });
  const body = (await render.json()) as { charts?: { imageUrl?: unknown }[] };
  // Only the cache key is taken from the answer: the image is read from {visual_url} itself, whatever host the URL names.
  const key = /\/cache\/([a-f0-9]{64})$/.exec(String(body.charts?.[0]?.imageUrl ?? ''))?.[1];
  if (!key) throw badGateway('The visual service answered without a cached image', Code.VISUAL_UNAVAILABLE);
  const image = await visual(client, `/cache/${key}`, { method: 'GET' });
  const svg = Buffer.from(await image.arrayBuffer());
  if (!/^image\/svg\+xml/.test(image.headers.get('content-type') ?? ''))
    throw badGateway('The visual service did not return an SVG image', Code.VISUAL_UNAVAILABLE);
  return { svg, cache: render.headers.get('x-cache') ?? 'MISS', hourly };
}
