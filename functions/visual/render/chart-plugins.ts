/**
 * Chart.js plugins of the render threads, registered once per thread: the moment date adapter
 * (time scales), data labels, annotations, box plot and violin controllers, and two small plugins
 * of ours that draw QuickChart's doughnut centre label and a gauge needle from data. A chart that
 * does not use a plugin has it switched off (`plugins.<id>: false`), so an unused plugin costs a
 * chart nothing. A few data-only options stand for what QuickChart expresses with functions; they
 * are turned into functions here, by our code, never from the request.
 */
import { _adapters, Chart, type Plugin } from 'chart.js/auto';
import annotationPlugin from 'chartjs-plugin-annotation';
import dataLabelsPlugin from 'chartjs-plugin-datalabels';
import { BoxAndWiskers, BoxPlotController, Violin, ViolinController } from '@sgratzl/chartjs-chart-boxplot';
import moment from 'moment';
import 'chartjs-adapter-moment';
import { tickLimit, TICK_LIMIT_ID, type TickLimitOptions } from './tick-limit';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

// A date string moment cannot read as ISO or RFC 2822 falls back to Date; the warning would only fill the logs.
(moment as unknown as { suppressDeprecationWarnings: boolean }).suppressDeprecationWarnings = true;

/**
 * Time values read as QuickChart reads them. QuickChart runs a configuration as JavaScript, so a
 * date there is often a Date object, which the moment adapter reads whatever `time.parser` says; in
 * JSON the same date is its ISO 8601 string, which the adapter alone would read with the parser's
 * format and lose (a Chart.js 3 time chart with ISO labels and parser `MM/DD/YYYY HH:mm` drew its
 * points at 1970). So a string is read with the parser's format when it matches it exactly, else
 * as ISO 8601 when it is that, else by moment's forgiving reading of the format (what QuickChart
 * does with such a string); without a parser, as moment reads it (ISO 8601, RFC 2822). Numbers are
 * epoch milliseconds.
 */
export function parseTime(value: unknown, format?: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  let parsed: moment.Moment;
  if (typeof value === 'string' && typeof format === 'string') {
    parsed = moment(value, format, true);
    if (!parsed.isValid()) parsed = moment(value, moment.ISO_8601, true);
    if (!parsed.isValid()) parsed = moment(value, format);
  } else {
    parsed = moment(value as moment.MomentInput);
  }
  return parsed.isValid() ? parsed.valueOf() : null;
}
_adapters._date.override({ parse: (value: unknown, format?: unknown) => parseTime(value, format) });

interface CentreLine {
  text?: string | number;
  color?: string;
  font?: { size?: number; family?: string; weight?: string | number; style?: string };
}

/** QuickChart's doughnutlabel: lines of text centred in a doughnut's hole (`plugins.doughnutlabel.labels`). */
const doughnutLabel: Plugin = {
  id: 'doughnutlabel',
  afterDatasetsDraw(chart, _args, options: { labels?: CentreLine[] }) {
    const arc = chart.getDatasetMeta(0)?.data[0] as unknown as { x: number; y: number; innerRadius: number } | undefined;
    const lines = (options.labels ?? []).filter((line) => line && line.text !== undefined && line.text !== '');
    if (!arc || !lines.length) return;
    const { ctx } = chart;
    const room = Math.max(arc.innerRadius, 20);
    const sizes = lines.map((line, i) => line.font?.size ?? Math.round(room * (i === 0 ? 0.45 : 0.22)));
    const total = sizes.reduce((a, b) => a + b * 1.2, 0);
    let y = arc.y - total / 2;
    ctx.save();
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    lines.forEach((line, i) => {
      const font = line.font ?? {};
      ctx.font = `${font.style ?? 'normal'} ${font.weight ?? (i === 0 ? 'bold' : 'normal')} ${sizes[i]}px ${font.family ?? Chart.defaults.font.family}`;
      ctx.fillStyle = line.color ?? (Chart.defaults.color as string);
      y += (sizes[i] * 1.2) / 2;
      ctx.fillText(String(line.text), arc.x, y);
      y += (sizes[i] * 1.2) / 2;
    });
    ctx.restore();
  },
};

