/**
 * The tick limit of every axis (MAX_TICKS_PER_AXIS), as a Chart.js plugin of the render threads.
 * `beforeBuildTicks` runs once the axis's min and max are known and before Chart.js makes its ticks:
 * where the options say how many there will be (a time axis's unit and step, a linear axis's
 * `ticks.count`), too many are refused there, before any is made; `afterBuildTicks` refuses any
 * other axis that made too many (a category axis of more labels than the limit, a time series of
 * more timestamps), before they are formatted, measured and drawn, which is where their cost lies.
 * The plugin is switched on for every chart (chart-plugins.ts): a chart's options cannot turn it off.
 */
import type { Plugin, Scale } from 'chart.js/auto';
import { TooManyTicksError } from './tasks';

export const TICK_LIMIT_ID = 'tickLimit';

/** The plugin's options, which our code sets on every chart (chart-plugins.ts withPlugins): the thread's limit. */
export interface TickLimitOptions {
  max: number;
}

/** Chart.js's time units, smallest first (a time axis without `time.unit` picks one from `time.minUnit` up). */
const TIME_UNITS = ['millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'];

interface DateAdapter {
  add(time: number, amount: unknown, unit: string): number;
}
/** The options this plugin reads (as JSON gave them: a count or a step may be a string). */
interface AxisOptions {
  ticks: { source?: string; stepSize?: unknown; count?: unknown };
  time: { unit?: string | false; minUnit?: string };
}
type AnyScale = Omit<Scale, 'options'> & { _adapter?: DateAdapter; options: AxisOptions };

const count = (n: number) => Math.ceil(n).toLocaleString('en-US');

/**
 * A time axis makes a tick every `ticks.stepSize` units from its min to its max (unless its ticks
 * are its labels'). How far one step moves on is measured with the adapter Chart.js steps with:
 * a step that does not move on (half a millisecond, 0.3 of a day: the date is truncated) would make
 * Chart.js step forever. Without `time.unit`, Chart.js picks the smallest unit whose ticks fit the
 * axis, else years: so the step must move the axis on in every unit it may pick, and years give
 * the fewest ticks it may make.
 */
function timeAxisRefusal(scale: AnyScale, axis: string, maxTicks: number): string | undefined {
  const { ticks, time } = scale.options;
  const { min, max } = scale;
  if (ticks.source === 'labels' || !scale._adapter || !(max > min)) return undefined;
  const step = ticks.stepSize ?? 1;
  const units = time.unit ? [String(time.unit)] : TIME_UNITS.slice(Math.max(0, TIME_UNITS.indexOf(time.minUnit ?? 'millisecond')));
  for (const unit of units) {
    if (!(+scale._adapter.add(min, step, unit) > min))
      return `${axis}: ticks.stepSize ${JSON.stringify(step)} of ${unit}s never moves the time axis on; use a whole number of units`;
  }
  const unit = units[units.length - 1];
  const ticksMade = (max - min) / (+scale._adapter.add(min, step, unit) - min);
  if (ticksMade <= maxTicks) return undefined;
  const how = time.unit ? `a tick every ${JSON.stringify(step)} ${unit}` : `at least a tick every ${JSON.stringify(step)} ${unit}`;
  return `${axis} would have ${count(ticksMade)} ticks (${how} over ${count(max - min)} ms); an axis may have at most ${count(maxTicks)}: use a larger time.unit or ticks.stepSize`;
}

/** Where the options say how many ticks the axis will have: a refusal when that is too many. */
function refusalBeforeTicks(scale: AnyScale, axis: string, maxTicks: number): string | undefined {
  const type = scale.type as string;
  if (type === 'time') return timeAxisRefusal(scale, axis, maxTicks);
  // Chart.js makes exactly `ticks.count` ticks on a linear axis, with no bound of its own.
  const wanted = Number(scale.options.ticks?.count);
  if ((type === 'linear' || type === 'radialLinear') && wanted > maxTicks)
    return `${axis} would have ${count(wanted)} ticks (ticks.count); an axis may have at most ${count(maxTicks)}`;
  return undefined;
}

export const tickLimit: Plugin = {
  id: TICK_LIMIT_ID,
  beforeBuildTicks(_chart, { scale }, { max }: TickLimitOptions) {
    const axis = `scales.${scale.id}`;
    const refusal = refusalBeforeTicks(scale as unknown as AnyScale, axis, max);
    if (refusal) throw new TooManyTicksError(axis, refusal);
  },
  afterBuildTicks(_chart, { scale }, { max }: TickLimitOptions) {
    if (scale.ticks.length <= max) return;
    const axis = `scales.${scale.id}`;
    throw new TooManyTicksError(axis, `${axis} would have ${count(scale.ticks.length)} ticks; an axis may have at most ${count(max)}`);
  },
};
