import { serviceUrl } from '../../shared/config';
import type { OrchestratorConfig } from './settings';

/**
 * The visual service as the orchestrator calls it (the report's charts and infographic, the
 * console's trend chart, the health probe): its base URL from the settings, the service token on
 * its API only (never on the public cache route, whatever the answer named), and the configured
 * deadline on every request.
 */
export interface VisualClient {
  /** The visual service's base URL ({visual_url}). */
  readonly url: string;
  /** A request to `path` under the base URL (`/api/v1/charts/render`, `/cache/<key>`). */
  request(path: string, init?: RequestInit): Promise<Response>;
}

export function visualClient(cfg: OrchestratorConfig): VisualClient {
  const url = serviceUrl('visual', cfg);
  return {
    url,
    request: (path, init = {}) => {
      const token: Record<string, string> = path.startsWith('/api/') && cfg.VISUAL_API_TOKEN ? { authorization: `Bearer ${cfg.VISUAL_API_TOKEN}` } : {};
      return fetch(`${url}${path}`, {
        ...init,
        headers: { ...token, ...(init.headers as Record<string, string> | undefined) },
        signal: AbortSignal.timeout(cfg.ORCHESTRATOR_VISUAL_TIMEOUT_MS),
      });
    },
  };
}
