import type { ErrorObject } from 'ajv';
import type { VisualConfig } from './settings';
import { anyObject, arr, bool, dateTime, int, nullable, num, obj, oneOfValues, str, type Infer, type Schema } from '../../shared/http/schemas';
import { ALL_TYPES } from './chart-extras';
import { cleanChartTexts, MAX_CHART_NUMBER } from './chart-input';
import { DEFAULT_LIMITS, limitsOf, perLimits, type Limits } from './limits';

/**
 * The request and answer schemas of the visual service's route table (routes.ts).
 *
 * Each body is one declaration, a function of the request limits (VISUAL_MAX_*): the route
 * validates with it under the settings in force, the API document states it under the default
 * settings, and the handler's types are inferred from it. What JSON Schema cannot say (a rule
 * across fields, the keys and numbers of free-form options) is checked in code and stated in the
 * schema's description; the API words its refusals itself (the published errors: Invalid charts
 * array, Invalid chart specification...), in the order its clients see them (charts.ts and the
 * other `check...Body` functions).
 */

const maxBody = { setting: 'VISUAL_MAX_BODY_BYTES' } as const;

/**
 * A body of the visual API: its schema under the default settings (documented) and under those in
 * force (validated), and the largest body (VISUAL_MAX_BODY_BYTES). The route adds how a refusal is
 * worded.
 */
const apiBody = <S extends Schema>(declare: (l: Limits) => S, normalize?: (body: unknown) => void) => ({
  schema: declare(DEFAULT_LIMITS),
  schemaFor: (config: VisualConfig) => declare(limitsOf(config)),
  ...(normalize ? { normalize } : {}),
  limit: maxBody,
});

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
/** A charts body as its schema sees it: each chart's texts without the characters XML cannot hold (chart-input.ts). */
export const cleanChartsBody = (body: unknown) => {
  if (isObject(body) && Array.isArray(body.charts)) body.charts.forEach(cleanChartTexts);
};
/** A presentation as its schema sees it: the texts of its slides' charts cleaned. */
export const cleanPresentationBody = (body: unknown) => {
  if (isObject(body) && Array.isArray(body.slides)) for (const slide of body.slides) if (isObject(slide)) cleanChartTexts(slide.chart);
};

/** The object schema, open to any other key (typed so: Chart.js takes options beyond those declared). */
const open = <S extends Schema>(schema: S) => ({ ...schema, additionalProperties: true }) as S & { additionalProperties: true };
/** Any of these schemas (its value: any of theirs). */
const either = <S extends readonly Schema[]>(...schemas: S) => ({ anyOf: schemas }) as { anyOf: S };
/** A number within the range every number of a chart keeps to (chart-input.ts). */
const chartNumber = () => num({ minimum: -MAX_CHART_NUMBER, maximum: MAX_CHART_NUMBER });
const perSetting = (setting: string, fallback: number) => `at most ${setting} (${fallback.toLocaleString('en-US')} by default)`;

/** Output formats of the API: base64 is a PNG returned inline as a data URI as well as by URL. */
export const FORMATS = ['png', 'svg', 'base64'] as const;
export const QUALITIES = ['high', 'standard'] as const;
export type Format = (typeof FORMATS)[number];
export type Quality = (typeof QUALITIES)[number];

/** format, quality and theme, the options every render body takes (`format` defaults to `fallback`). */
const renderOptions = <F extends Format>(fallback: F) => ({
  format: oneOfValues(FORMATS, { default: fallback, description: 'png, svg, or base64 (a PNG also returned inline as a data URI)' }),
  quality: oneOfValues(QUALITIES, {
    description: 'high (default): PNGs drawn at twice the size, reduced to stay within 16 megapixels; standard: at their size',
  }),
  theme: str({ maxLength: 50, description: 'professional (default), executive or corporate; any other name draws as professional' }),
});
/** The top-level fields of a render body that renderOptions declares, in its order. */
export const RENDER_OPTIONS = ['format', 'quality', 'theme'] as const;

// ----- Charts -----

