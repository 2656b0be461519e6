import { xmlChars } from '../../shared/text';

/**
 * One pass over a chart as it arrives (API chart or QuickChart `chart`), before any deep work on
 * it (schema validation, Chart.js 2 translation, merging with the theme, hashing, drawing):
 * - its option keys are counted, and more than MAX_OPTION_KEYS is refused: 150,000 keys cost 1.6 s
 *   of the request thread in merging, hashing and copying before this limit;
 * - its numbers are bounded: MAX_CHART_NUMBER for any number, and the largest chart side for
 *   sizes (SIZE_OPTION), so no range, stack, scale or coordinate Chart.js computes overflows to
 *   Infinity or NaN ([1e308, -1e308] wrote NaN into SVG coordinates);
 * - its texts lose the characters XML cannot hold (xmlChars, as every SVG and deck text): a NUL in
 *   a label failed the canvas library ("Convert String to CString failed"), and the PNG and SVG of
 *   a chart draw the same text. The strings are replaced in place: the value is the request's own.
 */

/** Keys at every depth of `options` and of each dataset apart from its `data`, per chart. */
export const MAX_OPTION_KEYS = 10_000;
/**
 * The largest magnitude of any number in a chart. Far below Number.MAX_VALUE (1.8e308): the eight
 * orders of magnitude between them hold what Chart.js computes from the numbers (a stack of 20
 * datasets, a range, tick spacing, a position on a 4,000 px axis, the SVG writer's hundredths).
 */
export const MAX_CHART_NUMBER = 1e300;
/** Options that are a size in pixels (pointRadius, borderWidth, font size, barThickness, padding...): at most the largest chart side. */
const SIZE_OPTION = /(?:radius|width|thickness|length|padding|offset|spacing)$|^(?:size|fontSize)$/i;

export class ChartInputError extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field} ${reason}`);
    this.name = 'ChartInputError';
  }
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

const tooManyKeys = (field: string) =>
  new ChartInputError(field, `holds more than ${MAX_OPTION_KEYS} keys (options and dataset options, at every depth); the limit is ${MAX_OPTION_KEYS}`);

/** Checks and cleans a chart in place (see above); a refusal is ChartInputError naming the field. */
export const screenChart = (chart: unknown, maxSide: number): void => walkChart(chart, maxSide, true);

/**
 * Cleans a chart's texts in place and refuses nothing: what a body's schema is given (the route
 * normalises a body before validating it, BodySpec.normalize), so a text is held to its length as
 * it will be drawn, as screenChart cleaned it before the chart's schema saw it.
 */
export const cleanChartTexts = (chart: unknown): void => walkChart(chart, Infinity, false);

/** The one walk of a chart: texts cleaned, and with `checks` its keys counted and its numbers bounded. */
function walkChart(chart: unknown, maxSide: number, checks: boolean): void {
  if (!isObject(chart)) return;
  let keys = 0;
  /** Where the walk is, for a refusal's field. */
  const path: string[] = [];

  const checkNumber = (value: number, name: string, sized: boolean) => {
    if (sized && SIZE_OPTION.test(name) && Math.abs(value) > maxSide)
      throw new ChartInputError(
        path.join('.'),
        `is ${value}; a radius, width, size, thickness, length, padding, offset or spacing must lie within ±${maxSide} px (the largest chart side)`,
      );
    if (!(Math.abs(value) <= MAX_CHART_NUMBER)) throw new ChartInputError(path.join('.'), `is ${value}; numbers in a chart must lie within ±1e300`);
  };

  /**
   * Walks `container[key]`: `part` is the top-level field whose keys are counted (options, a
   * dataset), none for data; `name` is the option a number belongs to (for an array, the array's
   * name), whose size bound applies when `sized`. Nesting is at most 64 levels (the body reader
   * refuses deeper), so the recursion is bounded.
   */
  const visit = (container: Json | unknown[], key: string | number, name: string, part: string | undefined) => {
    const value = (container as Json)[key];
    path.push(String(key));
    if (typeof value === 'string') (container as Json)[key] = xmlChars(value);
    else if (typeof value === 'number' && checks) checkNumber(value, name, part !== undefined);
    else if (Array.isArray(value)) for (let i = 0; i < value.length; i++) visit(value, i, name, part);
    else if (isObject(value))
      for (const child of Object.keys(value)) {
        if (checks && part !== undefined && ++keys > MAX_OPTION_KEYS) throw tooManyKeys(part);
        visit(value, child, child, part);
      }
    path.pop();
  };

  if ('options' in chart) visit(chart, 'options', 'options', 'options');
  const data = chart.data;
  if (!isObject(data)) return;
  path.push('data');
  if ('labels' in data) visit(data, 'labels', 'labels', undefined);
  if (!Array.isArray(data.datasets)) return;
  path.push('datasets');
  data.datasets.forEach((dataset: unknown, d) => {
    if (!isObject(dataset)) return;
    const part = `data.datasets.${d}`;
    path.push(String(d));
    for (const key of Object.keys(dataset)) {
      if (key === 'data') {
        visit(dataset, key, key, undefined);
        continue;
      }
      if (checks && ++keys > MAX_OPTION_KEYS) throw tooManyKeys(part);
      visit(dataset, key, key, part);
    }
    path.pop();
  });
}
