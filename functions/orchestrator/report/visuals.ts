import type { VisualClient } from '../visual-client';
import { keyFigures, percentOf, type ReportAnalysis } from './analysis';
import { messages, type MessageValues } from '../i18n/catalogue';
import { reportFormat } from './words';

/** A chart of the report: the visual service draws it; the report writes its caption, its sentence and its alternative text. */
export interface ReportChart {
  id: string;
  /** The caption after "Figure N.": what is plotted and in which unit. */
  caption: string;
  /** One sentence saying what the chart shows. */
  finding: string;
  /** The chart's data in one line, for its alternative text (a screen reader's version of the chart). */
  dataSummary: string;
  spec: ChartSpec;
}

export interface ChartImage {
  id: string;
  caption: string;
  finding: string;
  dataSummary: string;
  /** The chart as SVG: the PDF draws it as vectors. */
  svg: Buffer;
  /** The chart as PNG, only when a presentation needs it (PowerPoint slides take raster images). */
  png: Buffer | null;
}

export interface ReportVisuals {
  charts: ChartImage[];
  /** The KPI infographic as PNG, for the presentation only (the PDF sets its figures as text); null when not asked for or not given. */
  infographic: Buffer | null;
  /** included: every visual asked for; partial: some; skipped: none (the report goes without and says so). */
  status: 'included' | 'partial' | 'skipped';
  /** Why visuals are missing, for visuals_error and the step metadata. */
  error: string | null;
}

interface ChartSpec {
  id: string;
  type: 'bar' | 'line';
  data: { labels: string[]; datasets: { label: string; data: (number | null)[]; backgroundColor?: string; borderColor?: string }[] };
  options: { responsive: false; width: number; height: number; description: string; plugins?: Record<string, unknown> };
}