/** Chart types by what their data items are: the rules below state it, chart-spec.ts words a refusal of it. */
export type ChartType = (typeof ALL_TYPES)[number];
export const POINT_TYPES: readonly ChartType[] = ['scatter', 'bubble'];
/** Types whose data may also be points ({x, y}: time series, numeric x). */
export const XY_TYPES: readonly ChartType[] = ['line', 'bar', 'horizontalBar', 'sparkline'];
/** Types whose items are samples (an array of numbers) or precomputed statistics ({min, q1, median, q3, max}). */
export const DISTRIBUTION_TYPES: readonly ChartType[] = ['boxplot', 'violin', 'horizontalBoxplot', 'horizontalViolin'];
const NUMBER_TYPES = ALL_TYPES.filter((t) => ![...POINT_TYPES, ...XY_TYPES, ...DISTRIBUTION_TYPES].includes(t));

const withX = (...more: string[]) => ({
  type: 'object',
  required: ['x', ...more],
  properties: Object.fromEntries(['x', ...more].map((name) => [name, {}])),
});
const numberOrNull = either({ type: 'number' }, { type: 'null' });
/** Items of every dataset of a chart of these types are `item`. */
const itemsOf = (types: readonly ChartType[], item: Schema) => ({
  if: { properties: { type: { enum: types } }, required: ['type'] },
  then: {
    properties: {
      data: { type: 'object', properties: { datasets: { type: 'array', items: { type: 'object', properties: { data: { type: 'array', items: item } } } } } },
    },
  },
});
/**
 * The rules of a chart across its fields (its `allOf`): what its data items are by its type, and a
 * progressBar's one or two datasets. Refusals of them are worded by the code (chart-spec.ts,
 * chart-extras.ts), which checks the same rules: isChartRule tells their errors apart.
 */
const CHART_RULES = [
  itemsOf(['scatter'], withX()),
  itemsOf(['bubble'], withX('r')),
  itemsOf(XY_TYPES, either({ type: 'number' }, { type: 'null' }, withX())),
  itemsOf(DISTRIBUTION_TYPES, { not: withX() }),
  itemsOf(NUMBER_TYPES, numberOrNull),
  {
    if: { properties: { type: { const: 'progressBar' } }, required: ['type'] },
    then: { properties: { data: { type: 'object', properties: { datasets: { type: 'array', maxItems: 2 } } } } },
  },
];
/** An error of a chart's cross-field rules (CHART_RULES), whose refusal the code words. */
export const isChartRule = (error: ErrorObject) => error.schemaPath.includes('/allOf/');

const CHART_DESCRIPTION = [
  'A chart: its type, its data (labels, datasets) and Chart.js 4 options.',
  'Data items by type: scatter, points {x, y}; bubble, points {x, y, r}; line, bar, horizontalBar and sparkline, numbers, null or points;',
  'boxplot, violin, horizontalBoxplot and horizontalViolin, samples (a list of numbers), statistics {min, q1, median, q3, max} or numbers; every other type, numbers or null.',
  'Checked beyond this schema (400 VALIDATION_FAILED, Invalid chart specification, naming the chart and the field): options and dataset options hold at most 10,000 keys',
  'at every depth; every number lies within ±1e300, and an option that is a size in pixels (a name ending in radius, width, thickness, length, padding, offset or',
  'spacing; size, fontSize) within ± VISUAL_MAX_DIMENSION; a gauge has a numeric value on its first dataset and numbers as its thresholds; a radialGauge holds a',
  "number in its first dataset; a progressBar's second dataset has as many values as its first; options.plugins.colorschemes.scheme names a scheme of",
  'chartjs-plugin-colorschemes (such as brewer.Paired12). Strings lose the characters XML cannot hold.',
].join(' ');

