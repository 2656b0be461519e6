import { validator, describeErrors } from '../../shared/http/body';
import { HttpError } from '../../shared/http/errors';
import { mergeJson } from './canonical';
import { perLimits, type Limits } from './limits';
import type { Theme } from './themes';

export const CHART_TYPES = ['bar', 'line', 'pie', 'doughnut', 'radar', 'scatter', 'bubble'] as const;
export type ChartType = (typeof CHART_TYPES)[number];
const POINT_TYPES: readonly ChartType[] = ['scatter', 'bubble'];
const SLICE_TYPES: readonly ChartType[] = ['pie', 'doughnut'];

export const DEFAULT_WIDTH = 800;
export const DEFAULT_HEIGHT = 400;

export interface Point {
  x: number;
  y: number;
  r?: number;
}
export interface DatasetSpec {
  label?: string;
  data: (number | null | Point)[];
  backgroundColor?: string | string[];
  borderColor?: string | string[];
  borderWidth?: number;
}
/** Spec 2.6 chart specification. */
export interface ChartSpec {
  id?: string;
  type: ChartType;
  data: { labels?: (string | number)[]; datasets: DatasetSpec[] };
  options?: { responsive?: boolean; width?: number; height?: number; title?: string; description?: string; plugins?: Record<string, unknown> };
}

const color = { type: 'string', maxLength: 100 };

/** The ajv schema of one chart specification under the given limits (built once per limits object). */
function chartSchema(l: Limits) {
  const point = {
    type: 'object',
    required: ['x', 'y'],
    additionalProperties: false,
    properties: { x: { type: 'number' }, y: { type: 'number' }, r: { type: 'number', minimum: 0, maximum: 1000 } },
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
              additionalProperties: false,
              properties: {
                label: { type: 'string', maxLength: 500 },
                data: { type: 'array', maxItems: l.maxPoints, items: { anyOf: [{ type: 'number' }, { type: 'null' }, point] } },
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
        additionalProperties: false,
        properties: {
          responsive: { type: 'boolean' },
          width: { type: 'integer', minimum: 1, maximum: l.maxDimension },
          height: { type: 'integer', minimum: 1, maximum: l.maxDimension },
          title: { type: 'string', maxLength: 500 },
          description: { type: 'string', maxLength: 5000 },
          plugins: { type: 'object' },
        },
      },
    },
  };
}

const schemaFor = perLimits(chartSchema);

const invalidChart = (id: string, field: string, message: string, details?: unknown) =>
  new HttpError(400, 'Invalid chart specification', `Chart "${id}": ${field} ${message}`, 'VALIDATION_FAILED', { chartId: id, field, ...(details ? { details } : {}) });

/** Validates one chart (400 naming the chart id and the field) and checks point data against the type. */
export function validateChart(value: unknown, index: number, l: Limits): ChartSpec & { id: string } {
  const rawId = (value as { id?: unknown } | null)?.id;
  const id = typeof rawId === 'string' && rawId ? rawId : `chart-${index + 1}`;
  const check = validator<ChartSpec>(schemaFor(l));
  if (!check(value)) {
    const details = describeErrors(check.errors);
    throw invalidChart(id, details[0].field, details[0].message, details);
  }
  const spec = value as ChartSpec;
  const wantsPoints = POINT_TYPES.includes(spec.type);
  spec.data.datasets.forEach((dataset, d) => {
    dataset.data.forEach((item, i) => {
      const isPoint = item !== null && typeof item === 'object';
      const field = `data.datasets.${d}.data.${i}`;
      if (wantsPoints && !isPoint) throw invalidChart(id, field, `must be a point object {x, y${spec.type === 'bubble' ? ', r' : ''}} for ${spec.type} charts`);
      if (!wantsPoints && isPoint) throw invalidChart(id, field, `must be a number for ${spec.type} charts`);
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
  const datasets = spec.data.datasets.map((dataset) => {
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
  const scales =
    spec.type === 'radar'
      ? { r: { grid: { color: theme.gridColor }, angleLines: { color: theme.gridColor }, pointLabels: { color: theme.textColor, font }, ticks: { color: theme.textColor, font, backdropColor: theme.backgroundColor } } }
      : slices ? undefined
      : { x: axis, y: axis };
  const title = spec.options?.title;
  const plugins = mergeJson(
    {
      title: { display: Boolean(title), text: title ?? '', color: theme.textColor, font: { ...font, size: 16, weight: 'bold' } },
      legend: { labels: { color: theme.textColor, font } },
      tooltip: { enabled: false },
    },
    spec.options?.plugins,
  );
  return {
    type: spec.type,
    data: { labels: spec.data.labels, datasets },
    options: { color: theme.textColor, ...(scales ? { scales } : {}), plugins },
  };
}
