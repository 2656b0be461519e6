import { config, serviceUrl, type Config } from '../../shared/config';
import { trimTrailingSlashes } from '../../shared/text';
import { check, type DependencyCheck } from '../../shared/health';

/**
 * The orchestrator's optional dependencies as its health reports them: the AI provider (every report
 * fails without it) and the visual service (reports go without charts, the console without its
 * trend chart). Each probe is one cheap HTTP request with its own deadline, never a completion.
 */

const PROBE_TIMEOUT_MS = 2500;

/** Why a request got no answer: the connection error's own words (`connect ECONNREFUSED 10.0.0.4:443`), never a URL with a key. */
function unreachable(error: unknown): Error {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`);
  return new Error(`unreachable: ${e?.cause?.message ?? e?.cause?.code ?? e?.message ?? String(error)}`);
}

async function probe(url: string, headers: Record<string, string> = {}): Promise<Response> {
  try {
    return await fetch(url, { headers, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  } catch (error) {
    throw unreachable(error);
  }
}

/**
 * The AI provider: offline needs nothing; an endpoint must answer its model list (`GET /models`,
 * Azure OpenAI's `/openai/models`). Any HTTP answer means reachable, except that a key it refuses
 * (401, 403) is reported: every report would fail on it. Without a key (managed identity, or a
 * local server) the answer's status is only shown.
 */
export function checkAi(cfg: Config = config()): Promise<DependencyCheck> {
  return check(async () => {
    const name = cfg.ORCHESTRATOR_AI_PROVIDER ?? (cfg.ORCHESTRATOR_AI_ENDPOINT ? 'openai' : 'offline');
    if (name === 'offline') return 'offline provider (no AI endpoint configured)';
    if (!cfg.ORCHESTRATOR_AI_ENDPOINT) throw new Error(`ORCHESTRATOR_AI_PROVIDER=${name} needs ORCHESTRATOR_AI_ENDPOINT`);
    const base = trimTrailingSlashes(cfg.ORCHESTRATOR_AI_ENDPOINT);
    const key = cfg.ORCHESTRATOR_AI_API_KEY;
    const azure = name === 'azure-openai';
    const url = azure ? `${base}/openai/models?api-version=${encodeURIComponent(cfg.ORCHESTRATOR_AI_API_VERSION)}` : `${base}/models`;
    const headers: Record<string, string> = key ? (azure ? { 'api-key': key } : { authorization: `Bearer ${key}` }) : {};
    const res = await probe(url, headers);
    await res.body?.cancel();
    if (key && (res.status === 401 || res.status === 403)) throw new Error(`the ${name} endpoint refused the API key (${res.status})`);
    return `${name} endpoint reachable (HTTP ${res.status})`;
  }, PROBE_TIMEOUT_MS + 500);
}

/** The visual service: its own health route, which checks its storage and renderer. */
export function checkVisual(): Promise<DependencyCheck> {
  return check(async () => {
    const res = await probe(`${serviceUrl('visual')}/health`);
    const body = (await res.json().catch(() => ({}))) as { status?: string; reason?: string };
    if (!res.ok) throw new Error(`the visual service is ${body.status ?? `answering ${res.status}`}${body.reason ? ` (${body.reason})` : ''}`);
    return `visual service ${body.status ?? 'healthy'}`;
  }, PROBE_TIMEOUT_MS + 500);
}