/** One chart specification under the given limits (built once per limits). */
export const chartSpec = perLimits((l: Limits) => {
  const points = { maxItems: l.maxPoints, description: `${perSetting('VISUAL_MAX_POINTS', DEFAULT_LIMITS.maxPoints)} values` };
  const color = str({ maxLength: 100 });
  const point = obj(
    { x: either(chartNumber(), str({ maxLength: 100 })), y: nullable(chartNumber()), r: num({ minimum: 0, maximum: 1000 }) },
    { optional: ['r'], closed: true },
  );
  const samples = arr(chartNumber(), points);
  const stats = obj(
    { min: chartNumber(), q1: chartNumber(), median: chartNumber(), q3: chartNumber(), max: chartNumber(), mean: chartNumber(), outliers: samples },
    { optional: ['mean', 'outliers'] },
  );
  const dataset = open(
    obj(
      {
        label: str({ maxLength: 500 }),
        data: arr(either(chartNumber(), { type: 'null' } as const, point, samples, stats), points),
        backgroundColor: either(color, arr(color, points)),
        borderColor: either(color, arr(color, points)),
        borderWidth: num({ minimum: 0, maximum: 50 }),
      },
      {
        optional: ['label', 'backgroundColor', 'borderColor', 'borderWidth'],
        extra: { description: 'A dataset: any other Chart.js 4 dataset option is taken as JSON' },
      },
    ),
  );
  const side = int({ minimum: 1, maximum: l.maxDimension, description: `pixels, ${perSetting('VISUAL_MAX_DIMENSION', DEFAULT_LIMITS.maxDimension)}` });
  return obj(
    {
      id: str({ minLength: 1, maxLength: 200 }),
      type: oneOfValues(ALL_TYPES),
      data: obj(
        {
          labels: arr(either(str({ maxLength: 500 }), chartNumber()), points),
          datasets: arr(dataset, { minItems: 1, maxItems: l.maxDatasets, description: perSetting('VISUAL_MAX_DATASETS', DEFAULT_LIMITS.maxDatasets) }),
        },
        { optional: ['labels'], closed: true },
      ),
      options: open(
        obj(
          {
            responsive: bool(),
            width: side,
            height: side,
            title: str({ maxLength: 500 }),
            description: str({ maxLength: 5000 }),
            plugins: anyObject(),
            scales: anyObject(),
          },
          {
            optional: ['responsive', 'width', 'height', 'title', 'description', 'plugins', 'scales'],
            extra: { description: 'Chart.js 4 options; any other option is taken as JSON' },
          },
        ),
      ),
    },
    { optional: ['id', 'options'], closed: true, extra: { allOf: CHART_RULES, description: CHART_DESCRIPTION } },
  );
});
export type ChartSpec = Infer<ReturnType<typeof chartSpec>>;

const itemsLimit = (what: string) => `1 to VISUAL_MAX_ITEMS (${DEFAULT_LIMITS.maxItems} by default) ${what}; more is 413 LIMIT_EXCEEDED`;

const CHARTS_EXAMPLE = {
  charts: [
    {
      id: 'revenue',
      type: 'bar',
      data: { labels: ['Q1', 'Q2', 'Q3', 'Q4'], datasets: [{ label: 'Revenue', data: [120, 150, 170, 210] }] },
      options: { title: 'Revenue by quarter', width: 800, height: 400 },
    },
  ],
  format: 'svg',
  theme: 'professional',
};
export const chartsBody = perLimits((l: Limits) =>
  obj(
    { charts: arr(chartSpec(l), { minItems: 1, maxItems: l.maxItems, description: itemsLimit('charts') }), ...renderOptions('png') },
    { optional: ['format', 'quality', 'theme'], extra: { examples: [CHARTS_EXAMPLE] } },
  ),
);
export type ChartsBody = Infer<ReturnType<typeof chartsBody>>;
export const CHARTS_BODY = apiBody(chartsBody, cleanChartsBody);

// ----- Infographics -----

