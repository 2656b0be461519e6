import { validator, describeErrors } from '../../shared/http/body';
import { Code, httpError } from '../../shared/http/errors';
import { mergeJson } from './canonical';
import { ALL_TYPES, applyChartExtras, ChartExtrasError } from './chart-extras';
import { ChartInputError, screenChart } from './chart-input';
import { perLimits, type Limits } from './limits';
import type { Theme } from './themes';

/** Chart.js 4's types, the boxplot plugin's, and QuickChart's extra types (drawn as data, see chart-extras). */
export const CHART_TYPES = ALL_TYPES;
export type ChartType = (typeof CHART_TYPES)[number];
const POINT_TYPES: readonly ChartType[] = ['scatter', 'bubble'];
/** Types whose data may also be points ({x, y}: time series, numeric x). */
const XY_TYPES: readonly ChartType[] = ['line', 'bar', 'horizontalBar', 'sparkline'];
/** Types whose items are samples (an array of numbers) or precomputed statistics ({min, q1, median, q3, max}). */
const DISTRIBUTION_TYPES: readonly ChartType[] = ['boxplot', 'violin', 'horizontalBoxplot', 'horizontalViolin'];
/** Types coloured slice by slice with the theme's colours. */
const SLICE_TYPES: readonly ChartType[] = ['pie', 'doughnut', 'polarArea', 'donut', 'outlabeledPie', 'outlabeledDoughnut', 'gauge'];
/** Types drawn without cartesian axes (no themed x/y scales). */
const AXISLESS_TYPES: readonly ChartType[] = [...SLICE_TYPES, 'radialGauge', 'radar'];

export const DEFAULT_WIDTH = 800;
export const DEFAULT_HEIGHT = 400;

export interface Point {
  x: number | string;
  y: number | null;
  r?: number;
}
export interface DatasetSpec {
  label?: string;
  data: (number | null | Point | number[] | Record<string, unknown>)[];
  backgroundColor?: string | string[];
  borderColor?: string | string[];
  borderWidth?: number;
  /** Any other Chart.js 4 dataset option, as JSON (type, fill, tension, stack, datalabels...). */
  [option: string]: unknown;
}
/** A chart specification: id, type, data (labels, datasets) and options. */
export interface ChartSpec {
  id?: string;
  type: ChartType;
  data: { labels?: (string | number)[]; datasets: DatasetSpec[] };
  options?: {
    responsive?: boolean;
    width?: number;
    height?: number;
    title?: string;
    description?: string;
    plugins?: Record<string, unknown>;
    scales?: Record<string, unknown>;
    /** Any other Chart.js 4 option, as JSON (indexAxis, layout, elements, cutout...). */
    [option: string]: unknown;
  };
}

const color = { type: 'string', maxLength: 100 };

/** The ajv schema of one chart specification under the given limits (built once per limits object). */
export function chartSchema(l: Limits) {
  const point = {
    type: 'object',
    required: ['x', 'y'],
    additionalProperties: false,
    properties: {
      x: { anyOf: [{ type: 'number' }, { type: 'string', maxLength: 100 }] },
      y: { anyOf: [{ type: 'number' }, { type: 'null' }] },
      r: { type: 'number', minimum: 0, maximum: 1000 },
    },
  };
  const samples = { type: 'array', maxItems: l.maxPoints, items: { type: 'number' } };
  const stats = {
    type: 'object',
    required: ['min', 'q1', 'median', 'q3', 'max'],
    properties: {
      min: { type: 'number' },
      q1: { type: 'number' },
      median: { type: 'number' },
      q3: { type: 'number' },
      max: { type: 'number' },
      mean: { type: 'number' },
      outliers: samples,
    },
  };
  return {
    type: 'object',
    required: ['type', 'data'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', minLength: 1, maxLength: 200 },
      type: { enum: CHART_TYPES },
      data: {
        type: 'object',
        required: ['datasets'],
        additionalProperties: false,
        properties: {
          labels: { type: 'array', maxItems: l.maxPoints, items: { anyOf: [{ type: 'string', maxLength: 500 }, { type: 'number' }] } },
          datasets: {
            type: 'array',
            minItems: 1,
            maxItems: l.maxDatasets,
            items: {
              type: 'object',
              required: ['data'],
              properties: {
                label: { type: 'string', maxLength: 500 },
                data: { type: 'array', maxItems: l.maxPoints, items: { anyOf: [{ type: 'number' }, { type: 'null' }, point, samples, stats] } },
                backgroundColor: { anyOf: [color, { type: 'array', maxItems: l.maxPoints, items: color }] },
                borderColor: { anyOf: [color, { type: 'array', maxItems: l.maxPoints, items: color }] },
                borderWidth: { type: 'number', minimum: 0, maximum: 50 },
              },
            },
          },
        },
      },
      options: {
        type: 'object',
        properties: {
          responsive: { type: 'boolean' },
          width: { type: 'integer', minimum: 1, maximum: l.maxDimension },
          height: { type: 'integer', minimum: 1, maximum: l.maxDimension },
          title: { type: 'string', maxLength: 500 },
          description: { type: 'string', maxLength: 5000 },
          plugins: { type: 'object' },
          scales: { type: 'object' },
        },
      },
    },
  };
}

const schemaFor = perLimits(chartSchema);

const invalidChart = (id: string, field: string, message: string, details?: unknown) =>
  httpError(Code.VALIDATION_FAILED, `Chart "${id}": ${field} ${message}`, {
    error: 'Invalid chart specification',
    extra: { chartId: id, field, ...(details ? { details } : {}) },
  });

