/**
 * QuickChart's chart types and plugins, as data, for Chart.js 4 (both endpoints): `progressBar`,
 * `sparkline`, `gauge` and `radialGauge` become styled bars, lines and doughnuts; `boxplot` and
 * `violin` (and their horizontal forms) use @sgratzl/chartjs-chart-boxplot; `outlabeledPie` uses
 * data labels outside the slices; `plugins.colorschemes` fills colours from a scheme by name. Pure:
 * data in, data out. An unknown scheme or a malformed extra type is ChartExtrasError (a 400).
 */
import { colorOf } from './colors';
import { colorScheme, colorSchemeCount, DEFAULT_SCHEME } from './color-schemes';
import { mergeJson } from './canonical';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

export class ChartExtrasError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field} ${message}`);
    this.name = 'ChartExtrasError';
  }
}

/** Types drawn by Chart.js 4 itself or by the registered boxplot controllers. */
export const RENDERED_TYPES = ['bar', 'line', 'pie', 'doughnut', 'radar', 'scatter', 'bubble', 'polarArea', 'boxplot', 'violin'] as const;
/** QuickChart's extra types (and Chart.js 2's horizontalBar), translated here into RENDERED_TYPES. */
export const EXTRA_TYPES = [
  'horizontalBar',
  'donut',
  'sparkline',
  'progressBar',
  'gauge',
  'radialGauge',
  'horizontalBoxplot',
  'horizontalViolin',
  'outlabeledPie',
  'outlabeledDoughnut',
] as const;
export const ALL_TYPES = [...RENDERED_TYPES, ...EXTRA_TYPES];

const SLICE_TYPES: ReadonlySet<string> = new Set(['pie', 'doughnut', 'polarArea']);
/** Coloured as lines by the colour scheme plugin: the scheme colour at fillAlpha fills them and their points, full colour outlines them. */
const FILLED_TYPES: ReadonlySet<string> = new Set(['line', 'radar', 'scatter']);

const options = (config: Json): Json => (isObject(config.options) ? config.options : {});
const plugins = (config: Json): Json => (isObject(options(config).plugins) ? (options(config).plugins as Json) : {});
const datasets = (config: Json): Json[] => (isObject(config.data) && Array.isArray(config.data.datasets) ? config.data.datasets.filter(isObject) : []);
const withOptions = (config: Json, extra: Json): Json => ({ ...config, options: { ...options(config), ...extra } });
const withPlugins = (config: Json, extra: Json): Json => withOptions(config, { plugins: { ...plugins(config), ...extra } });
const numbers = (value: unknown): number[] => (Array.isArray(value) ? value.filter((n): n is number => typeof n === 'number') : []);

/**
 * chartjs-plugin-colorschemes as data, as the plugin colours a chart: by dataset type, line, radar
 * and scatter get the scheme colour at `fillAlpha` as their fill and point fill and the full colour
 * as their line and point outline; pie, doughnut and polar area one colour per slice; every other
 * type its fill only. Only what a dataset leaves undefined is set, unless `override`. An unknown
 * scheme is refused (the plugin would silently draw Chart.js's default grey).
 */
function applyColorScheme(config: Json, defaultScheme: string | undefined): Json {
  const requested = plugins(config).colorschemes;
  if (requested === false || (isObject(requested) && requested.scheme === false)) return config;
  const settings = isObject(requested) ? requested : {};
  const name = typeof settings.scheme === 'string' ? settings.scheme : defaultScheme;
  const { colorschemes: _drop, ...rest } = plugins(config);
  const stripped = withOptions(config, { plugins: rest });
  if (!name) return stripped;
  const scheme = colorScheme(name);
  if (!scheme)
    throw new ChartExtrasError(
      'options.plugins.colorschemes.scheme',
      `"${name}" is not a scheme of chartjs-plugin-colorschemes (its ${colorSchemeCount()} schemes are named <category>.<scheme>, such as brewer.Paired12, office.Excel16, tableau.Tableau10)`,
    );
  const reverse = settings.reverse === true;
  const colorAt = (i: number) => scheme[reverse ? scheme.length - (i % scheme.length) - 1 : i % scheme.length];
  const fillAlpha = typeof settings.fillAlpha === 'number' ? settings.fillAlpha : 0.5;
  const override = settings.override === true;
  const chartType = String(config.type);
  const painted = datasets(config).map((dataset, i) => {
    const type = typeof dataset.type === 'string' ? dataset.type : chartType;
    const color = colorAt(i);
    const out = { ...dataset };
    const unset = (key: string) => override || out[key] === undefined;
    if (SLICE_TYPES.has(type)) {
      if (unset('backgroundColor')) out.backgroundColor = (Array.isArray(dataset.data) ? dataset.data : []).map((_, j) => colorAt(j));
    } else if (FILLED_TYPES.has(type)) {
      if (unset('backgroundColor')) out.backgroundColor = colorOf(color, fillAlpha);
      if (unset('borderColor')) out.borderColor = color;
      if (unset('pointBackgroundColor')) out.pointBackgroundColor = colorOf(color, fillAlpha);
      if (unset('pointBorderColor')) out.pointBorderColor = color;
    } else if (unset('backgroundColor')) {
      out.backgroundColor = color;
    }
    return out;
  });
  return { ...stripped, data: { ...(config.data as Json), datasets: painted } };
}

/** QuickChart's progress bar: the first dataset over a track (the second dataset, or 100 when there is none), on a horizontal bar. */
function progressBar(config: Json): Json {
  const sets = datasets(config);
  if (sets.length < 1 || sets.length > 2)
    throw new ChartExtrasError('data.datasets', 'of a progressBar must hold 1 or 2 datasets (the value, and optionally the maximum)');
  const count = Array.isArray(sets[0].data) ? sets[0].data.length : 0;
  const percent = sets.length === 1;
  const track = percent ? { data: Array(count).fill(100) } : sets[1];
  if (!Array.isArray(track.data) || track.data.length !== count)
    throw new ChartExtrasError('data.datasets.1.data', 'must have as many values as data.datasets.0.data');
  const labels = isObject(config.data) && Array.isArray(config.data.labels) ? config.data.labels : Array.from({ length: count }, (_, i) => i);
  const hidden = { display: false, grid: { display: false, drawTicks: false }, ticks: { display: false } };
  const base = {
    ...config,
    type: 'bar',
    data: {
      ...(config.data as Json),
      labels,
      datasets: [
        { datalabels: { display: true }, ...sets[0] },
        { backgroundColor: '#ffffff', borderColor: '#4e78a7', borderWidth: 1, ...track, datalabels: { display: false } },
      ],
    },
  };
  const scales = isObject(options(config).scales) ? (options(config).scales as Json) : {};
  return withOptions(base, {
    indexAxis: 'y',
    scales: {
      x: mergeJson({ ...hidden, beginAtZero: true }, scales.x as Json | undefined),
      y: mergeJson({ ...hidden, stacked: true }, scales.y as Json | undefined),
    },
    plugins: {
      legend: { display: false },
      ...plugins(config),
      datalabels: { color: '#ffffff', formatter: percent ? '{value}%' : '{value}', ...(plugins(config).datalabels as Json | undefined) },
    },
  });
}

/** QuickChart's sparkline: a line without axes, legend or points. */
function sparkline(config: Json): Json {
  const given = isObject(options(config).scales) ? (options(config).scales as Json) : {};
  const scales = {
    x: mergeJson((given.x as Json | undefined) ?? {}, { display: false }),
    y: mergeJson((given.y as Json | undefined) ?? {}, { display: false }),
  };
  const line = { borderColor: '#000000', borderWidth: 1, pointRadius: 0, fill: false };
  const base = { ...config, type: 'line', data: { ...(config.data as Json), datasets: datasets(config).map((d) => ({ ...line, ...d })) } };
  const labels =
    isObject(config.data) && Array.isArray(config.data.labels)
      ? config.data.labels
      : Array.from({ length: numbers(datasets(config)[0]?.data).length }, () => '');
  return withOptions(
    { ...base, data: { ...(base.data as Json), labels } },
    { scales: { ...given, ...scales }, plugins: { legend: { display: false }, ...plugins(config) } },
  );
}

/** chartjs-gauge as data: thresholds as the segments of a half doughnut, and our needle at `value`. */
function gauge(config: Json): Json {
  const [dataset] = datasets(config);
  const thresholds = numbers(dataset?.data);
  if (!dataset || !thresholds.length) throw new ChartExtrasError('data.datasets.0.data', 'of a gauge must be its thresholds, a list of numbers');
  if (typeof dataset.value !== 'number') throw new ChartExtrasError('data.datasets.0.value', 'of a gauge must be a number (where the needle points)');
  const min = typeof dataset.minValue === 'number' ? dataset.minValue : 0;
  const steps = thresholds.map((t, i) => t - (i === 0 ? min : thresholds[i - 1]));
  const { value, minValue: _minValue, ...segments } = dataset;
  const opts = options(config);
  const needle = isObject(opts.needle) ? opts.needle : {};
  const valueLabel = isObject(opts.valueLabel) ? opts.valueLabel : {};
  const { needle: _n, valueLabel: _v, ...rest } = opts;
  return {
    ...config,
    type: 'doughnut',
    data: { ...(config.data as Json), datasets: [{ borderWidth: 0, ...segments, data: steps }] },
    options: {
      circumference: 180,
      rotation: -90,
      cutout: '50%',
      layout: { padding: { bottom: 48 } },
      ...rest,
      plugins: {
        legend: { display: false },
        ...plugins(config),
        gaugeNeedle: {
          value,
          min,
          max: thresholds[thresholds.length - 1],
          color: needle.color,
          widthPercentage: needle.widthPercentage,
          lengthPercentage: needle.lengthPercentage,
          radiusPercentage: needle.radiusPercentage,
          valueLabel: {
            display: valueLabel.display,
            color: valueLabel.color ?? valueLabel.fontColor,
            backgroundColor: valueLabel.backgroundColor,
            text: valueLabel.text,
            font: valueLabel.fontSize ? { size: valueLabel.fontSize } : undefined,
          },
        },
      },
    },
  };
}

/** chartjs-chart-radial-gauge as data: the value as an arc over a track, the value in the centre. */
function radialGauge(config: Json): Json {
  const [dataset] = datasets(config);
  const [value] = numbers(dataset?.data);
  if (!dataset || value === undefined) throw new ChartExtrasError('data.datasets.0.data', 'of a radialGauge must hold its value, a number');
  const opts = options(config);
  const [min, max] = Array.isArray(opts.domain) && opts.domain.length === 2 ? (opts.domain as number[]) : [0, 100];
  const clamped = Math.min(max, Math.max(min, value));
  const center = isObject(opts.centerArea) ? opts.centerArea : {};
  const { domain: _d, centerArea: _c, centerPercentage, trackColor, roundedCorners: _r, ...rest } = opts;
  const color = dataset.backgroundColor ?? colorScheme(DEFAULT_SCHEME)![0];
  return {
    ...config,
    type: 'doughnut',
    data: {
      ...(config.data as Json),
      labels: ['value', ''],
      datasets: [{ ...dataset, data: [clamped - min, max - clamped], backgroundColor: [color, trackColor ?? '#e6e6e6'], borderWidth: 0 }],
    },
    options: {
      cutout: `${typeof centerPercentage === 'number' ? centerPercentage : 80}%`,
      ...rest,
      plugins: {
        legend: { display: false },
        ...plugins(config),
        datalabels: false,
        doughnutlabel:
          center.displayText === false
            ? false
            : { labels: [{ text: center.text ?? value, color: center.fontColor, font: center.fontSize ? { size: center.fontSize } : undefined }] },
      },
    },
  };
}

/** piechart-outlabels (no Chart.js 4 version) as data labels outside the slices; `%l`, `%p`, `%v` become `{label}`, `{percent}%`, `{value}`. */
function outlabeled(config: Json, type: 'pie' | 'doughnut'): Json {
  const settings = isObject(plugins(config).outlabels) ? (plugins(config).outlabels as Json) : {};
  const text = typeof settings.text === 'string' ? settings.text : '%l %p';
  const { outlabels: _o, ...rest } = plugins(config);
  const layout = isObject(options(config).layout) ? options(config).layout : { padding: 48 };
  return withOptions(
    { ...config, type },
    {
      layout,
      plugins: {
        legend: { display: false },
        ...rest,
        datalabels: {
          anchor: 'end',
          align: 'end',
          offset: 4,
          clamp: true,
          color: settings.color ?? '#ffffff',
          backgroundColor: settings.backgroundColor ?? 'rgba(0, 0, 0, 0.6)',
          borderRadius: 4,
          font: { size: typeof settings.font === 'object' && settings.font && (settings.font as Json).size ? (settings.font as Json).size : 12 },
          formatter: text.replace(/%l/g, '{label}').replace(/%p/g, '{percent}%').replace(/%v/g, '{value}'),
          ...(isObject(rest.datalabels) ? rest.datalabels : {}),
        },
      },
    },
  );
}

function byType(config: Json): Json {
  switch (config.type) {
    case 'donut':
      return { ...config, type: 'doughnut' };
    case 'horizontalBar':
      return withOptions({ ...config, type: 'bar' }, { indexAxis: options(config).indexAxis ?? 'y' });
    case 'horizontalBoxplot':
      return withOptions({ ...config, type: 'boxplot' }, { indexAxis: 'y' });
    case 'horizontalViolin':
      return withOptions({ ...config, type: 'violin' }, { indexAxis: 'y' });
    case 'progressBar':
      return progressBar(config);
    case 'sparkline':
      return sparkline(config);
    case 'gauge':
      return gauge(config);
    case 'radialGauge':
      return radialGauge(config);
    case 'outlabeledPie':
      return outlabeled(config, 'pie');
    case 'outlabeledDoughnut':
      return outlabeled(config, 'doughnut');
    default:
      return config;
  }
}

/**
 * QuickChart's extras as Chart.js 4 data. `quickChartDefaults` (QuickChart with Chart.js 2, its
 * default version) adds what QuickChart adds there: tableau.Tableau10 colours, filled lines, value
 * axes from zero when no scales are given, and data labels on pie and doughnut slices.
 */
export function applyChartExtras(config: Json, quickChartDefaults: boolean): Json {
  const originalType = config.type;
  const hadScales = isObject(options(config).scales) && Object.keys(options(config).scales as Json).length > 0;
  let out = byType(config);
  if (quickChartDefaults) {
    if (['pie', 'doughnut'].includes(String(originalType)) && plugins(out).datalabels === undefined) out = withPlugins(out, { datalabels: { display: true } });
    if (['line', 'scatter', 'bubble'].includes(String(originalType)) && !hadScales) out = withOptions(out, { scales: { y: { beginAtZero: true } } });
    if (originalType === 'line' || originalType === 'radar') {
      out = {
        ...out,
        data: {
          ...(out.data as Json),
          datasets: datasets(out).map((d) => (d.fill === undefined && (d.type === undefined || d.type === 'line') ? { ...d, fill: true } : d)),
        },
      };
    }
  }
  const noScheme = ['gauge', 'radialGauge', 'sparkline'].includes(String(originalType));
  return applyColorScheme(out, quickChartDefaults && !noScheme ? DEFAULT_SCHEME : undefined);
}