const MAX_METRICS = 24;
const METRIC = obj(
  {
    label: str({ maxLength: 100 }),
    value: either(num(), str({ maxLength: 40 })),
    unit: str({ maxLength: 20 }),
    change: num({ description: 'Percent change; positive is drawn green with an up arrow, negative red with a down arrow' }),
    // Within ±1e300 (as a chart's numbers): a wider range overflows and draws the line at NaN.
    sparkline: arr(num({ minimum: -MAX_CHART_NUMBER, maximum: MAX_CHART_NUMBER }), { minItems: 2, maxItems: 500 }),
  },
  { optional: ['unit', 'change', 'sparkline'], closed: true },
);
export type Metric = Infer<typeof METRIC>;
/** A flat object of key metrics (`{ "Revenue": 1200, "Users": "3.4k" }`). */
const KEY_METRICS = {
  type: 'object',
  minProperties: 1,
  maxProperties: MAX_METRICS,
  propertyNames: { type: 'string', maxLength: 100, not: { const: 'metrics' } },
  additionalProperties: either(num(), str({ maxLength: 40 })),
} as const;
/** An infographic: a themed KPI grid (type "dashboard", layout "metrics_grid"), each metric a card. */
export const INFOGRAPHIC = obj(
  {
    id: str({ minLength: 1, maxLength: 200 }),
    type: { const: 'dashboard' } as const,
    layout: { const: 'metrics_grid' } as const,
    theme: str({ maxLength: 50 }),
    title: str({ maxLength: 200 }),
    description: str({ maxLength: 5000 }),
    width: int({ minimum: 300, maximum: 4000 }),
    data: either(obj({ metrics: arr(METRIC, { minItems: 1, maxItems: MAX_METRICS }) }, { closed: true }), KEY_METRICS),
  },
  { optional: ['id', 'layout', 'theme', 'title', 'description', 'width'], closed: true },
);
export type InfographicSpec = Infer<typeof INFOGRAPHIC>;

const INFOGRAPHICS_EXAMPLE = {
  infographics: [{ type: 'dashboard', title: 'This month', data: { metrics: [{ label: 'Revenue', value: 1200, unit: ' €', change: 4.5 }] } }],
};
export const infographicsBody = perLimits((l: Limits) =>
  obj(
    { infographics: arr(INFOGRAPHIC, { minItems: 1, maxItems: l.maxItems, description: itemsLimit('infographics') }), ...renderOptions('svg') },
    { optional: ['format', 'quality', 'theme'], extra: { examples: [INFOGRAPHICS_EXAMPLE] } },
  ),
);
export type InfographicsBody = Infer<ReturnType<typeof infographicsBody>>;
export const INFOGRAPHICS_BODY = apiBody(infographicsBody);

// ----- Diagrams -----

export const NODE_SHAPES = ['box', 'rounded', 'ellipse', 'circle', 'diamond', 'parallelogram', 'cylinder', 'note', 'hexagon'] as const;
const MAX_NODES = 500;
const MAX_DOT_BYTES = 100_000;
const DOT = obj(
  {
    id: str({ minLength: 1, maxLength: 200 }),
    type: { const: 'dot' } as const,
    title: str({ maxLength: 200 }),
    source: str({
      minLength: 1,
      maxLength: MAX_DOT_BYTES,
      description:
        'Graphviz DOT source. Checked beyond this schema (400 INVALID_DIAGRAM): links (URL, href, target and their forms) and file references (image, imagepath, shapefile, fontpath, fontnames, stylesheet) are refused, and Graphviz must read it',
    }),
  },
  // `type` is required by the diagram itself (DIAGRAM), whichever branch applies.
  { optional: ['id', 'type', 'title'], closed: true },
);
const FLOWCHART = obj(
  {
    id: str({ minLength: 1, maxLength: 200 }),
    type: { const: 'flowchart' } as const,
    title: str({ maxLength: 200 }),
    direction: oneOfValues(['TB', 'LR', 'BT', 'RL']),
    nodes: arr(
      obj(
        { id: str({ minLength: 1, maxLength: 100 }), label: str({ maxLength: 500 }), shape: oneOfValues(NODE_SHAPES) },
        { optional: ['label', 'shape'], closed: true },
      ),
      { minItems: 1, maxItems: MAX_NODES, description: 'Node ids are unique (checked beyond this schema: 400 INVALID_DIAGRAM)' },
    ),
    edges: arr(obj({ from: str({ maxLength: 100 }), to: str({ maxLength: 100 }), label: str({ maxLength: 200 }) }, { optional: ['label'], closed: true }), {
      maxItems: MAX_NODES * 4,
      description: 'from and to name node ids (checked beyond this schema: 400 INVALID_DIAGRAM)',
    }),
  },
  { optional: ['id', 'type', 'title', 'direction'], closed: true },
);
/** A diagram: a flowchart from nodes and edges, or DOT source, rendered by Graphviz. */
/**
 * A branch of DIAGRAM, whose own `type: 'object'` DIAGRAM already checks: left out, so a diagram
 * that is not an object is refused once (its type stays, for the inferred type).
 */
