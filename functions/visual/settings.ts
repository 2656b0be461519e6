import { integer, text, url } from '../../shared/config/parsers';
import { withDefault, optional, VIS, type Setting } from '../../shared/config/setting-kinds';
import type { Config, ConfigOf } from '../../shared/config';
import type { Platform } from '../../shared/platform';

/** The visual service's settings: rendering, the cache and the limits of a request. */
export const VISUAL_SETTINGS = {
  // ---- visual ------------------------------------------------------------------------------
  QUICKCHART_URL: optional(url, { services: VIS, deploy: 'tuning', description: 'Render through this self-hosted QuickChart server instead of in process.' }),
  QUICKCHART_API_KEY: optional(text, {
    services: VIS,
    deploy: 'tuning',
    description:
      'API key sent to the QuickChart server of QUICKCHART_URL (as quickchart-js sends it), when that server requires one; keep it in Key Vault when used.',
  }),
  VISUAL_CACHE_CONTAINER: withDefault(text, 'chart-cache', {
    services: VIS,
    deploy: 'tuning',
    description: 'Blob container holding rendered charts, infographics, diagrams and presentations.',
  }),
  VISUAL_CACHE_TTL_SECONDS: withDefault(integer(60, 7 * 86400), '43200', {
    services: VIS,
    deploy: 'tuning',
    description: 'How long a rendered result stays served from the cache (12 hours by default); also the expiresAt offset.',
  }),
  VISUAL_RENDER_WORKERS: withDefault(integer(0, 64), '0', {
    services: VIS,
    deploy: 'tuning',
    description: 'Render worker threads per instance; 0 sizes the pool to the available cores.',
  }),
  VISUAL_RENDER_TIMEOUT_MS: withDefault(integer(1, 120_000), '10000', {
    services: VIS,
    deploy: 'tuning',
    description: 'A render taking longer fails (500 Chart rendering failed) and its worker is replaced.',
  }),
  VISUAL_RENDER_QUEUE_MAX: withDefault(integer(1, 100_000), '200', {
    services: VIS,
    deploy: 'tuning',
    description: 'Renders waiting for a thread per instance; beyond it a request gets 503 with Retry-After (backpressure instead of unbounded latency).',
  }),
  VISUAL_FONT_DIR: optional(text, {
    services: VIS,
    deploy: 'tuning',
    description:
      'Folder holding DejaVuSans.ttf and DejaVuSans-Bold.ttf; every theme font is drawn with them so output is the same on every machine. Default: the fonts of the dejavu-fonts-ttf npm package (no operating-system font is needed).',
  }),
  VISUAL_EXTRA_FONTS: optional(text, {
    services: VIS,
    deploy: 'tuning',
    description:
      'Comma list of extra font files (absolute paths, or package paths such as @fontsource/noto-sans-sc/files/noto-sans-sc-chinese-simplified-400-normal.woff) used where DejaVu Sans has no glyph, e.g. CJK. TTF/OTF serve charts and SVG-to-PNG; WOFF/WOFF2 serve charts only.',
  }),
  VISUAL_MAX_ITEMS: withDefault(integer(1, 100), '20', {
    services: VIS,
    deploy: 'tuning',
    description: 'Charts, infographics, diagrams or slides per request (413 above).',
  }),
  VISUAL_MAX_DIMENSION: withDefault(integer(100, 8000), '4000', {
    services: VIS,
    deploy: 'tuning',
    description: 'Largest width or height in pixels (400 above).',
  }),
  VISUAL_MAX_DATASETS: withDefault(integer(1, 200), '20', { services: VIS, deploy: 'tuning', description: 'Datasets per chart (400 above).' }),
  VISUAL_MAX_POINTS: withDefault(integer(1, 100_000), '5000', {
    services: VIS,
    deploy: 'tuning',
    description: 'Data points (and labels) per dataset (400 above).',
  }),
  VISUAL_MAX_BODY_BYTES: withDefault(integer(1024, 50 * 1024 * 1024), String(2 * 1024 * 1024), {
    services: VIS,
    deploy: 'tuning',
    description: 'Largest request body of the visual API and the QuickChart endpoint (413 above).',
  }),
} satisfies Record<string, Setting<unknown>>;

/** The settings visual's code reads: the platform's and its own. */
export type VisualConfig = Config & ConfigOf<typeof VISUAL_SETTINGS>;

/** A platform's configuration as visual reads it (a member made from the platform, a host's banner). */
export const visualConfig = (platform: Platform): VisualConfig => platform.settingsOf(VISUAL_SETTINGS, 'visual');
