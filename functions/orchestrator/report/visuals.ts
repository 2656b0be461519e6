import { config, serviceUrl } from '../../../shared/config';
import { keyFigures, type ReportAnalysis } from './analysis';

export interface ChartImage {
  id: string;
  title: string;
  png: Buffer;
}

export interface ReportVisuals {
  charts: ChartImage[];
  /** The KPI infographic as PNG, or null when the visual service did not give one. */
  infographic: Buffer | null;
  /** included: charts and infographic; partial: one of them; skipped: none (the report goes without). */
  status: 'included' | 'partial' | 'skipped';
  /** Why visuals are missing, for visuals_error and the step metadata. */
  error: string | null;
}

interface ChartSpec {
  id: string;
  type: 'bar' | 'line';
  data: { labels: string[]; datasets: { label: string; data: number[] }[] };
  options: { responsive: false; width: number; height: number; title: string; description: string };
}

/** Chart specifications (the visual service's charts/render format) for the figures the analysis has. */
export function chartSpecs(a: ReportAnalysis): ChartSpec[] {
  const specs: ChartSpec[] = [];
  const size = { responsive: false as const, width: 800, height: 400 };
  if (a.years.length) {
    specs.push({
      id: 'revenue',
      type: 'bar',
      data: { labels: a.years.map((y) => String(y.year)), datasets: [{ label: `Revenue (${a.currency})`, data: a.years.map((y) => y.revenue) }] },
      options: { ...size, title: 'Revenue by year', description: `Revenue of ${a.companyName} by year` },
    });
  }
  const growth = a.years.filter((y) => y.growthPct !== null);
  if (growth.length) {
    specs.push({
      id: 'growth',
      type: 'line',
      data: { labels: growth.map((y) => String(y.year)), datasets: [{ label: 'Growth (%)', data: growth.map((y) => y.growthPct!) }] },
      options: { ...size, title: 'Year-over-year growth', description: 'Revenue growth over the previous year, percent' },
    });
  }
  const margins = a.years.filter((y) => y.marginPct !== null);
  if (margins.length) {
    specs.push({
      id: 'margin',
      type: 'line',
      data: { labels: margins.map((y) => String(y.year)), datasets: [{ label: 'Net margin (%)', data: margins.map((y) => y.marginPct!) }] },
      options: { ...size, title: 'Net margin', description: 'Net income over revenue, percent' },
    });
  }
  return specs;
}

async function callVisual(path: string, body: unknown): Promise<unknown> {
  const cfg = config();
  const response = await fetch(`${serviceUrl('visual', cfg)}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cfg.VISUAL_API_TOKEN ? { authorization: `Bearer ${cfg.VISUAL_API_TOKEN}` } : {}) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(cfg.ORCHESTRATOR_VISUAL_TIMEOUT_MS),
  });
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

async function renderCharts(specs: ChartSpec[]): Promise<ChartImage[]> {
  if (!specs.length) return [];
  const body = (await callVisual('/api/v1/charts/render', { charts: specs, format: 'base64', theme: 'professional' })) as {
    charts?: { id?: string; base64?: unknown }[];
  };
  if (!Array.isArray(body.charts)) throw new Error('visual service answered without a charts array');
  return specs.map((spec, i) => {
    const result = body.charts!.find((c) => c.id === spec.id) ?? body.charts![i];
    const png = decodeDataUri(result?.base64, /^image\/png$/);
    if (!png || !png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error(`visual service returned no PNG for chart ${spec.id}`);
    return { id: spec.id, title: spec.options.title, png };
  });
}

/** The KPI infographic (type dashboard, layout metrics_grid, theme executive) as PNG: format base64 gives a PNG data URI. */
async function renderInfographic(a: ReportAnalysis): Promise<Buffer> {
  const data = Object.fromEntries(keyFigures(a).map((f) => [f.label, f.value]));
  const body = (await callVisual('/api/v1/infographics/generate', {
    infographics: [{ id: 'kpi', type: 'dashboard', data, layout: 'metrics_grid', theme: 'executive' }],
    format: 'base64',
    theme: 'executive',
  })) as { infographics?: { base64?: unknown }[] };
  const png = decodeDataUri(body.infographics?.[0]?.base64, /^image\/png$/);
  if (!png || !png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('visual service returned no PNG infographic');
  return png;
}

/** Charts and the KPI infographic from the visual service; any failure or timeout means "without visuals", never a failed report. */
export async function fetchVisuals(a: ReportAnalysis): Promise<ReportVisuals> {
  const [charts, infographic] = await Promise.allSettled([renderCharts(chartSpecs(a)), renderInfographic(a)]);
  const errors = [charts, infographic]
    .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    .map((r) => (r.reason as Error)?.message ?? String(r.reason));
  const chartImages = charts.status === 'fulfilled' ? charts.value : [];
  const kpi = infographic.status === 'fulfilled' ? infographic.value : null;
  const status = errors.length === 0 ? 'included' : chartImages.length || kpi ? 'partial' : 'skipped';
  return { charts: chartImages, infographic: kpi, status, error: errors.length ? errors.join('; ') : null };
}