interface NeedleOptions {
  value?: number;
  min?: number;
  max?: number;
  color?: string;
  widthPercentage?: number;
  lengthPercentage?: number;
  radiusPercentage?: number;
  valueLabel?: { display?: boolean; text?: string; color?: string; backgroundColor?: string; font?: { size?: number } };
}

/** The needle and value label of a gauge (QuickChart's `gauge` type, drawn as a half doughnut). */
const gaugeNeedle: Plugin = {
  id: 'gaugeNeedle',
  afterDatasetsDraw(chart, _args, options: NeedleOptions) {
    const arcs = chart.getDatasetMeta(0)?.data as unknown as { x: number; y: number; outerRadius: number; startAngle: number; endAngle: number }[];
    if (!arcs?.length || typeof options.value !== 'number') return;
    const first = arcs[0];
    const last = arcs[arcs.length - 1];
    const min = options.min ?? 0;
    const max = options.max ?? 1;
    const fraction = Math.min(1, Math.max(0, (options.value - min) / (max - min || 1)));
    const angle = first.startAngle + fraction * (last.endAngle - first.startAngle);
    const radius = first.outerRadius;
    const { ctx } = chart;
    ctx.save();
    ctx.translate(first.x, first.y);
    ctx.rotate(angle);
    ctx.fillStyle = options.color ?? 'rgba(0, 0, 0, 0.8)';
    const width = (radius * (options.widthPercentage ?? 3.2)) / 100;
    const length = (radius * (options.lengthPercentage ?? 80)) / 100;
    ctx.beginPath();
    ctx.moveTo(0, -width / 2);
    ctx.lineTo(length, 0);
    ctx.lineTo(0, width / 2);
    ctx.fill();
    ctx.beginPath();
    ctx.arc(0, 0, (radius * (options.radiusPercentage ?? 2)) / 100 + width / 2, 0, Math.PI * 2);
    ctx.fill();
    ctx.restore();
    const label = options.valueLabel ?? {};
    if (label.display === false) return;
    const text = (label.text ?? '{value}').replace(/\{value\}/g, formatNumber(options.value));
    const size = label.font?.size ?? Math.max(10, Math.round(radius * 0.08));
    ctx.save();
    ctx.font = `bold ${size}px ${Chart.defaults.font.family}`;
    const box = ctx.measureText(text).width + size;
    const top = first.y + size * 0.6;
    ctx.fillStyle = label.backgroundColor ?? 'rgba(0, 0, 0, 0.8)';
    ctx.fillRect(first.x - box / 2, top, box, size * 1.6);
    ctx.fillStyle = label.color ?? '#ffffff';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.fillText(text, first.x, top + size * 0.8);
    ctx.restore();
  },
};

Chart.register(annotationPlugin, dataLabelsPlugin, BoxPlotController, BoxAndWiskers, ViolinController, Violin, doughnutLabel, gaugeNeedle, tickLimit);

const formatNumber = (n: number) => (Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100));

interface LabelContext {
  dataIndex: number;
  dataset: { data: unknown[]; label?: string };
  chart: { data: { labels?: unknown[] } };
}

/**
 * Data labels' `formatter` as a template instead of a function: `{value}`, `{label}`,
 * `{datasetLabel}` and `{percent}` (share of the dataset's total, one decimal), with `numberFormat`
 * (Intl.NumberFormat options) applied to `{value}`.
 */
function templateFormatter(template: string, numberFormat: Json | undefined) {
  let format: Intl.NumberFormat | undefined;
  try {
    format = numberFormat ? new Intl.NumberFormat('en-US', numberFormat as Intl.NumberFormatOptions) : undefined;
  } catch (error) {
    throw new Error(`datalabels.numberFormat: ${(error as Error).message}`);
  }
  return (value: unknown, context: LabelContext) => {
    const y = isObject(value) ? (value.y ?? value.v ?? value.r) : value;
    const shown = typeof y === 'number' && format ? format.format(y) : String(y ?? '');
    const total = context.dataset.data.reduce<number>((sum, item) => sum + (typeof item === 'number' ? Math.abs(item) : 0), 0);
    const percent = typeof y === 'number' && total ? Math.round((Math.abs(y) / total) * 1000) / 10 : 0;
    return template
      .replace(/\{value\}/g, shown)
      .replace(/\{label\}/g, String(context.chart.data.labels?.[context.dataIndex] ?? ''))
      .replace(/\{datasetLabel\}/g, context.dataset.label ?? '')
      .replace(/\{percent\}/g, String(percent));
  };
}

