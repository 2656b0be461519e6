/**
 * Chart.js 2 configuration -> Chart.js 4 configuration, as data: the renames and moves of Chart.js's
 * 3.x and 4.x migration guides that a data-only configuration can hold. Options already written in
 * the Chart.js 3/4 form pass through, so a configuration that mixes both still renders. An option
 * that has no Chart.js 4 equivalent is refused by name (UntranslatableOption, a 400).
 */
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

export class UntranslatableOption extends Error {
  constructor(
    readonly option: string,
    reason: string,
  ) {
    super(`${option} has no Chart.js 4 equivalent: ${reason}`);
    this.name = 'UntranslatableOption';
  }
}

/** Options refused by name, with the reason given to the caller. */
const UNTRANSLATABLE: Record<string, string> = {
  zeroLineBorderDash: 'Chart.js 3 removed the zero line; only its colour and width are kept',
  zeroLineBorderDashOffset: 'Chart.js 3 removed the zero line; only its colour and width are kept',
};

/** Chart.js 2 font keys (fontSize, fontStyle, fontFamily, lineHeight) as a Chart.js 4 `font` object, merged over `font`. */
function fontOf(src: Json): Json | undefined {
  const font: Json = isObject(src.font) ? { ...src.font } : {};
  if (src.fontSize !== undefined) font.size = src.fontSize;
  if (src.fontFamily !== undefined) font.family = src.fontFamily;
  if (src.lineHeight !== undefined) font.lineHeight = src.lineHeight;
  if (typeof src.fontStyle === 'string') {
    const style = src.fontStyle.toLowerCase();
    if (/bold|[6-9]00/.test(style)) font.weight = 'bold';
    if (/italic|oblique/.test(style)) font.style = 'italic';
    if (style === 'normal') font.weight = 'normal';
  }
  return Object.keys(font).length ? font : undefined;
}

/** A text block (title, legend labels, ticks, point labels): fontColor -> color, font keys -> font; everything else kept. */
function textBlock(src: unknown, renames: Record<string, string> = {}): Json | undefined {
  if (!isObject(src)) return undefined;
  const { fontColor, fontSize: _fontSize, fontStyle: _fontStyle, fontFamily: _fontFamily, lineHeight: _lineHeight, ...rest } = src;
  const out: Json = {};
  for (const [key, value] of Object.entries(rest)) out[renames[key] ?? key] = value;
  if (fontColor !== undefined) out.color = fontColor;
  const font = fontOf(src);
  if (font) out.font = font;
  return out;
}

const omit = (src: Json, keys: string[]) => Object.fromEntries(Object.entries(src).filter(([key]) => !keys.includes(key)));
const defined = (src: Json) => Object.fromEntries(Object.entries(src).filter(([, value]) => value !== undefined));

const BAR_AXIS_OPTIONS = ['barPercentage', 'categoryPercentage', 'barThickness', 'maxBarThickness', 'minBarLength'];
const AXIS_TICK_OPTIONS = ['min', 'max', 'suggestedMin', 'suggestedMax', 'beginAtZero', 'reverse'];

/** One Chart.js 2 cartesian axis (an entry of xAxes/yAxes) as a Chart.js 4 scale. */
function cartesianAxis(axis: Json, letter: 'x' | 'y', path: string): { scale: Json; bar: Json } {
  const { id: _id, type, distribution, ticks, gridLines, scaleLabel, time, ...rest } = axis;
  const scale: Json = { axis: letter, ...omit(rest, BAR_AXIS_OPTIONS) };
  const bar = Object.fromEntries(BAR_AXIS_OPTIONS.filter((key) => axis[key] !== undefined).map((key) => [key, axis[key]]));
  if (type !== undefined) scale.type = type === 'time' && distribution === 'series' ? 'timeseries' : type;
  if (isObject(ticks)) {
    for (const key of AXIS_TICK_OPTIONS) if (ticks[key] !== undefined) scale[key] = ticks[key];
    const moved = textBlock(omit(ticks, AXIS_TICK_OPTIONS)) ?? {};
    // Chart.js 3 styles minor and major ticks through `ticks`; minor font colour is the usual one.
    if (isObject(ticks.minor)) {
      const minor = textBlock(ticks.minor) ?? {};
      if (moved.color === undefined && minor.color !== undefined) moved.color = minor.color;
      if (moved.font === undefined && minor.font !== undefined) moved.font = minor.font;
      delete moved.minor;
    }
    if (isObject(ticks.major)) moved.major = { enabled: ticks.major.enabled ?? true };
    scale.ticks = { ...(isObject(scale.ticks) ? scale.ticks : {}), ...moved };
  }
  if (isObject(gridLines)) scale.grid = gridOf(gridLines, `${path}.gridLines`, scale);
  if (isObject(scaleLabel)) {
    const { labelString, ...label } = scaleLabel;
    scale.title = defined({ ...textBlock(label), text: labelString });
  }
  if (isObject(time)) {
    const { min, max, stepSize, format, ...kept } = time;
    scale.time = defined({ ...kept, parser: kept.parser ?? format });
    if (min !== undefined) scale.min = min;
    if (max !== undefined) scale.max = max;
    if (stepSize !== undefined) scale.ticks = { ...(scale.ticks as Json | undefined), stepSize };
  }
  return { scale, bar };
}

