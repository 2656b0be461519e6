import type { ErrorObject } from 'ajv';
import { describeErrors, validator } from '../../shared/http/body';
import { Code, httpError } from '../../shared/http/errors';
import { mergeJson } from './canonical';
import { ALL_TYPES, applyChartExtras, ChartExtrasError } from './chart-extras';
import { ChartInputError, screenChart } from './chart-input';
import type { Limits } from './limits';
import { chartSpec, DISTRIBUTION_TYPES, isChartRule, POINT_TYPES, XY_TYPES, type ChartSpec, type ChartType } from './schemas';
import type { Theme } from './themes';

export type { ChartSpec, ChartType } from './schemas';

/** Chart.js 4's types, the boxplot plugin's, and QuickChart's extra types (drawn as data, see chart-extras). */
export const CHART_TYPES = ALL_TYPES;
/** Types coloured slice by slice with the theme's colours. */
const SLICE_TYPES: readonly ChartType[] = ['pie', 'doughnut', 'polarArea', 'donut', 'outlabeledPie', 'outlabeledDoughnut', 'gauge'];
/** Types drawn without cartesian axes (no themed x/y scales). */
const AXISLESS_TYPES: readonly ChartType[] = [...SLICE_TYPES, 'radialGauge', 'radar'];

export const DEFAULT_WIDTH = 800;
export const DEFAULT_HEIGHT = 400;

interface Point {
  x: number | string;
  y: number | null;
  r?: number;
}

/** The schema's errors about a value (none when it is valid), after `normalize` as the route does (BodySpec.normalize). */
export function schemaErrors(schema: object, value: unknown, normalize?: (value: unknown) => void): readonly ErrorObject[] {
  normalize?.(value);
  const check = validator(schema);
  return check(value) ? [] : [...(check.errors ?? [])];
}

const invalidChart = (id: string, field: string, message: string, details?: unknown) =>
  httpError(Code.VALIDATION_FAILED, `Chart "${id}": ${field} ${message}`, {
    error: 'Invalid chart specification',
    extra: { chartId: id, field, ...(details ? { details } : {}) },
  });

/**
 * Checks one chart (400 naming the chart id and the field), in the order its refusals come: its
 * size, numbers and texts first (screenChart: texts are cleaned in place), then its schema
 * (chartSpec), then its data items against its type, worded here (the schema states them too, as
 * CHART_RULES). `errors` is the schema's verdict on the chart, paths relative to it (the route's,
 * when it validated the body); it is computed here when not given.
 */
export function validateChart(value: unknown, index: number, l: Limits, errors?: readonly ErrorObject[]): ChartSpec & { id: string } {
  const rawId = (value as { id?: unknown } | null)?.id;
  const id = typeof rawId === 'string' && rawId ? rawId : `chart-${index + 1}`;
  try {
    screenChart(value, l.maxDimension);
  } catch (error) {
    if (error instanceof ChartInputError) throw invalidChart(id, error.field, error.reason);
    throw error;
  }
  const refused = (errors ?? schemaErrors(chartSpec(l), value)).filter((e) => !isChartRule(e));
  if (refused.length) {
    const details = describeErrors(refused);
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
