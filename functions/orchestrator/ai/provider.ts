import type { OrchestratorConfig } from '../settings';
import type { ReportAnalysis } from '../report/analysis';
import type { SectionDefinition } from '../workflow/stages';
import type { SectionContent } from './section-content';

export interface SectionDraft {
  content: SectionContent;
  tokensUsed: number | null;
  model: string;
  /** A model's structured output: valid at once, valid after one retry, or off the schema twice and replaced by the deterministic text. */
  structuredOutput?: 'valid' | 'retried' | 'deterministic';
}

/** Writes one report section from the prepared analysis. */
export interface AiProvider {
  readonly name: 'offline' | 'openai' | 'azure-openai';
  /** Offline reports say so on their cover. */
  readonly offline: boolean;
  writeSection(section: SectionDefinition, analysis: ReportAnalysis): Promise<SectionDraft>;
}

/** The provider the settings name: the one set, else openai when an endpoint is set, else offline. */
export const aiProviderName = (cfg: OrchestratorConfig): AiProvider['name'] =>
  cfg.ORCHESTRATOR_AI_PROVIDER ?? (cfg.ORCHESTRATOR_AI_ENDPOINT ? 'openai' : 'offline');