const branch = <S extends { type: 'object' }>({ type: _object, ...rest }: S) => rest as S;
export const DIAGRAM = {
  ...obj({ type: oneOfValues(['flowchart', 'dot']) }),
  if: { properties: { type: { const: 'dot' } } },
  then: branch(DOT),
  else: branch(FLOWCHART),
};
export type DiagramSpec = Infer<typeof DIAGRAM>;
export type FlowchartSpec = Infer<typeof FLOWCHART>;

const DIAGRAMS_EXAMPLE = {
  diagrams: [
    {
      type: 'flowchart',
      nodes: [
        { id: 'a', label: 'Order' },
        { id: 'b', label: 'Invoice' },
      ],
      edges: [{ from: 'a', to: 'b' }],
    },
  ],
};
export const diagramsBody = perLimits((l: Limits) =>
  obj(
    { diagrams: arr(DIAGRAM, { minItems: 1, maxItems: l.maxItems, description: itemsLimit('diagrams') }), ...renderOptions('svg') },
    { optional: ['format', 'quality', 'theme'], extra: { examples: [DIAGRAMS_EXAMPLE] } },
  ),
);
export type DiagramsBody = Infer<ReturnType<typeof diagramsBody>>;
export const DIAGRAMS_BODY = apiBody(diagramsBody);

// ----- Presentations -----

const PRESENTATION_EXAMPLE = {
  title: 'Quarterly review',
  slides: [{ title: 'Highlights', bullets: ['Revenue up 12 %', 'Two new markets'] }],
};
export const presentationBody = perLimits((l: Limits) =>
  obj(
    {
      title: str({ minLength: 1, maxLength: 200 }),
      subtitle: str({ maxLength: 300 }),
      theme: str({ maxLength: 50 }),
      slides: arr(
        obj(
          { title: str({ maxLength: 200 }), bullets: arr(str({ maxLength: 500 }), { maxItems: 12 }), chart: chartSpec(l), notes: str({ maxLength: 10_000 }) },
          { optional: ['bullets', 'chart', 'notes'], closed: true },
        ),
        { minItems: 1, maxItems: l.maxItems, description: itemsLimit('slides') },
      ),
    },
    {
      optional: ['subtitle', 'theme'],
      closed: true,
      extra: {
        description: 'A presentation: a title slide, then one slide per entry (title, bullets, a chart drawn as an image, speaker notes)',
        examples: [PRESENTATION_EXAMPLE],
      },
    },
  ),
);
export type PresentationBody = Infer<ReturnType<typeof presentationBody>>;
export const PRESENTATION_BODY = apiBody(presentationBody, cleanPresentationBody);

// ----- QuickChart -----

/** QuickChart's `chart` as data: what parseChartConfig checks (quickchart.ts), under the given limits. */
export const chartConfigSchema = perLimits((l: Limits) => ({
  type: 'object',
  required: ['type', 'data'],
  properties: {
    type: { enum: ALL_TYPES },
    data: {
      type: 'object',
      required: ['datasets'],
      properties: {
        labels: { type: 'array', maxItems: l.maxPoints },
        datasets: {
          type: 'array',
          minItems: 1,
          maxItems: l.maxDatasets,
          items: { type: 'object', properties: { data: { type: 'array', maxItems: l.maxPoints } } },
        },
      },
    },
    options: { type: 'object' },
  },
}));

const text = (description: string, extra: Schema = {}) => str({ description, ...extra });
/** A number QuickChart also takes as text. */
const quantity = (description: string, minimum: number, maximum: number) => ({ anyOf: [num({ minimum, maximum }), str()], description });
const chartParameter = either(
  chartConfigSchema(DEFAULT_LIMITS),
  text('The configuration as JSON or JavaScript object-literal (JSON5) text; base64 with encoding=base64'),
);
/**
 * QuickChart's parameters, as its clients send them: the route hands the bytes over unparsed (the
 * guard reads `key` from them) and the endpoint reads them as QuickChart does (quickchart.ts), with
 * its short names, numbers as text and format names in any case. A GET takes the same parameters in
 * its query.
 */