/** Revenue in a unit that keeps axis labels short: millions, thousands or units of the currency (the unit's words are the catalogue's). */
function revenueScale(values: number[]): { divisor: number; unit: 'billions' | 'millions' | 'thousands' | 'none' } {
  const max = Math.max(...values.map(Math.abs));
  if (max >= 1e9) return { divisor: 1e9, unit: 'billions' };
  if (max >= 1e6) return { divisor: 1e6, unit: 'millions' };
  if (max >= 1e4) return { divisor: 1e3, unit: 'thousands' };
  return { divisor: 1, unit: 'none' };
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;
const size = { responsive: false as const, width: 800, height: 360 };

/** The charts the analysis has data for, their words in the report's language: revenue by year (bars), and growth with net margin by year (lines). */
export function reportCharts(a: ReportAnalysis): ReportChart[] {
  const f = reportFormat(a.locale);
  const { t, list } = messages(a.locale);
  const charts: ReportChart[] = [];
  if (a.years.length) {
    const { divisor, unit } = revenueScale(a.years.map((y) => y.revenue));
    const first = a.years[0];
    const last = a.years[a.years.length - 1];
    const change = percentOf(last.revenue - first.revenue, first.revenue);
    charts.push({
      id: 'revenue',
      caption: t('chart.revenue.caption', { currency: a.currency, unit }),
      finding:
        a.years.length === 1 || change === null
          ? t('chart.revenue.single', { year: String(last.year), amount: f.money(last.revenue, a.currency) })
          : t('chart.revenue.change', {
              direction: change >= 0 ? 'up' : 'down',
              percent: f.percent(Math.abs(change)),
              from: String(first.year),
              to: String(last.year),
              first: f.money(first.revenue, a.currency),
              last: f.money(last.revenue, a.currency),
            }),
      dataSummary: a.years.map((y) => t('chart.revenue.point', { amount: f.money(y.revenue, a.currency), year: String(y.year) })).join(t('chart.separator')),
      spec: {
        id: 'revenue',
        type: 'bar',
        data: {
          labels: a.years.map((y) => String(y.year)),
          datasets: [{ label: t('chart.revenue.dataset', { currency: a.currency, unit }), data: a.years.map((y) => round3(y.revenue / divisor)) }],
        },
        options: { ...size, description: t('chart.revenue.description', { company: a.companyName }), plugins: { legend: { display: false } } },
      },
    });
  }
  const growth = a.years.filter((y) => y.growthPct !== null);
  const margins = a.years.filter((y) => y.marginPct !== null);
  if (growth.length || margins.length) {
    const labels = a.years.map((y) => String(y.year));
    const datasets = [
      ...(growth.length
        ? [{ label: t('chart.growthMargin.growthDataset'), data: a.years.map((y) => y.growthPct), borderColor: '#1f4788', backgroundColor: '#1f4788' }]
        : []),
      ...(margins.length
        ? [{ label: t('chart.growthMargin.marginDataset'), data: a.years.map((y) => y.marginPct), borderColor: '#70AD47', backgroundColor: '#70AD47' }]
        : []),
    ];
    const range = (values: number[]) => {
      const lo = Math.min(...values);
      const hi = Math.max(...values);
      return lo === hi
        ? f.percent(lo, { signed: true })
        : t('chart.growthMargin.range', { low: f.percent(lo, { signed: true }), high: f.percent(hi, { signed: true }) });
    };
    const firstMargin = margins[0];
    const lastMargin = margins[margins.length - 1];
    const marginValues: MessageValues =
      margins.length >= 2
        ? {
            direction: lastMargin.marginPct! >= firstMargin.marginPct! ? 'up' : 'down',
            first: f.percent(firstMargin.marginPct!),
            from: String(firstMargin.year),
            last: f.percent(lastMargin.marginPct!),
            to: String(lastMargin.year),
          }
        : margins.length
          ? { margin: f.percent(firstMargin.marginPct!), year: String(firstMargin.year) }
          : {};
    const growthValues: MessageValues = growth.length ? { range: range(growth.map((y) => y.growthPct!)) } : {};
    const findingKey = growth.length
      ? margins.length >= 2
        ? 'chart.growthMargin.growthAndMarginChange'
        : margins.length
          ? 'chart.growthMargin.growthAndMargin'
          : 'chart.growthMargin.growth'
      : margins.length >= 2
        ? 'chart.growthMargin.marginChange'
        : 'chart.growthMargin.margin';
    charts.push({
      id: 'growth-margin',
      caption: t('chart.growthMargin.caption', { series: growth.length && margins.length ? 'both' : growth.length ? 'growth' : 'margin' }),
      finding: t(findingKey, { ...growthValues, ...marginValues }),
      dataSummary: a.years
        .map((y) => {
          const values = [
            y.growthPct !== null ? t('chart.growthMargin.pointGrowth', { value: f.percent(y.growthPct, { signed: true }) }) : '',
            y.marginPct !== null ? t('chart.growthMargin.pointMargin', { value: f.percent(y.marginPct) }) : '',
          ].filter(Boolean);
          return values.length ? t('chart.growthMargin.point', { year: String(y.year), values: list(values) }) : '';
        })
        .filter(Boolean)
        .join('; '),
      spec: {
        id: 'growth-margin',
        type: 'line',
        data: { labels, datasets },
        options: { ...size, description: t('chart.growthMargin.description'), plugins: { legend: { position: 'bottom' } } },
      },
    });
  }
  return charts;
}

async function callVisual(visual: VisualClient, path: string, body: unknown): Promise<unknown> {
  const response = await visual.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`visual service ${path} answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
  return response.json();
}

function decodeDataUri(value: unknown, expected: RegExp): Buffer | null {
  if (typeof value !== 'string') return null;
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(value);
  if (!match || !expected.test(match[1])) return null;
  return Buffer.from(match[2], 'base64');
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CACHE_KEY = /\/cache\/([0-9a-f]{16,128})$/i;

/**
 * A chart's SVG: the render answer names it by imageUrl (SVG is never inline); only its key is
 * taken from that URL and the bytes are read from the configured visual service's cache route, so
 * an answer can never send the orchestrator elsewhere.
 */
async function fetchSvg(visual: VisualClient, imageUrl: unknown, id: string): Promise<Buffer> {
  const key = typeof imageUrl === 'string' ? CACHE_KEY.exec(imageUrl)?.[1] : undefined;
  if (!key) throw new Error(`visual service returned no SVG address for chart ${id}`);
  const response = await visual.request(`/cache/${key}`);
  const bytes = Buffer.from(await response.arrayBuffer());
  if (!response.ok || !/^image\/svg\+xml/.test(response.headers.get('content-type') ?? '') || !/<svg[\s>]/.test(bytes.subarray(0, 512).toString('utf8')))
    throw new Error(`visual service returned no SVG for chart ${id} (${response.status})`);
  return bytes;
}

async function renderCharts(visual: VisualClient, charts: ReportChart[], withPng: boolean): Promise<ChartImage[]> {
  if (!charts.length) return [];
  const specs = charts.map((c) => c.spec);
  const svgAnswer = callVisual(visual, '/api/v1/charts/render', { charts: specs, format: 'svg', theme: 'professional' }) as Promise<{
    charts?: { id?: string; imageUrl?: unknown }[];
  }>;
  const pngAnswer = withPng
    ? (callVisual(visual, '/api/v1/charts/render', { charts: specs, format: 'base64', theme: 'professional' }) as Promise<{
        charts?: { id?: string; base64?: unknown }[];
      }>)
    : null;
  const [svgBody, pngBody] = await Promise.all([svgAnswer, pngAnswer]);
  if (!Array.isArray(svgBody.charts) || (pngBody && !Array.isArray(pngBody.charts))) throw new Error('visual service answered without a charts array');
  return Promise.all(
    charts.map(async (chart, i) => {
      const svgResult = svgBody.charts!.find((c) => c.id === chart.id) ?? svgBody.charts![i];
      let png: Buffer | null = null;
      if (pngBody) {
        const pngResult = pngBody.charts!.find((c) => c.id === chart.id) ?? pngBody.charts![i];
        png = decodeDataUri(pngResult?.base64, /^image\/png$/);
        if (!png || !png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error(`visual service returned no PNG for chart ${chart.id}`);
      }
      const { spec: _spec, ...words } = chart;
      return { ...words, svg: await fetchSvg(visual, svgResult?.imageUrl, chart.id), png };
    }),
  );
}

/** The KPI infographic (type dashboard, layout metrics_grid, theme executive) as PNG: format base64 gives a PNG data URI. */
async function renderInfographic(visual: VisualClient, a: ReportAnalysis): Promise<Buffer> {
  const data = Object.fromEntries(keyFigures(a).map((f) => [f.label, f.value]));
  const body = (await callVisual(visual, '/api/v1/infographics/generate', {
    infographics: [{ id: 'kpi', type: 'dashboard', data, layout: 'metrics_grid', theme: 'executive' }],
    format: 'base64',
    theme: 'executive',
  })) as { infographics?: { base64?: unknown }[] };
  const png = decodeDataUri(body.infographics?.[0]?.base64, /^image\/png$/);
  if (!png || !png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('visual service returned no PNG infographic');
  return png;
}

/**
 * The report's visuals from the visual service: the charts as SVG for the PDF, and, when a
 * presentation is made, the same charts as PNG and the KPI infographic. Any failure or timeout
 * means "without visuals", never a failed report.
 */
export async function fetchVisuals(visual: VisualClient, a: ReportAnalysis, options: { presentation: boolean }): Promise<ReportVisuals> {
  const [charts, infographic] = await Promise.allSettled([
    renderCharts(visual, reportCharts(a), options.presentation),
    options.presentation ? renderInfographic(visual, a) : Promise.resolve(null),
  ]);
  const errors = [charts, infographic]
    .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    .map((r) => (r.reason as Error)?.message ?? String(r.reason));
  const chartImages = charts.status === 'fulfilled' ? charts.value : [];
  const kpi = infographic.status === 'fulfilled' ? infographic.value : null;
  const status = errors.length === 0 ? 'included' : chartImages.length || kpi ? 'partial' : 'skipped';
  return { charts: chartImages, infographic: kpi, status, error: errors.length ? errors.join('; ') : null };
}
