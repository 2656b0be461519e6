import { anyObject, arr, bool, dateTime, int, nullable, obj, oneOfValues, str } from '../../shared/http/schemas';

/** The request and answer schemas of the visual service's route table (index.ts). */

const maxBody = { setting: 'VISUAL_MAX_BODY_BYTES' } as const;
/** The operations check their bodies themselves, so the specification's own messages (400 Invalid charts array) come first. */
const apiBody = (schema: Record<string, unknown>) => ({ schema, limit: maxBody, checkedByOperation: true });

const CHART_SPEC = obj(
  {
    id: str(),
    type: oneOfValues([
      'bar',
      'line',
      'pie',
      'doughnut',
      'radar',
      'scatter',
      'bubble',
      'polarArea',
      'horizontalBar',
      'boxplot',
      'violin',
      'progressBar',
      'gauge',
      'radialGauge',
    ]),
    data: obj({ labels: arr({}), datasets: arr(anyObject()) }, { optional: ['labels'] }),
    options: anyObject(),
  },
  { optional: ['id', 'options'] },
);
export const CHARTS_BODY = apiBody(
  obj(
    { charts: arr(CHART_SPEC, { minItems: 1 }), format: oneOfValues(['png', 'svg', 'base64'], { default: 'png' }), quality: str(), theme: str() },
    { optional: ['format', 'quality', 'theme'] },
  ),
);
export const INFOGRAPHICS_BODY = apiBody(
  obj({ infographics: arr(anyObject(), { minItems: 1 }), format: str(), theme: str() }, { optional: ['format', 'theme'] }),
);
export const PRESENTATION_BODY = apiBody(anyObject({ description: 'A presentation: title, slides (each with a title, bullets and charts), theme' }));
export const DIAGRAMS_BODY = apiBody(obj({ diagrams: arr(anyObject(), { minItems: 1 }), format: str(), theme: str() }, { optional: ['format', 'theme'] }));
export const QUICKCHART_BODY = {
  schema: anyObject({
    description: "QuickChart's parameters: chart (or c), width, height, devicePixelRatio, backgroundColor, format, version, encoding, filename, key",
  }),
  limit: maxBody,
  raw: true,
  optional: true,
};
export const CACHE_KEY = obj({ key: str({ maxLength: 128 }) });
export const API_REST = obj({ rest: str() }, { optional: ['rest'] });

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