/** gridLines -> grid, with the axis border options moved to `border` (Chart.js 4). */
function gridOf(gridLines: Json, path: string, scale: Json): Json {
  for (const key of Object.keys(UNTRANSLATABLE)) if (gridLines[key] !== undefined) throw new UntranslatableOption(`${path}.${key}`, UNTRANSLATABLE[key]);
  const { drawBorder, borderDash, borderDashOffset, tickMarkLength, offsetGridLines, ...grid } = gridLines;
  const border = defined({ display: drawBorder, dash: borderDash, dashOffset: borderDashOffset });
  if (Object.keys(border).length) scale.border = { ...(isObject(scale.border) ? scale.border : {}), ...border };
  return defined({ ...grid, tickLength: tickMarkLength, offset: offsetGridLines });
}

/** `options.scale` of radar and polar area charts -> `options.scales.r`. */
function radialScale(scale: Json): Json {
  const { ticks, gridLines, pointLabels, angleLines, ...rest } = scale;
  const out: Json = { ...rest };
  if (isObject(ticks)) {
    for (const key of AXIS_TICK_OPTIONS) if (ticks[key] !== undefined) out[key] = ticks[key];
    out.ticks = textBlock(omit(ticks, AXIS_TICK_OPTIONS));
  }
  if (isObject(gridLines)) out.grid = gridOf(gridLines, 'options.scale.gridLines', out);
  if (isObject(pointLabels)) out.pointLabels = textBlock(pointLabels);
  if (angleLines !== undefined) out.angleLines = angleLines;
  return out;
}

interface AxisIds {
  /** Chart.js 2 axis id (explicit, or x-axis-0...) -> Chart.js 4 scale id. */
  map: Record<string, string>;
}

function translateScales(scales: Json, bar: Json, ids: AxisIds): Json {
  const out: Json = omit(scales, ['xAxes', 'yAxes']);
  for (const [list, letter] of [
    ['xAxes', 'x'],
    ['yAxes', 'y'],
  ] as const) {
    const axes = scales[list];
    if (axes === undefined) continue;
    if (!Array.isArray(axes)) throw new UntranslatableOption(`options.scales.${list}`, 'must be an array of axes');
    axes.forEach((axis, i) => {
      if (!isObject(axis)) return;
      const v2Id = typeof axis.id === 'string' ? axis.id : `${letter}-axis-${i}`;
      const id = typeof axis.id === 'string' ? axis.id : i === 0 ? letter : v2Id;
      ids.map[v2Id] = id;
      const { scale, bar: barOptions } = cartesianAxis(axis, letter, `options.scales.${list}[${i}]`);
      Object.assign(bar, barOptions);
      out[id] = { ...(isObject(out[id]) ? (out[id] as Json) : {}), ...scale };
    });
  }
  return out;
}

/** chartjs-plugin-annotation 0.5 (Chart.js 2: `options.annotation`) -> 3.x (`options.plugins.annotation`). */
export function translateAnnotations(annotation: Json, ids: AxisIds): Json {
  const { annotations, drawTime, ...rest } = annotation;
  const list = Array.isArray(annotations) ? annotations : isObject(annotations) ? Object.values(annotations) : [];
  const scaleId = (id: unknown) => (typeof id === 'string' ? (ids.map[id] ?? id) : id);
  return defined({
    ...rest,
    common: drawTime !== undefined ? { drawTime } : undefined,
    annotations: list.filter(isObject).map((item) => {
      const { mode: _mode, scaleID, xScaleID, yScaleID, label, endValue, ...kept } = item;
      const out: Json = defined({ ...kept, scaleID: scaleId(scaleID), xScaleID: scaleId(xScaleID), yScaleID: scaleId(yScaleID), endValue });
      if (isObject(label)) {
        const { enabled, position, backgroundColor, fontColor, xPadding, yPadding, cornerRadius, ...labelRest } = label;
        const text = textBlock(omit(labelRest, ['fontSize', 'fontStyle', 'fontFamily'])) ?? {};
        const font = fontOf(label);
        const positions: Record<string, string> = { left: 'start', top: 'start', right: 'end', bottom: 'end', center: 'center' };
        out.label = defined({
          ...text,
          display: enabled ?? text.display ?? true,
          position: typeof position === 'string' ? (positions[position] ?? position) : position,
          backgroundColor,
          color: fontColor ?? text.color,
          font,
          padding: xPadding !== undefined || yPadding !== undefined ? { x: xPadding, y: yPadding } : text.padding,
          borderRadius: cornerRadius ?? text.borderRadius,
        });
      }
      return out;
    }),
  });
}

