import { publicUrl, serviceUrl, type Config } from '../../../shared/config';
import { trimTrailingSlashes } from '../../../shared/text';

/** What the console's browser code learns from `orchestrator/console/config.json`: where each service's public API is. */
export interface ConsoleConfig {
  /** Base URLs: a path (`/identity`) when the service is on the console's own origin, a full URL when it runs in another app. */
  services: { identity: string; payment: string; orchestrator: string; visual: string };
}

/**
 * A service on the same origin as this host is given as a path, so the console works whatever
 * name the browser used for the host (localhost or 127.0.0.1, a custom domain in front of the
 * app); a service in another Function App is given as its full URL (it must then list the
 * console's origin in its CORS_ALLOWED_ORIGINS).
 */
function baseFor(url: string, own: URL): string {
  const parsed = new URL(url);
  const base = trimTrailingSlashes(parsed.pathname);
  return parsed.origin === own.origin ? base : `${parsed.origin}${base}`;
}

export function consoleConfig(cfg: Config): ConsoleConfig {
  const own = new URL(publicUrl(cfg));
  return {
    services: {
      identity: baseFor(serviceUrl('identity', cfg), own),
      payment: baseFor(serviceUrl('payment', cfg), own),
      orchestrator: baseFor(serviceUrl('orchestrator', cfg), own),
      visual: baseFor(serviceUrl('visual', cfg), own),
    },
  };
}

/**
 * The console page's Content-Security-Policy: scripts, styles and fonts only from this origin (no
 * inline code, no other origin), images from this origin or blob: (the trend chart is fetched
 * with the admin's token and shown from a blob), and API calls only to this origin and the
 * platform's own services in other apps.
 */
export function consoleCsp(cfg: Config): string {
  const origins = new Set<string>();
  for (const base of Object.values(consoleConfig(cfg).services)) if (/^https?:\/\//.test(base)) origins.add(new URL(base).origin);
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' blob:",
    "font-src 'self'",
    `connect-src ${["'self'", ...origins].join(' ')}`,
    "manifest-src 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