/** Rewrites datalabels options (chart, dataset level) whose `formatter` is a template. */
function withLabelFormatters(labels: unknown): unknown {
  if (!isObject(labels)) return labels;
  const out: Json = { ...labels };
  if (typeof out.formatter === 'string') out.formatter = templateFormatter(out.formatter, isObject(out.numberFormat) ? out.numberFormat : undefined);
  else if (isObject(out.numberFormat)) out.formatter = templateFormatter('{value}', out.numberFormat);
  delete out.numberFormat;
  if (isObject(out.labels)) out.labels = Object.fromEntries(Object.entries(out.labels).map(([key, value]) => [key, withLabelFormatters(value)]));
  return out;
}

/** Chart.js 2's zero line (`grid.zeroLineColor`, `grid.zeroLineWidth`) as scriptable grid options. */
function withZeroLines(scales: unknown): unknown {
  if (!isObject(scales)) return scales;
  return Object.fromEntries(
    Object.entries(scales).map(([id, scale]) => {
      const grid = isObject(scale) && isObject(scale.grid) ? scale.grid : undefined;
      if (!grid || (grid.zeroLineColor === undefined && grid.zeroLineWidth === undefined)) return [id, scale];
      const { zeroLineColor, zeroLineWidth, ...rest } = grid;
      const isZero = (ctx: { tick?: { value: number } }) => ctx.tick?.value === 0;
      const color = rest.color ?? 'rgba(0, 0, 0, 0.1)';
      const width = rest.lineWidth ?? 1;
      return [
        id,
        {
          ...(scale as Json),
          grid: {
            ...rest,
            color: (ctx: { tick?: { value: number } }) => (isZero(ctx) && zeroLineColor !== undefined ? zeroLineColor : color),
            lineWidth: (ctx: { tick?: { value: number } }) => (isZero(ctx) && zeroLineWidth !== undefined ? zeroLineWidth : width),
          },
        },
      ];
    }),
  );
}

const PLUGIN_IDS = ['datalabels', 'annotation', 'doughnutlabel', 'gaugeNeedle'] as const;

/** Whether a chart asks for a plugin: its options (not `false`, not `display: false` alone) or, for data labels, a dataset's. */
function uses(config: Json, id: (typeof PLUGIN_IDS)[number]): boolean {
  const plugins = isObject(config.options) && isObject(config.options.plugins) ? config.options.plugins : {};
  const options = plugins[id];
  if (id === 'datalabels') {
    const datasets = isObject(config.data) && Array.isArray(config.data.datasets) ? config.data.datasets : [];
    if (datasets.some((d) => isObject(d) && isObject(d.datalabels) && d.datalabels.display !== false)) return true;
    return isObject(options) && options.display !== false;
  }
  return isObject(options);
}

/**
 * The configuration as the plugins need it: unused plugins off, the tick limit on with the thread's
 * `maxTicks` whatever the chart says (`plugins: false` or `plugins.tickLimit: false` would switch it
 * off), template formatters and zero lines as functions.
 */
export function withPlugins(config: Json, maxTicks: number): Json {
  const options = isObject(config.options) ? config.options : {};
  const tickLimitOptions: TickLimitOptions = { max: maxTicks };
  const plugins: Json = { ...(isObject(options.plugins) ? options.plugins : {}), [TICK_LIMIT_ID]: tickLimitOptions };
  for (const id of PLUGIN_IDS) if (!uses(config, id)) plugins[id] = false;
  if (plugins.datalabels !== false) plugins.datalabels = withLabelFormatters(plugins.datalabels);
  const data = isObject(config.data) ? config.data : {};
  const datasets = Array.isArray(data.datasets)
    ? data.datasets.map((d) => (isObject(d) && d.datalabels !== undefined ? { ...d, datalabels: withLabelFormatters(d.datalabels) } : d))
    : data.datasets;
  return { ...config, data: { ...data, datasets }, options: { ...options, plugins, ...(options.scales ? { scales: withZeroLines(options.scales) } : {}) } };
}