/** A Chart.js 2 dataset's renamed options (lineTension, steppedLine) and its axis ids. */
function translateDataset(dataset: unknown, ids: AxisIds): unknown {
  if (!isObject(dataset)) return dataset;
  const { lineTension, steppedLine, xAxisID, yAxisID, type, ...rest } = dataset;
  return defined({
    ...rest,
    type: type === 'horizontalBar' ? 'bar' : type,
    tension: rest.tension ?? lineTension,
    stepped: rest.stepped ?? steppedLine,
    xAxisID: typeof xAxisID === 'string' ? (ids.map[xAxisID] ?? xAxisID) : xAxisID,
    yAxisID: typeof yAxisID === 'string' ? (ids.map[yAxisID] ?? yAxisID) : yAxisID,
  });
}

const DEGREES = 180 / Math.PI;

/** Translates a Chart.js 2 configuration (QuickChart's default version) into Chart.js 4's. Pure: the input is not changed. */
export function translateChartJs2(config: Json): Json {
  // Chart.js 2 names the default axes x-axis-0 and y-axis-0 (datasets and annotations refer to them); Chart.js 4 names them x and y.
  const ids: AxisIds = { map: { 'x-axis-0': 'x', 'y-axis-0': 'y' } };
  const type = config.type === 'horizontalBar' ? 'bar' : config.type;
  const options: Json = isObject(config.options) ? { ...config.options } : {};
  const plugins: Json = isObject(options.plugins) ? { ...options.plugins } : {};
  const bar: Json = {};

  if (config.type === 'horizontalBar') options.indexAxis = options.indexAxis ?? 'y';
  if (isObject(options.scales)) options.scales = translateScales(options.scales, bar, ids);
  if (isObject(options.scale)) {
    options.scales = { ...(isObject(options.scales) ? options.scales : {}), r: radialScale(options.scale) };
    delete options.scale;
  }
  if (Object.keys(bar).length)
    options.datasets = {
      ...(isObject(options.datasets) ? options.datasets : {}),
      bar: { ...bar, ...((options.datasets as Json | undefined)?.bar as Json | undefined) },
    };

  if (isObject(options.title))
    plugins.title = { ...(textBlock(options.title, { fullWidth: 'fullSize' }) ?? {}), ...(isObject(plugins.title) ? plugins.title : {}) };
  if (isObject(options.legend)) {
    const legend = textBlock(omit(options.legend, ['labels']), { fullWidth: 'fullSize' }) ?? {};
    if (isObject(options.legend.labels)) legend.labels = textBlock(options.legend.labels);
    plugins.legend = { ...legend, ...(isObject(plugins.legend) ? plugins.legend : {}) };
  }
  if (isObject(options.tooltips)) {
    const tooltip = { ...options.tooltips };
    for (const part of ['title', 'body', 'footer']) {
      if (tooltip[`${part}FontColor`] !== undefined) tooltip[`${part}Color`] = tooltip[`${part}FontColor`];
      delete tooltip[`${part}FontColor`];
    }
    plugins.tooltip = { ...tooltip, ...(isObject(plugins.tooltip) ? plugins.tooltip : {}) };
  }
  if (isObject(options.annotation)) plugins.annotation = translateAnnotations(options.annotation, ids);
  else if (isObject(plugins.annotation)) plugins.annotation = translateAnnotations(plugins.annotation, ids);
  delete options.title;
  delete options.legend;
  delete options.tooltips;
  delete options.annotation;

  if (typeof options.cutoutPercentage === 'number') options.cutout = options.cutout ?? `${options.cutoutPercentage}%`;
  // Chart.js 2 measures these in radians from 3 o'clock (default -π/2, the top); Chart.js 4 in degrees from the top.
  if (typeof options.rotation === 'number') options.rotation = Math.round((options.rotation + Math.PI / 2) * DEGREES * 1000) / 1000;
  if (typeof options.circumference === 'number') options.circumference = Math.round(options.circumference * DEGREES * 1000) / 1000;
  delete options.cutoutPercentage;
  if (options.showLines === false) options.datasets = { ...(isObject(options.datasets) ? options.datasets : {}), line: { showLine: false } };
  delete options.showLines;
  if (isObject(options.elements) && options.elements.rectangle !== undefined) {
    const { rectangle, ...elements } = options.elements;
    options.elements = { ...elements, bar: rectangle };
  }
  if (
    isObject(options.elements) &&
    isObject(options.elements.line) &&
    options.elements.line.tension === undefined &&
    options.elements.line.lineTension !== undefined
  ) {
    const { lineTension, ...line } = options.elements.line;
    options.elements = { ...options.elements, line: { ...line, tension: lineTension } };
  }
  options.plugins = plugins;

  const data = isObject(config.data) ? config.data : {};
  const datasets = Array.isArray(data.datasets) ? data.datasets.map((d) => translateDataset(d, ids)) : data.datasets;
  return { ...config, type, data: { ...data, datasets }, options };
}
