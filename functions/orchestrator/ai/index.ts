import type { TokenCredential } from '@azure/identity';
import type { OrchestratorConfig } from '../settings';
import { OfflineProvider } from './offline';
import { aiProviderName, type AiProvider } from './provider';

export { aiProviderName, type AiProvider, type SectionDraft } from './provider';

/**
 * The configured provider: offline unless an endpoint is set (or the provider named explicitly).
 * `credential` is the managed identity, asked for only by Azure OpenAI without an API key.
 */
export function aiProvider(cfg: OrchestratorConfig, credential: () => TokenCredential): AiProvider {
  const name = aiProviderName(cfg);
  if (name === 'offline') return new OfflineProvider();
  if (!cfg.ORCHESTRATOR_AI_ENDPOINT) throw new Error(`ORCHESTRATOR_AI_PROVIDER=${name} needs ORCHESTRATOR_AI_ENDPOINT`);
  // The OpenAI SDK loads with the first execution that uses it, not with the service.
  const { OpenAiProvider } = require('./openai') as typeof import('./openai');
  return new OpenAiProvider(name, cfg, credential);
}