/**
 * Validates one chart (400 naming the chart id and the field) and checks point data against the
 * type; first its size, numbers and texts (screenChart: texts are cleaned in place).
 */
export function validateChart(value: unknown, index: number, l: Limits): ChartSpec & { id: string } {
  const rawId = (value as { id?: unknown } | null)?.id;
  const id = typeof rawId === 'string' && rawId ? rawId : `chart-${index + 1}`;
  try {
    screenChart(value, l.maxDimension);
  } catch (error) {
    if (error instanceof ChartInputError) throw invalidChart(id, error.field, error.reason);
    throw error;
  }
  const check = validator<ChartSpec>(schemaFor(l));
  if (!check(value)) {
    const details = describeErrors(check.errors);
    throw invalidChart(id, details[0].field, details[0].message, details);
  }
  const spec = value as ChartSpec;
  const wantsPoints = POINT_TYPES.includes(spec.type);
  const takesPoints = wantsPoints || XY_TYPES.includes(spec.type);
  const distribution = DISTRIBUTION_TYPES.includes(spec.type);
  spec.data.datasets.forEach((dataset, d) => {
    dataset.data.forEach((item, i) => {
      const field = `data.datasets.${d}.data.${i}`;
      const isArray = Array.isArray(item);
      const isObject = item !== null && typeof item === 'object' && !isArray;
      const isPoint = isObject && 'x' in (item as object);
      if (distribution) {
        if (!isArray && !(isObject && !isPoint) && typeof item !== 'number' && item !== null)
          throw invalidChart(id, field, `must be a list of numbers or {min, q1, median, q3, max} for ${spec.type} charts`);
        return;
      }
      if (isArray || (isObject && !isPoint))
        throw invalidChart(id, field, `must be a ${takesPoints ? 'number or a point {x, y}' : 'number'} for ${spec.type} charts`);
      if (wantsPoints && !isPoint) throw invalidChart(id, field, `must be a point object {x, y${spec.type === 'bubble' ? ', r' : ''}} for ${spec.type} charts`);
      if (!takesPoints && isPoint) throw invalidChart(id, field, `must be a number for ${spec.type} charts`);
      if (spec.type === 'bubble' && isPoint && (item as Point).r === undefined) throw invalidChart(id, `${field}.r`, 'is required for bubble charts');
    });
  });
  return { ...spec, id };
}

export function sizeOf(spec: ChartSpec): { width: number; height: number } {
  return { width: spec.options?.width ?? DEFAULT_WIDTH, height: spec.options?.height ?? DEFAULT_HEIGHT };
}

/**
 * The Chart.js configuration (plain JSON) for a specification under a theme: every color and font
 * is set explicitly so the result does not depend on Chart.js globals, and the same configuration
 * renders identically in process or on a QuickChart server.
 */
export function chartJsConfig(spec: ChartSpec, theme: Theme): Record<string, unknown> {
  const font = { family: theme.fontFamily, size: 12 };
  const [first] = theme.colors;
  const slices = SLICE_TYPES.includes(spec.type);
  // A colour scheme by name colours the datasets instead of the theme.
  const scheme = spec.options?.plugins?.colorschemes;
  const themed = !(scheme && typeof scheme === 'object');
  const datasets = spec.data.datasets.map((dataset) => {
    if (!themed) return dataset;
    // Pie and doughnut slices take the theme's five colors in turn (one color would make slices indistinguishable).
    const sliceColors = dataset.data.map((_, i) => theme.colors[i % theme.colors.length]);
    return {
      ...dataset,
      backgroundColor: dataset.backgroundColor ?? (slices ? sliceColors : first),
      borderColor: dataset.borderColor ?? (slices ? sliceColors : first),
      borderWidth: dataset.borderWidth ?? 2,
    };
  });
  const axis = { grid: { color: theme.gridColor }, border: { color: theme.gridColor }, ticks: { color: theme.textColor, font } };
  const themedScales =
    spec.type === 'radar'
      ? {
          r: {
            grid: { color: theme.gridColor },
            angleLines: { color: theme.gridColor },
            pointLabels: { color: theme.textColor, font },
            ticks: { color: theme.textColor, font, backdropColor: theme.backgroundColor },
          },
        }
      : AXISLESS_TYPES.includes(spec.type)
        ? undefined
        : { x: axis, y: axis };
  const {
    title,
    plugins: requestedPlugins,
    scales: requestedScales,
    width: _w,
    height: _h,
    description: _d,
    responsive: _r,
    ...chartOptions
  } = spec.options ?? {};
  const scales = themedScales ? mergeJson(themedScales, requestedScales) : requestedScales;
  const plugins = mergeJson(
    {
      title: { display: Boolean(title), text: title ?? '', color: theme.textColor, font: { ...font, size: 16, weight: 'bold' } },
      legend: { labels: { color: theme.textColor, font } },
      tooltip: { enabled: false },
    },
    requestedPlugins,
  );
  const config = {
    type: spec.type,
    data: { labels: spec.data.labels, datasets },
    options: { ...chartOptions, color: theme.textColor, ...(scales ? { scales } : {}), plugins },
  };
  try {
    return applyChartExtras(config, false);
  } catch (error) {
    if (error instanceof ChartExtrasError) throw invalidChart(spec.id ?? '', error.field, error.message.slice(error.field.length + 1));
    throw error;
  }
}