export const QUICKCHART_BODY = {
  schema: obj(
    {
      chart: chartParameter,
      c: chartParameter,
      width: quantity(`Width in pixels, 1 to VISUAL_MAX_DIMENSION (default 500)`, 1, DEFAULT_LIMITS.maxDimension),
      w: quantity('width', 1, DEFAULT_LIMITS.maxDimension),
      height: quantity(`Height in pixels, 1 to VISUAL_MAX_DIMENSION (default 300)`, 1, DEFAULT_LIMITS.maxDimension),
      h: quantity('height', 1, DEFAULT_LIMITS.maxDimension),
      devicePixelRatio: quantity('0.1 to 3 (default 2); reduced to stay within 16 megapixels', 0.1, 3),
      backgroundColor: text('A CSS colour: a name (white, transparent), #rgb, #rrggbb, rgb(), rgba(), hsl() or hsla() (default transparent)', {
        maxLength: 100,
      }),
      bkg: text('backgroundColor', { maxLength: 100 }),
      format: text('png (default), svg, webp, jpg, jpeg, pdf or base64 (a PNG as a data URI), in any case'),
      f: text('format'),
      version: either(
        num(),
        text('The Chart.js version the configuration is written for: 2 (default, translated to Chart.js 4), 3 or 4, with a minor version or not'),
      ),
      v: either(num(), text('version')),
      encoding: text('url (default) or base64: how `chart` text is encoded'),
      filename: text('Answer as an attachment of this name (the extension follows the format)', { maxLength: 200 }),
      key: text('VISUAL_API_TOKEN, when it is set and no Bearer token is sent'),
    },
    {
      optional: [
        'chart',
        'c',
        'width',
        'w',
        'height',
        'h',
        'devicePixelRatio',
        'backgroundColor',
        'bkg',
        'format',
        'f',
        'version',
        'v',
        'encoding',
        'filename',
        'key',
      ],
      extra: {
        description: "QuickChart's parameters: chart (or c) is required",
        examples: [{ chart: { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ data: [1, 2] }] } } }],
      },
    },
  ),
  limit: maxBody,
  raw: true,
  optional: true,
};
export const CACHE_KEY = obj({ key: str({ maxLength: 128 }) });
export const API_REST = obj({ rest: str() }, { optional: ['rest'] });

// ----- Answers -----

const METADATA = obj(
  { width: int(), height: int(), size: int(), generatedAt: dateTime(), title: nullable(str()), description: nullable(str()) },
  { optional: ['title', 'description'] },
);
const RESULT = obj({ id: str(), imageUrl: str(), base64: nullable(str()), metadata: METADATA });
export const CHARTS = obj({ success: bool(), charts: arr(RESULT), cacheKey: str(), expiresAt: dateTime() });
export const INFOGRAPHICS = obj({ success: bool(), infographics: arr(RESULT), cacheKey: str(), expiresAt: dateTime() });
export const PRESENTATION = obj({ success: bool(), presentation: obj({ title: str(), url: str(), contentType: str(), metadata: anyObject() }) });
export const DIAGRAMS = obj({ success: bool(), diagrams: arr(RESULT), cacheKey: str(), expiresAt: dateTime() });
const IMAGES = {
  'image/png': str({ format: 'binary' }),
  'image/svg+xml': str(),
  'image/webp': str({ format: 'binary' }),
  'image/jpeg': str({ format: 'binary' }),
  'application/pdf': str({ format: 'binary' }),
};
export const CACHED = {
  description: 'The stored result',
  content: { ...IMAGES, 'application/vnd.openxmlformats-officedocument.presentationml.presentation': str({ format: 'binary' }) },
};
export const QUICKCHART_IMAGE = { description: 'The chart in the requested format (base64: a data URI as text)', content: { ...IMAGES, 'text/plain': str() } };
export const NOT_MODIFIED = { description: 'The cached copy is current (ETag)' };
export const BANNER = { description: 'The plain-text banner listing the API', content: { 'text/plain': str() } };
