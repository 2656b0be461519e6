import { config, type Config } from '../../../shared/config';
import { OfflineProvider } from './offline';
import type { AiProvider } from './provider';

export type { AiProvider, SectionDraft } from './provider';

/** The configured provider: offline unless an endpoint is set (or the provider named explicitly). */
export function aiProvider(cfg: Config = config()): AiProvider {
  const name = cfg.ORCHESTRATOR_AI_PROVIDER ?? (cfg.ORCHESTRATOR_AI_ENDPOINT ? 'openai' : 'offline');
  if (name === 'offline') return new OfflineProvider();
  if (!cfg.ORCHESTRATOR_AI_ENDPOINT) throw new Error(`ORCHESTRATOR_AI_PROVIDER=${name} needs ORCHESTRATOR_AI_ENDPOINT`);
  // The OpenAI SDK loads with the first execution that uses it, not with the service.
  const { OpenAiProvider } = require('./openai') as typeof import('./openai');
  return new OpenAiProvider(name, cfg);
}
